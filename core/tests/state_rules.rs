//! One test per sentence of the seed's "State and effects" and "Key rotation" sections (and
//! the opening rules the issue spells out), named after what the sentence says.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use snodo_core::json::{Limits, Value, parse};
use snodo_core::state::{
    Binding, ConfigError, InvalidState, KeyRing, KeySet, Keys, MAX_DATA_LEN, MAX_TOKEN_LEN,
    OPEN_SCRATCH_LEN, Principal, SealError, Secret, StateOptions, Ttl, open, open_scratch_len,
    seal,
};

const S: [u8; 32] = [0x5a; 32];
const OTHER: [u8; 32] = [0xa5; 32];
const NOW: u64 = 1_780_000_000;
const PARAMS: &str = r#"{"name":"preview","arguments":{"color":"red","n":1,"list":[1,2]}}"#;
const DATA: &str = r#"{"step":1,"answers":{"color":"red"}}"#;

fn json(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::default()).expect(text)
}

fn secret(bytes: &[u8]) -> StateOptions {
    StateOptions::new(Keys::secret(bytes).unwrap())
}

fn ring(keys: &[(&str, [u8; 32])]) -> StateOptions {
    StateOptions::new(Keys::ring(keys).unwrap())
}

fn bind<'a>(method: &'a str, params: &'a str, principal: Principal<'a>) -> Binding<'a> {
    Binding::new(method, Some(json(params)), principal)
}

fn call(params: &str) -> Binding<'_> {
    bind("tools/call", params, Principal::Id("alice"))
}

fn seal_at(
    data: &str,
    binding: &Binding<'_>,
    options: &StateOptions<impl KeySet>,
    now: u64,
) -> Vec<u8> {
    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(data.as_bytes(), binding, options, now, &mut out).expect("seal");
    out[..n].to_vec()
}

fn open_at(
    token: &[u8],
    binding: &Binding<'_>,
    options: &StateOptions<impl KeySet>,
    now: u64,
) -> Result<String, InvalidState> {
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    open(token, binding, options, now, &mut scratch)
        .map(|v| String::from_utf8(v.raw().to_vec()).unwrap())
}

fn token(options: &StateOptions<impl KeySet>) -> Vec<u8> {
    seal_at(DATA, &call(PARAMS), options, NOW)
}

