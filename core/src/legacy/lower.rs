//! A modern reply settled for a legacy client: a final result loses the fields the 2025
//! schema does not define (`resultType`, `ttlMs`, `cacheScope`, the server identity in
//! `_meta`); an `input_required` result is left to the bridge.
//!
//! Notifications the handler sends along the way (`notifications/progress`,
//! `notifications/message`) have the same shape in both eras and pass unchanged.

use super::bridge::write_missing_capabilities;
use crate::json::{Limits, Object, Value, Writer};
use crate::protocol::{ClientCapabilities, META_SERVER_INFO};
use crate::rpc::emit;
use crate::rpc::{ErrorCode, Id};

/// Top-level result members that exist only in 2026-07-28.
const MODERN_ONLY: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// What a modern reply is, for a legacy session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Settled {
    /// The final response, lowered into the writer: send it.
    Final,
    /// `input_required`: nothing was written; bridge it ([`super::Leg::open`]).
    InputRequired,
}

/// The modern handler path wrote something that is not one JSON-RPC response (never, from
/// this core's server).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NotAResponse;

/// Settles the modern `reply` to a lifted request: lowers a final result or an error into
/// `w`, or reports `input_required`.
///
/// -32021 (a 2026 code) becomes the legacy error that names what the client lacks.
pub fn settle(reply: &[u8], limits: &Limits, w: &mut Writer<'_>) -> Result<Settled, NotAResponse> {
    let root = crate::json::parse(reply, limits).map_err(|_| NotAResponse)?;
    let root = root.as_object().ok_or(NotAResponse)?;
    // One pass over the response's members: each is skipped once, the result included.
    // The first of a repeated member counts, as `Object::get` reads it everywhere else.
    let (mut id, mut error, mut result) = (None, None, None);
    for (key, value) in root {
        if key.eq_str("id") && id.is_none() {
            id = Some(Id::from_value(value));
        } else if key.eq_str("error") && error.is_none() {
            error = Some(value);
        } else if key.eq_str("result") && result.is_none() {
            result = Some(value);
        }
    }
    let id = id.flatten();
    if let Some(error) = error.and_then(|e| e.as_object()) {
        // A response carries a result or an error, never both: copying such a message
        // would pass its modern result members on to the legacy client.
        if result.is_some() {
            return Err(NotAResponse);
        }
        let code = error.get("code").and_then(|c| c.as_i64());
        if code == Some(i64::from(ErrorCode::MISSING_CLIENT_CAPABILITY.0)) {
            let missing = error
                .get("data")
                .and_then(|d| d.get("requiredCapabilities"))
                .and_then(ClientCapabilities::from_value)
                .unwrap_or_default();
            write_missing_capabilities(w, id, missing);
        } else {
            w.value(root.as_value());
        }
        return Ok(Settled::Final);
    }
    let result = result.and_then(|r| r.as_object()).ok_or(NotAResponse)?;
    // The result is lowered as it is read; `input_required`, wherever its `resultType`
    // stands, takes back what was written.
    let start = w.position();
    if let Some(id) = id {
        emit::result(w, id);
    }
    if write_legacy_result(w, result) == Lowered::InputRequired {
        w.rewind(start);
        return Ok(Settled::InputRequired);
    }
    if id.is_none() {
        w.rewind(start);
        return Err(NotAResponse);
    }
    w.raw(b"}");
    Ok(Settled::Final)
}

/// Whether a modern result is `input_required`.
pub(crate) fn is_input_required(result: Object<'_>) -> bool {
    result
        .get("resultType")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("input_required"))
}

/// What [`write_legacy_result`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lowered {
    /// The result, written without its 2026-only members.
    Written,
    /// An `input_required` result: what was written is to be taken back.
    InputRequired,
}

/// Writes `result` without its 2026-only members, in one pass over them.
fn write_legacy_result(w: &mut Writer<'_>, result: Object<'_>) -> Lowered {
    let mut o = w.begin_object();
    for (key, value) in result {
        if MODERN_ONLY.iter().any(|k| key.eq_str(k)) {
            let input_required = key.eq_str("resultType")
                && value.as_str().is_some_and(|t| t.eq_str("input_required"));
            if input_required {
                return Lowered::InputRequired;
            }
            continue;
        }
        if key.eq_str("_meta") {
            if let Some(meta) = value.as_object().filter(|m| keeps_any(*m)) {
                let w = o.key("_meta");
                let mut inner = w.begin_object();
                for (k, v) in meta {
                    if !k.eq_str(META_SERVER_INFO) {
                        inner.key_json(k).value(v);
                    }
                }
                inner.end();
            } else if value.as_object().is_none() {
                o.key("_meta").value(value);
            }
            continue;
        }
        o.key_json(key).value(value);
    }
    o.end();
    Lowered::Written
}

/// Whether `_meta` keeps anything once the server identity is dropped.
fn keeps_any(meta: Object<'_>) -> bool {
    meta.iter()
        .any(|(k, _): (_, Value<'_>)| !k.eq_str(META_SERVER_INFO))
}
