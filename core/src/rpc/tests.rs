use super::*;
use crate::json::Limits;

fn reject(text: &str) -> Rejected<'_> {
    parse(text.as_bytes(), &Limits::default()).expect_err(text)
}

#[test]
fn classifies_messages() {
    let l = Limits::default();
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#, &l),
        Ok(Incoming::Request(Request { id: Id::Num(7), .. }))
    ));
    assert!(matches!(
        parse(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#,
            &l
        ),
        Ok(Incoming::Notification(_))
    ));
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","id":"x","result":{}}"#, &l),
        Ok(Incoming::Response)
    ));
}

#[test]
fn rejects_what_is_not_a_request() {
    assert_eq!(reject("{").code, ErrorCode::PARSE_ERROR);
    assert_eq!(reject("[]").code, ErrorCode::INVALID_REQUEST);
    assert_eq!(reject("3").code, ErrorCode::INVALID_REQUEST);
    let r = reject(r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#);
    assert_eq!(
        (r.code, r.id),
        (ErrorCode::INVALID_REQUEST, Some(Id::Num(1)))
    );
    assert_eq!(
        reject(r#"{"jsonrpc":"2.0","id":1,"method":5}"#).code,
        ErrorCode::INVALID_REQUEST
    );
    assert_eq!(
        reject(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).id,
        None
    );
    assert_eq!(
        reject(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).id,
        None
    );
    let long = std::format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"x"}}"#,
        "a".repeat(257)
    );
    assert_eq!(reject(&long).code, ErrorCode::INVALID_REQUEST);
    assert_eq!(
        reject(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[]}"#).code,
        ErrorCode::INVALID_REQUEST
    );
}