fn payload_text(token: &[u8]) -> String {
    let text = std::str::from_utf8(token).unwrap();
    let payload = text.split('.').nth(2).unwrap();
    String::from_utf8(URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

// ── State and effects ────────────────────────────────────────────────────────────────────

#[test]
fn seal_returns_an_opaque_signed_token() {
    let options = secret(&S);
    let token = token(&options);
    let text = std::str::from_utf8(&token).unwrap();
    assert!(text.starts_with("s2.."), "{text}");
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    );
    assert_eq!(text.split('.').count(), 4);
    // Signed: the same bytes with another key do not open.
    assert_eq!(
        open_at(&token, &call(PARAMS), &secret(&OTHER), NOW),
        Err(InvalidState)
    );
}

#[test]
fn the_same_options_open_the_token_on_retry() {
    let options = secret(&S);
    let token = token(&options);
    let retry = r#"{"name":"preview","arguments":{"color":"red","n":1,"list":[1,2]},"requestState":"x","inputResponses":{"color":{"action":"accept"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
    assert_eq!(
        open_at(&token, &call(retry), &options, NOW + 5).as_deref(),
        Ok(DATA)
    );
}

#[test]
fn binds_the_method() {
    let options = secret(&S);
    let token = token(&options);
    let other = bind("prompts/get", PARAMS, Principal::Id("alice"));
    assert_eq!(open_at(&token, &other, &options, NOW), Err(InvalidState));
}

#[test]
fn binds_the_salient_parameters() {
    let options = secret(&S);
    let token = token(&options);
    let changed = r#"{"name":"preview","arguments":{"color":"blue","n":1,"list":[1,2]}}"#;
    assert_eq!(
        open_at(&token, &call(changed), &options, NOW),
        Err(InvalidState)
    );
    let renamed = r#"{"name":"other","arguments":{"color":"red","n":1,"list":[1,2]}}"#;
    assert_eq!(
        open_at(&token, &call(renamed), &options, NOW),
        Err(InvalidState)
    );
    let extra = r#"{"name":"preview","arguments":{"color":"red","n":1,"list":[1,2],"x":null}}"#;
    assert_eq!(
        open_at(&token, &call(extra), &options, NOW),
        Err(InvalidState)
    );
    let none = Binding::new("tools/call", None, Principal::Id("alice"));
    assert_eq!(open_at(&token, &none, &options, NOW), Err(InvalidState));
}

#[test]
fn binds_the_explicit_principal() {
    let options = secret(&S);
    let token = token(&options);
    for other in [
        Principal::Id("bob"),
        Principal::Anonymous,
        Principal::Id(""),
    ] {
        let binding = bind("tools/call", PARAMS, other);
        assert_eq!(open_at(&token, &binding, &options, NOW), Err(InvalidState));
    }
}

#[test]
fn binds_the_expiry() {
    let options = secret(&S);
    let token = token(&options);
    // Rewriting the readable expiry (and re-encoding) breaks the MAC.
    let text = std::str::from_utf8(&token).unwrap();
    let parts: Vec<&str> = text.split('.').collect();
    let payload = payload_text(&token).replace(
        &format!("\"exp\":{}", NOW + 300),
        &format!("\"exp\":{}", NOW + 900),
    );
    assert!(payload.contains(&format!("{}", NOW + 900)));
    let forged = format!(
        "s2.{}.{}.{}",
        parts[1],
        URL_SAFE_NO_PAD.encode(payload),
        parts[3]
    );
    assert_eq!(
        open_at(forged.as_bytes(), &call(PARAMS), &options, NOW + 400),
        Err(InvalidState)
    );
    assert_eq!(
        open_at(forged.as_bytes(), &call(PARAMS), &options, NOW),
        Err(InvalidState)
    );
}

#[test]
fn rejects_tampering() {
    let options = secret(&S);
    let token = token(&options);
    for i in 0..token.len() {
        let mut bad = token.clone();
        bad[i] ^= 0x01;
        assert_eq!(
            open_at(&bad, &call(PARAMS), &options, NOW),
            Err(InvalidState),
            "byte {i}"
        );
    }
    assert_eq!(
        open_at(&token[..token.len() - 1], &call(PARAMS), &options, NOW),
        Err(InvalidState)
    );
    let mut longer = token.clone();
    longer.push(b'A');
    assert_eq!(
        open_at(&longer, &call(PARAMS), &options, NOW),
        Err(InvalidState)
    );
}

#[test]
fn bounds_token_size() {
    // Sealing more than the data bound is an error; the largest data fits the token bound.
    let options = ring(&[("k".repeat(32).as_str(), S)]);
    let big = format!("\"{}\"", "x".repeat(MAX_DATA_LEN - 2));
    let mut out = vec![0u8; MAX_TOKEN_LEN];
    let n = seal(
        big.as_bytes(),
        &call(PARAMS),
        &options,
        u64::MAX - 900,
        &mut out,
    )
    .unwrap();
    assert_eq!(n, MAX_TOKEN_LEN);
    let too_big = format!("\"{}\"", "x".repeat(MAX_DATA_LEN - 1));
    assert_eq!(
        seal(too_big.as_bytes(), &call(PARAMS), &options, NOW, &mut out),
        Err(SealError::DataTooLarge)
    );
    // Opening more than the token bound is the generic failure.
    let mut oversize = out[..n].to_vec();
    oversize.extend_from_slice(b"AAAA");
    assert_eq!(
        open_at(&oversize, &call(PARAMS), &options, NOW),
        Err(InvalidState)
    );
    assert_eq!(
        open_at(&vec![b'A'; 1 << 20], &call(PARAMS), &options, NOW),
        Err(InvalidState)
    );
}

#[test]
fn a_too_small_buffer_reports_the_size_needed() {
    let options = secret(&S);
    let needed = token(&options).len();
    let mut out = vec![0u8; needed - 1];
    assert_eq!(
        seal(DATA.as_bytes(), &call(PARAMS), &options, NOW, &mut out),
        Err(SealError::BufferTooSmall { required: needed })
    );
    let mut out = vec![0u8; needed];
    assert_eq!(
        seal(DATA.as_bytes(), &call(PARAMS), &options, NOW, &mut out),
        Ok(needed)
    );
}

#[test]
fn sealed_data_must_be_json() {
    let options = secret(&S);
    let mut out = [0u8; MAX_TOKEN_LEN];
    for bad in ["", "{", "{\"a\":1,\"a\":2}", "nope"] {
        assert!(matches!(
            seal(bad.as_bytes(), &call(PARAMS), &options, NOW, &mut out),
            Err(SealError::InvalidData(_))
        ));
    }
}

#[test]
fn jsonrpc_ids_are_excluded_from_the_binding() {
    let options = secret(&S);
    let first = json(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#);
    let retry = json(r#"{"jsonrpc":"2.0","id":"r-2","method":"tools/call","params":{"name":"t"}}"#);
    let first = Binding::new("tools/call", first.get("params"), Principal::Anonymous);
    let retry = Binding::new("tools/call", retry.get("params"), Principal::Anonymous);
    let token = seal_at(DATA, &first, &options, NOW);
    assert!(open_at(&token, &retry, &options, NOW).is_ok());
}

#[test]
fn top_level_retry_and_metadata_fields_are_excluded_from_the_binding() {
    let options = secret(&S);
    let token = seal_at(
        DATA,
        &call(r#"{"name":"t","_meta":{"a":1}}"#),
        &options,
        NOW,
    );
    for retry in [
        r#"{"name":"t"}"#,
        r#"{"name":"t","_meta":{"b":2}}"#,
        r#"{"requestState":"anything","name":"t"}"#,
        r#"{"name":"t","inputResponses":{"x":{"action":"decline"}},"requestState":"y"}"#,
    ] {
        assert!(
            open_at(&token, &call(retry), &options, NOW).is_ok(),
            "{retry}"
        );
    }
    // With no params at all, the retry's params hold only retry fields.
    let bare = Binding::new("prompts/get", None, Principal::Anonymous);
    let token = seal_at(DATA, &bare, &options, NOW);
    let retry = bind(
        "prompts/get",
        r#"{"requestState":"z"}"#,
        Principal::Anonymous,
    );
    assert!(open_at(&token, &retry, &options, NOW).is_ok());
}

#[test]
fn nested_argument_fields_are_not_excluded() {
    let options = secret(&S);
    for nested in ["_meta", "requestState", "inputResponses"] {
        let sealed = format!(r#"{{"name":"t","arguments":{{"{nested}":1}}}}"#);
        let token = seal_at(DATA, &call(&sealed), &options, NOW);
        let changed = format!(r#"{{"name":"t","arguments":{{"{nested}":2}}}}"#);
        let dropped = r#"{"name":"t","arguments":{}}"#;
        assert_eq!(
            open_at(&token, &call(&changed), &options, NOW),
            Err(InvalidState)
        );
        assert_eq!(
            open_at(&token, &call(dropped), &options, NOW),
            Err(InvalidState)
        );
        assert!(open_at(&token, &call(&sealed), &options, NOW).is_ok());
    }
}

#[test]
fn map_order_does_not_matter() {
    let options = secret(&S);
    let token = token(&options);
    let reordered = r#"{"arguments":{"list":[1,2],"n":1,"color":"red"},"name":"preview"}"#;
    assert!(open_at(&token, &call(reordered), &options, NOW).is_ok());
    let escaped =
        r#"{ "arguments" : {"list":[1, 2],"n":1,"c\u006flor":"r\u0065d"}, "name":"preview"}"#;
    assert!(open_at(&token, &call(escaped), &options, NOW).is_ok());
}

#[test]
fn array_order_matters() {
    let options = secret(&S);
    let token = token(&options);
    let swapped = r#"{"name":"preview","arguments":{"color":"red","n":1,"list":[2,1]}}"#;
    assert_eq!(
        open_at(&token, &call(swapped), &options, NOW),
        Err(InvalidState)
    );
}

#[test]
fn numeric_types_matter() {
    let options = secret(&S);
    let token = token(&options);
    let float = r#"{"name":"preview","arguments":{"color":"red","n":1.0,"list":[1,2]}}"#;
    let string = r#"{"name":"preview","arguments":{"color":"red","n":"1","list":[1,2]}}"#;
    assert_eq!(
        open_at(&token, &call(float), &options, NOW),
        Err(InvalidState)
    );
    assert_eq!(
        open_at(&token, &call(string), &options, NOW),
        Err(InvalidState)
    );
}

#[test]
fn the_secret_must_be_at_least_32_bytes() {
    assert_eq!(
        Secret::new(&[1u8; 31]).unwrap_err(),
        ConfigError::SecretTooShort
    );
    assert!(Secret::new(&[1u8; 32]).is_ok());
    assert!(Secret::new(&[1u8; 200]).is_ok());
    assert_eq!(
        KeyRing::new(&[("a", &[1u8; 31][..])]).unwrap_err(),
        ConfigError::SecretTooShort
    );
}

#[test]
fn the_principal_comes_from_the_caller_for_every_request() {
    // The principal is part of each request's binding, not of the options: the same options
    // serve every caller, and a token sealed for one opens only for that one.
    let options = secret(&S);
    let alice = seal_at(
        DATA,
        &bind("tools/call", PARAMS, Principal::Id("alice")),
        &options,
        NOW,
    );
    let bob = seal_at(
        DATA,
        &bind("tools/call", PARAMS, Principal::Id("bob")),
        &options,
        NOW,
    );
    let as_bob = bind("tools/call", PARAMS, Principal::Id("bob"));
    assert_eq!(open_at(&alice, &as_bob, &options, NOW), Err(InvalidState));
    assert!(open_at(&bob, &as_bob, &options, NOW).is_ok());
}

#[test]
fn an_explicit_anonymous_principal_means_anonymous() {
    let options = secret(&S);
    let anonymous = bind("tools/call", PARAMS, Principal::Anonymous);
    let token = seal_at(DATA, &anonymous, &options, NOW);
    assert!(open_at(&token, &anonymous, &options, NOW).is_ok());
    for named in [Principal::Id(""), Principal::Id("anonymous")] {
        let binding = bind("tools/call", PARAMS, named);
        assert_eq!(open_at(&token, &binding, &options, NOW), Err(InvalidState));
    }
}

#[test]
fn distributed_deployments_share_the_secret() {
    // Two nodes configured with the same secret open each other's tokens; a node with its own
    // process-lifetime secret opens none of them.
    let node_a = secret(&S);
    let node_b = secret(&S);
    let lonely = secret(&OTHER);
    let from_a = token(&node_a);
    let from_b = token(&node_b);
    assert!(open_at(&from_a, &call(PARAMS), &node_b, NOW).is_ok());
    assert!(open_at(&from_b, &call(PARAMS), &node_a, NOW).is_ok());
    assert_eq!(
        open_at(&from_a, &call(PARAMS), &lonely, NOW),
        Err(InvalidState)
    );
}

#[test]
fn the_default_ttl_is_300_seconds() {
    let options = secret(&S);
    assert_eq!(options.ttl(), Ttl::DEFAULT);
    assert_eq!(Ttl::default().as_secs(), 300);
    let token = token(&options);
    assert!(payload_text(&token).contains(&format!("\"exp\":{}", NOW + 300)));
    assert!(open_at(&token, &call(PARAMS), &options, NOW + 299).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &options, NOW + 300),
        Err(InvalidState)
    );
}

#[test]
fn the_ttl_is_capped_at_900_seconds() {
    assert_eq!(Ttl::from_secs(901), Err(ConfigError::TtlOutOfRange));
    assert_eq!(Ttl::from_secs(0), Err(ConfigError::TtlOutOfRange));
    assert_eq!(Ttl::from_secs(900).unwrap(), Ttl::MAX);
    assert_eq!(Ttl::from_secs(1).unwrap().as_secs(), 1);
    let options = secret(&S).with_ttl(Ttl::MAX);
    let token = token(&options);
    assert!(open_at(&token, &call(PARAMS), &options, NOW + 899).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &options, NOW + 900),
        Err(InvalidState)
    );
}

// ── Opening rules (issue 3) ───────────────────────────────────────────────────────────────

#[test]
fn expiry_is_exclusive() {
    let options = secret(&S).with_ttl(Ttl::from_secs(10).unwrap());
    let token = token(&options);
    assert!(open_at(&token, &call(PARAMS), &options, NOW + 9).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &options, NOW + 10),
        Err(InvalidState)
    );
}

#[test]
fn a_token_issued_after_now_is_refused() {
    let options = secret(&S);
    let token = token(&options);
    assert!(open_at(&token, &call(PARAMS), &options, NOW).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &options, NOW - 1),
        Err(InvalidState)
    );
}

#[test]
fn a_smaller_ttl_at_opening_rejects_and_a_larger_one_never_extends() {
    let long = secret(&S).with_ttl(Ttl::from_secs(600).unwrap());
    let short = secret(&S).with_ttl(Ttl::from_secs(60).unwrap());
    let sealed_long = token(&long);
    assert_eq!(
        open_at(&sealed_long, &call(PARAMS), &short, NOW + 1),
        Err(InvalidState)
    );
    let sealed_short = token(&short);
    let widest = secret(&S).with_ttl(Ttl::MAX);
    assert!(open_at(&sealed_short, &call(PARAMS), &widest, NOW + 59).is_ok());
    assert_eq!(
        open_at(&sealed_short, &call(PARAMS), &widest, NOW + 60),
        Err(InvalidState)
    );
}

#[test]
fn every_failure_is_the_same_error_with_code_32602() {
    assert_eq!(InvalidState::CODE, -32602);
    assert_eq!(InvalidState.to_string(), InvalidState::MESSAGE);
    assert_eq!(std::mem::size_of::<InvalidState>(), 0);
}

#[test]
fn sealing_past_the_end_of_time_is_an_error() {
    let options = secret(&S);
    let mut out = [0u8; MAX_TOKEN_LEN];
    assert_eq!(
        seal(
            DATA.as_bytes(),
            &call(PARAMS),
            &options,
            u64::MAX - 1,
            &mut out
        ),
        Err(SealError::TimeOutOfRange)
    );
}

// ── Key rotation ─────────────────────────────────────────────────────────────────────────

#[test]
fn replacing_the_secret_rejects_every_token_in_flight() {
    let token = token(&secret(&S));
    assert_eq!(
        open_at(&token, &call(PARAMS), &secret(&OTHER), NOW),
        Err(InvalidState)
    );
}

#[test]
fn pass_a_keyring_instead() {
    let keys = ring(&[("2026-10", OTHER), ("2026-09", S)]);
    let token = token(&keys);
    assert_eq!(
        open_at(&token, &call(PARAMS), &keys, NOW).as_deref(),
        Ok(DATA)
    );
}

#[test]
fn seal_signs_with_the_first_key_and_writes_its_identifier_into_the_token() {
    let keys = ring(&[("2026-10", OTHER), ("2026-09", S)]);
    let token = token(&keys);
    assert!(token.starts_with(b"s2.2026-10."));
    // Signed with the first key: the single secret of that key opens it, the other does not.
    assert!(open_at(&token, &call(PARAMS), &secret(&OTHER), NOW).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &secret(&S), NOW),
        Err(InvalidState)
    );
}

#[test]
fn open_verifies_with_the_key_the_token_names() {
    let keys = ring(&[("2026-10", OTHER), ("2026-09", S)]);
    let old = token(&ring(&[("2026-09", S)]));
    assert!(open_at(&old, &call(PARAMS), &keys, NOW).is_ok());
    // The same secret under another name is not the key the token names.
    let renamed = ring(&[("2026-10", OTHER), ("2026-08", S)]);
    assert_eq!(
        open_at(&old, &call(PARAMS), &renamed, NOW),
        Err(InvalidState)
    );
    // A name pointing at another secret does not verify either.
    let swapped = ring(&[("2026-09", OTHER)]);
    assert_eq!(
        open_at(&old, &call(PARAMS), &swapped, NOW),
        Err(InvalidState)
    );
}

#[test]
fn an_unknown_identifier_is_the_same_error_as_any_other_invalid_state() {
    let keys = ring(&[("2026-10", S)]);
    let token = token(&ring(&[("2026-11", S)]));
    let unknown = open_at(&token, &call(PARAMS), &keys, NOW);
    let mut tampered = token.clone();
    *tampered.last_mut().unwrap() ^= 1;
    let bad_mac = open_at(&tampered, &call(PARAMS), &keys, NOW);
    let expired = open_at(&token, &call(PARAMS), &ring(&[("2026-11", S)]), NOW + 301);
    assert_eq!(unknown, Err(InvalidState));
    assert_eq!(unknown, bad_mac);
    assert_eq!(unknown, expired);
}

#[test]
fn a_keyring_holds_1_to_8_keys() {
    let keys: Vec<(String, [u8; 32])> = (0..9).map(|i| (format!("k{i}"), [i as u8; 32])).collect();
    let pairs: Vec<(&str, [u8; 32])> = keys.iter().map(|(id, s)| (id.as_str(), *s)).collect();
    assert_eq!(
        KeyRing::new::<[u8; 32]>(&[]).unwrap_err(),
        ConfigError::NoKeys
    );
    assert_eq!(KeyRing::new(&pairs[..1]).unwrap().len(), 1);
    assert_eq!(KeyRing::new(&pairs[..8]).unwrap().len(), 8);
    assert_eq!(KeyRing::new(&pairs).unwrap_err(), ConfigError::TooManyKeys);
    // The eighth key opens what it sealed.
    let eighth = ring(&pairs[7..8]);
    let full = StateOptions::new(KeyRing::new(&pairs[..8]).unwrap());
    assert!(open_at(&token(&eighth), &call(PARAMS), &full, NOW).is_ok());
}

#[test]
fn identifiers_are_unique() {
    assert_eq!(
        KeyRing::new(&[("a", S), ("b", OTHER), ("a", OTHER)]).unwrap_err(),
        ConfigError::DuplicateKeyId
    );
}

#[test]
fn identifiers_are_1_to_32_characters_from_the_alphabet() {
    let longest = "Az09_-".repeat(6)[..32].to_string();
    assert!(KeyRing::new(&[(longest.as_str(), S)]).is_ok());
    let too_long = "a".repeat(33);
    for bad in [
        "",
        too_long.as_str(),
        "a.b",
        "a b",
        "é",
        "a/b",
        "a+b",
        "a=b",
    ] {
        assert_eq!(
            KeyRing::new(&[(bad, S)]).unwrap_err(),
            ConfigError::InvalidKeyId,
            "{bad:?}"
        );
    }
}

#[test]
fn identifiers_are_readable_in_the_token() {
    let token = token(&ring(&[("Key_2026-10", S)]));
    let text = std::str::from_utf8(&token).unwrap();
    assert_eq!(text.split('.').nth(1), Some("Key_2026-10"));
}

#[test]
fn pass_exactly_one_of_secret_and_keys() {
    // `Keys` is one or the other by construction; there is no way to pass both or neither.
    for keys in [Keys::secret(&S).unwrap(), Keys::ring(&[("a", S)]).unwrap()] {
        let described = match &keys {
            Keys::Secret(_) => "secret",
            Keys::Ring(_) => "ring",
        };
        assert!(!described.is_empty());
        let options = StateOptions::new(keys);
        assert!(open_at(&token(&options), &call(PARAMS), &options, NOW).is_ok());
    }
}

#[test]
fn invalid_options_are_errors_at_configuration_time() {
    assert_eq!(
        Keys::secret(&[0; 8]).unwrap_err(),
        ConfigError::SecretTooShort
    );
    assert_eq!(
        Keys::ring(&[("bad id", S)]).unwrap_err(),
        ConfigError::InvalidKeyId
    );
    assert_eq!(Ttl::from_secs(1000), Err(ConfigError::TtlOutOfRange));
    // Debug output never shows secrets.
    let shown = format!("{:?}", ring(&[("a", S)]));
    assert!(shown.contains("\"a\"") && !shown.contains("90"), "{shown}");
}

#[test]
fn deploy_each_rotation_step_to_every_node_before_the_next() {
    // Step 1: nodes seal with a and accept b; step 2: seal with b and accept a; step 3: only b.
    let step1 = ring(&[("a", S), ("b", OTHER)]);
    let step2 = ring(&[("b", OTHER), ("a", S)]);
    let step3 = ring(&[("b", OTHER)]);
    assert!(token(&step1).starts_with(b"s2.a."));
    assert!(token(&step2).starts_with(b"s2.b."));
    // A step-3 node would refuse a step-1 token: hence the wait after step 2.
    assert_eq!(
        open_at(&token(&step1), &call(PARAMS), &step3, NOW),
        Err(InvalidState)
    );
}

#[test]
fn wait_for_the_largest_ttl_after_step_2_before_dropping_the_old_key() {
    // The last token a step-1 node can seal expires within the largest TTL in use.
    let step1 = ring(&[("a", S), ("b", OTHER)]).with_ttl(Ttl::MAX);
    let step2 = ring(&[("b", OTHER), ("a", S)]).with_ttl(Ttl::MAX);
    let last = token(&step1);
    assert!(open_at(&last, &call(PARAMS), &step2, NOW + 899).is_ok());
    assert_eq!(
        open_at(&last, &call(PARAMS), &step2, NOW + 900),
        Err(InvalidState)
    );
}

#[test]
fn at_every_step_each_configuration_opens_what_the_neighbouring_one_seals() {
    let steps = [
        ring(&[("a", S)]),
        ring(&[("a", S), ("b", OTHER)]),
        ring(&[("b", OTHER), ("a", S)]),
        ring(&[("b", OTHER)]),
    ];
    for pair in steps.windows(2) {
        let (old, new) = (&pair[0], &pair[1]);
        assert!(open_at(&token(new), &call(PARAMS), old, NOW).is_ok());
        assert!(open_at(&token(old), &call(PARAMS), new, NOW).is_ok());
    }
}

#[test]
fn a_token_sealed_with_a_secret_opens_with_any_keyring_that_contains_it() {
    let token = token(&secret(&S));
    for keys in [
        ring(&[("a", S)]),
        ring(&[("x", OTHER), ("a", S)]),
        ring(&[("x", OTHER), ("y", [3; 32]), ("z", [4; 32]), ("q", S)]),
    ] {
        assert!(open_at(&token, &call(PARAMS), &keys, NOW).is_ok());
    }
    assert_eq!(
        open_at(&token, &call(PARAMS), &ring(&[("x", OTHER)]), NOW),
        Err(InvalidState)
    );
}

#[test]
fn a_token_sealed_by_a_keyring_opens_with_the_secret_that_is_its_key() {
    let token = token(&ring(&[("a", S), ("b", OTHER)]));
    assert!(open_at(&token, &call(PARAMS), &secret(&S), NOW).is_ok());
    assert_eq!(
        open_at(&token, &call(PARAMS), &secret(&OTHER), NOW),
        Err(InvalidState)
    );
}

#[test]
fn moving_from_a_secret_to_a_keyring_needs_no_coordinated_switch() {
    let before = secret(&S);
    let after = ring(&[("a", S)]);
    assert!(open_at(&token(&before), &call(PARAMS), &after, NOW).is_ok());
    assert!(open_at(&token(&after), &call(PARAMS), &before, NOW).is_ok());
}

#[test]
fn a_lone_secret_or_ring_seals_and_opens_as_keys_holding_it_do() {
    let lone_secret = StateOptions::new(Secret::new(&S).unwrap());
    let lone_ring = StateOptions::new(KeyRing::new(&[("a", S)]).unwrap());
    for (sealer, opener) in [
        (token(&lone_secret), secret(&S)),
        (token(&secret(&S)), secret(&S)),
        (token(&lone_ring), ring(&[("a", S)])),
        (token(&ring(&[("a", S)])), ring(&[("a", S)])),
    ] {
        assert!(open_at(&sealer, &call(PARAMS), &opener, NOW).is_ok());
        assert!(open_at(&sealer, &call(PARAMS), &lone_secret, NOW).is_ok());
        assert!(open_at(&sealer, &call(PARAMS), &lone_ring, NOW).is_ok());
    }
    let other = StateOptions::new(Secret::new(&OTHER).unwrap());
    assert_eq!(
        open_at(&token(&lone_secret), &call(PARAMS), &other, NOW),
        Err(InvalidState)
    );
    // What a lone secret is for: it does not carry room for a ring.
    assert!(size_of::<StateOptions<Secret>>() * 4 < size_of::<StateOptions<Keys>>());
}

#[test]
fn a_scratch_sized_for_the_data_opens_it_and_a_shorter_one_does_not() {
    let options = secret(&S);
    let token = token(&options);
    let mut exact = vec![0u8; open_scratch_len(DATA.len())];
    let opened = open(&token, &call(PARAMS), &options, NOW, &mut exact).expect("opens");
    assert_eq!(opened.raw(), DATA.as_bytes());
    // Both times have ten digits here: the payload needs ten bytes less for each.
    let mut fitting = vec![0u8; open_scratch_len(DATA.len()) - 2 * 10];
    assert_eq!(
        open(&token, &call(PARAMS), &options, NOW, &mut fitting).map(|v| v.raw().len()),
        Ok(DATA.len())
    );
    let mut shorter = vec![0u8; fitting.len() - 1];
    assert_eq!(
        open(&token, &call(PARAMS), &options, NOW, &mut shorter).map(|v| v.raw().len()),
        Err(InvalidState)
    );
}

#[test]
fn tokens_are_readable_not_encrypted() {
    let token = token(&secret(&S));
    let payload = payload_text(&token);
    assert_eq!(
        payload,
        format!("{{\"iat\":{NOW},\"exp\":{},\"data\":{DATA}}}", NOW + 300)
    );
}

#[test]
fn do_not_put_secrets_in_them() {
    // Whatever the data holds is there for anyone holding the token to read; the key is not.
    let data = r#"{"note":"visible to the client"}"#;
    let token = seal_at(data, &call(PARAMS), &secret(&S), NOW);
    assert!(payload_text(&token).contains("visible to the client"));
    let text = String::from_utf8(token).unwrap();
    assert!(!text.contains(&URL_SAFE_NO_PAD.encode(S)));
}

#[test]
fn tokens_can_be_reused_until_expiry() {
    let options = secret(&S);
    let token = token(&options);
    for now in [NOW, NOW + 1, NOW + 100, NOW + 299] {
        assert!(open_at(&token, &call(PARAMS), &options, now).is_ok());
    }
    assert_eq!(
        open_at(&token, &call(PARAMS), &options, NOW + 300),
        Err(InvalidState)
    );
}

#[test]
fn authorization_must_still_be_checked_on_every_request() {
    // Opening proves only who sealed what for whom: it does not consult, and cannot know,
    // whether the principal is still allowed. A valid token opens for a principal whatever
    // the application has decided since.
    let options = secret(&S);
    let token = token(&options);
    let revoked_alice = call(PARAMS);
    assert!(open_at(&token, &revoked_alice, &options, NOW + 10).is_ok());
}

#[test]
fn a_retry_may_come_many_times_or_never() {
    // Nothing is remembered between rounds: the same token opens any number of times, and a
    // token that is never used leaves nothing behind.
    let options = secret(&S);
    let token = token(&options);
    for _ in 0..3 {
        assert_eq!(
            open_at(&token, &call(PARAMS), &options, NOW + 1).as_deref(),
            Ok(DATA)
        );
    }
}
