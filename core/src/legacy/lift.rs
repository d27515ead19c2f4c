//! A legacy request lifted into the modern request the handler path consumes: the same id,
//! method and params, with the session's version, capabilities, client and log level in the
//! per-request `_meta` envelope.

use super::session::Session;
use crate::json::{JsonStr, Object, Writer};
use crate::protocol::{
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION,
    PROTOCOL_VERSION,
};
use crate::rpc::Request;
use crate::rpc::emit;

/// The `_meta` members the envelope writes: a legacy client's own are dropped, not doubled.
const ENVELOPE_KEYS: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

/// Params a first legacy leg never carries: the retry fields are the bridge's to write, so a
/// legacy client cannot forge answers or state the handler would take for its own.
const RETRY_KEYS: [&str; 2] = ["inputResponses", "requestState"];

/// Writes `request` of a legacy `session` as the equivalent 2026-07-28 request.
///
/// Its other `_meta` members (a `progressToken`, say) are kept, so progress notifications
/// the handler sends reach the legacy client unchanged.
pub fn lift_request(request: &Request<'_>, session: &Session, w: &mut Writer<'_>) {
    emit::request(w, request.id);
    w.json_str(request.method);
    w.raw(b",\"params\":{\"_meta\":{");
    let meta = request
        .params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.as_object());
    if let Some(meta) = meta {
        if copy_members(w, meta, &ENVELOPE_KEYS) {
            w.raw(b",");
        }
    }
    write_envelope(w, session);
    w.raw(b"}");
    if let Some(params) = request.params {
        if has_members(params, &["_meta", RETRY_KEYS[0], RETRY_KEYS[1]]) {
            w.raw(b",");
            copy_members(w, params, &["_meta", RETRY_KEYS[0], RETRY_KEYS[1]]);
        }
    }
    w.raw(b"}}");
}

fn write_envelope(w: &mut Writer<'_>, session: &Session) {
    w.str(META_PROTOCOL_VERSION);
    w.raw(b":");
    w.str(PROTOCOL_VERSION);
    w.raw(b",");
    w.str(META_CLIENT_CAPABILITIES);
    w.raw(b":");
    session.capabilities().write(w);
    if let Some(client) = session.client() {
        w.raw(b",");
        w.str(META_CLIENT_INFO);
        w.raw(b":");
        w.object(|o| {
            o.str("name", client.name())
                .str("version", client.version());
        });
    }
    if let Some(level) = session.log_level() {
        w.raw(b",");
        w.str(META_LOG_LEVEL);
        w.raw(b":");
        w.str(level.name());
    }
}

/// Whether `object` has a member whose key is not in `skip`.
pub(crate) fn has_members(object: Object<'_>, skip: &[&str]) -> bool {
    object.iter().any(|(key, _)| !is_one_of(key, skip))
}

/// Copies the members of `object` whose keys are not in `skip`, comma-separated, without
/// braces; whether any was written.
pub(crate) fn copy_members(w: &mut Writer<'_>, object: Object<'_>, skip: &[&str]) -> bool {
    let mut any = false;
    for (key, value) in object {
        if is_one_of(key, skip) {
            continue;
        }
        if any {
            w.raw(b",");
        }
        any = true;
        w.json_str(key);
        w.raw(b":");
        w.value(value);
    }
    any
}

fn is_one_of(key: JsonStr<'_>, keys: &[&str]) -> bool {
    keys.iter().any(|k| key.eq_str(k))
}
