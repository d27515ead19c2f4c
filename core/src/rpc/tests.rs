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
    let Ok(Incoming::Response(answer)) =
        parse(br#"{"jsonrpc":"2.0","id":"x","result":{"a":1}}"#, &l)
    else {
        panic!("a response");
    };
    assert!(matches!(answer.id, Id::Str(s) if s.eq_str("x")));
    assert!(matches!(answer.outcome, Some(Ok(r)) if r.raw() == br#"{"a":1}"#));
    let Ok(Incoming::Response(refusal)) = parse(
        br#"{"error":{"code":-1,"message":"no"},"id":3,"jsonrpc":"2.0"}"#,
        &l,
    ) else {
        panic!("a response");
    };
    assert_eq!(refusal.id, Id::Num(3));
    let Some(Err(error)) = refusal.outcome else {
        panic!("an error");
    };
    assert_eq!(error.get("code").and_then(|c| c.as_i64()), Some(-1));
    let Ok(Incoming::Response(both)) = parse(
        br#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"},"result":{}}"#,
        &l,
    ) else {
        panic!("a response");
    };
    assert!(both.outcome.is_none());
    // Without an id, or with neither member, it is not a response.
    assert!(parse(br#"{"jsonrpc":"2.0","result":{}}"#, &l).is_err());
    assert!(parse(br#"{"jsonrpc":"2.0","id":1}"#, &l).is_err());
}

/// Member names of the envelope are matched after unescaping, and a longer name that only
/// starts like one is another member.
#[test]
fn envelope_member_names_are_read_unescaped() {
    let l = Limits::default();
    let escaped =
        br#"{"\u006asonrpc":"2.0","\u0069d":9,"meth\u006fd":"tools/list","par\u0061ms":{"a":1}}"#;
    let Ok(Incoming::Request(request)) = parse(escaped, &l) else {
        panic!("an escaped request is a request");
    };
    assert_eq!(request.id, Id::Num(9));
    assert!(request.method.eq_str("tools/list"));
    assert!(
        request
            .params
            .is_some_and(|p| p.as_value().raw() == br#"{"a":1}"#)
    );
    let Ok(Incoming::Response(answer)) = parse(
        br#"{"jsonrpc":"2.0","id":1,"\u0065rror":{"code":-1,"message":"no"}}"#,
        &l,
    ) else {
        panic!("a response");
    };
    assert!(matches!(answer.outcome, Some(Err(_))));
    assert!(
        parse(
            br#"{"jsonrpc":"2.0","idx":1,"methods":"x","method":"y"}"#,
            &l
        )
        .is_ok_and(|m| matches!(m, Incoming::Notification(_)))
    );
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
