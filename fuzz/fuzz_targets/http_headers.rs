//! The Streamable HTTP header rules on arbitrary headers and bodies: `check_request` with
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` headers, `decode_value`,
//! and `check_annotations` on a tool's input schema.
//!
//! The input is split at `0x00` into: version, method and name headers (a part that is
//! exactly `-` is an absent header), the body, an input schema, then `Mcp-Param-*` name and
//! value pairs. Never a panic, and:
//! - a plain header value decodes to itself; a `=?base64?…?=` one to bytes whose canonical
//!   Base64 is its payload;
//! - an accepted request had every required header, a `Mcp-Method` equal to its method and a
//!   `MCP-Protocol-Version` equal to its body's version, when it has one;
//! - the headers a conforming client derives from the body itself (Base64 where a value is
//!   not plain visible ASCII) are accepted when no `x-mcp-header` argument is involved;
//! - `check_annotations` counts no more annotations than the schema's text mentions.
#![no_main]

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use libfuzzer_sys::fuzz_target;
use serde_json::Value as Json;
use snodo_core::json::{Limits, parse as parse_json};
use snodo_core::protocol::http::{
    NoParams, RequestHeaders, check_annotations, check_request, decode_value,
};
use snodo_core::rpc::{Incoming, parse};

const LIMITS: Limits = Limits {
    max_size: 16 * 1024,
    max_depth: 16,
    max_members: 64,
};

fn header(part: &[u8]) -> Option<&[u8]> {
    (part != b"-").then_some(part)
}

/// How a conforming client writes `value` as a header: as is when it is plain visible ASCII
/// without surrounding spaces, Base64 otherwise.
fn client_header(value: &str) -> Vec<u8> {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (b' '..=b'~').contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with("=?base64?");
    if plain {
        value.as_bytes().to_vec()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(value)).into_bytes()
    }
}

fn decodes_faithfully(value: &[u8]) {
    let mut buf = [0u8; 512];
    let Ok(decoded) = decode_value(value, &mut buf) else {
        return;
    };
    match value
        .strip_prefix(b"=?base64?")
        .and_then(|v| v.strip_suffix(b"?="))
    {
        Some(payload) => assert_eq!(STANDARD.encode(decoded).as_bytes(), payload),
        None => assert_eq!(decoded, value),
    }
}

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let part = |i: usize| parts.get(i).copied().unwrap_or(b"-");
    for p in &parts {
        decodes_faithfully(p);
    }
    let (version, method, name) = (header(part(0)), header(part(1)), header(part(2)));
    let schema = parse_json(part(4), &LIMITS).ok();
    if let Some(schema) = schema
        && let Ok(count) = check_annotations(schema)
    {
        let mentions = part(4).windows(12).filter(|w| w == b"x-mcp-header").count();
        assert!(
            count <= mentions,
            "{count} annotations, {mentions} mentions"
        );
    }
    let pairs: Vec<(&str, &[u8])> = parts
        .get(5..)
        .unwrap_or(&[])
        .chunks(2)
        .filter_map(|pair| Some((core::str::from_utf8(pair.first()?).ok()?, *pair.get(1)?)))
        .collect();
    let params = pairs.as_slice();
    let Ok(Incoming::Request(request)) = parse(part(3), &LIMITS) else {
        return;
    };
    let body: Json = match serde_json::from_slice(part(3)) {
        Ok(body) => body,
        Err(_) => return,
    };
    let headers = RequestHeaders {
        protocol_version: version,
        method,
        name,
        params: &params,
    };
    if check_request(&headers, &request, schema).is_ok() {
        let method = method.expect("accepted without Mcp-Method");
        assert!(version.is_some(), "accepted without MCP-Protocol-Version");
        assert_eq!(Some(method), body["method"].as_str().map(str::as_bytes));
        if let Some(body_version) =
            body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str()
        {
            assert_eq!(version, Some(body_version.as_bytes()));
        }
    }

    // The headers a conforming client sends for this body.
    let Some(body_method) = body["method"].as_str() else {
        return;
    };
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|b| (b' '..=b'~').contains(&b));
    let body_version = body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
        .as_str()
        .unwrap_or("2026-07-28");
    if !plain(body_method)
        || !plain(body_version)
        || body_method.trim() != body_method
        || body_version.trim() != body_version
    {
        return;
    }
    let key = if body_method == "resources/read" {
        "uri"
    } else {
        "name"
    };
    let named = body["params"][key].as_str().map(client_header);
    let headers = RequestHeaders {
        protocol_version: Some(body_version.as_bytes()),
        method: Some(body_method.as_bytes()),
        name: named.as_deref().or(Some(b"unnamed")),
        params: &NoParams,
    };
    // (A body without a string name is left to the core: the stand-in name is not compared.)
    if let Err(refused) = check_request(&headers, &request, None) {
        panic!("a conforming client's headers refused: {refused:?} for {body}");
    }
});
