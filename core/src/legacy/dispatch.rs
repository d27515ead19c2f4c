//! One message of an open legacy session: what the session answers itself (`ping`,
//! `logging/setLevel`, a second `initialize`, unknown methods), what it only notes
//! (`notifications/initialized`), and what it hands to the adapter (cancellation,
//! subscriptions, bridge answers, and the methods the modern handler path serves).

use super::session::Session;
use crate::json::{JsonStr, Writer};
use crate::protocol::{LogLevel, Method};
use crate::rpc::emit;
use crate::rpc::{ErrorCode, Id, Incoming, Request, Response, write_error};
use crate::server::ServerCapabilities;

/// What became of one message of a legacy session.
#[derive(Clone, Copy, Debug)]
pub enum Step<'a> {
    /// A complete response was written: send it.
    Replied,
    /// Nothing to send (an accepted or ignored notification).
    Quiet,
    /// `notifications/cancelled` for the client's request `request_id`: stop it, and send no
    /// response for it (also ends any bridge wait it is in).
    Cancel {
        /// The id of the request to stop.
        request_id: Id<'a>,
    },
    /// `resources/subscribe` (`subscribe: true`) or `resources/unsubscribe` of `uri`: update
    /// the session's subscriptions (bounded) and answer with [`write_empty_result`] or an
    /// error.
    Subscription {
        /// The request to answer.
        id: Id<'a>,
        /// The resource.
        uri: JsonStr<'a>,
        /// Subscribe or unsubscribe.
        subscribe: bool,
    },
    /// A request the modern handler path serves: lift it ([`super::lift_request`]), run
    /// it, and settle the reply ([`super::settle`]).
    Modern {
        /// The request.
        request: Request<'a>,
        /// Its method.
        method: Method,
    },
    /// A response from the client, as the parse read it: an answer to a bridged input
    /// request, to route by its id ([`super::ClientResponse::from_rpc`],
    /// [`super::Leg::accept`]).
    Answer(Response<'a>),
}

const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

impl Session {
    /// Takes one message of this session. `served` is what the server advertised in its
    /// `InitializeResult`: methods of a capability it did not advertise answer -32601.
    ///
    /// Era checks come first ([`super::EraGate`], [`super::classify_post`]): a modern
    /// request never reaches a session.
    pub fn step<'a>(
        &mut self,
        message: &Incoming<'a>,
        served: ServerCapabilities,
        w: &mut Writer<'_>,
    ) -> Step<'a> {
        match message {
            Incoming::Response(response) => Step::Answer(*response),
            Incoming::Notification(n) => {
                if n.method.eq_str("notifications/initialized") {
                    self.initialized = true;
                } else if n.method.eq_str("notifications/cancelled") {
                    let id = n
                        .params
                        .and_then(|p| p.get("requestId"))
                        .and_then(Id::from_value);
                    if let Some(request_id) = id {
                        return Step::Cancel { request_id };
                    }
                }
                // Other notifications (roots changed, progress of a client's own work) and
                // malformed cancellations are ignored, as the specification asks.
                Step::Quiet
            }
            Incoming::Request(request) => self.request(*request, served, w),
        }
    }

    fn request<'a>(
        &mut self,
        request: Request<'a>,
        served: ServerCapabilities,
        w: &mut Writer<'_>,
    ) -> Step<'a> {
        let id = request.id;
        let method = request.method;
        let param = |key: &str| request.params.and_then(|p| p.get(key));
        if method.eq_str("ping") {
            write_empty_result(w, id);
            return Step::Replied;
        }
        if method.eq_str("initialize") {
            refuse(
                w,
                id,
                ErrorCode::INVALID_REQUEST,
                "The session is already initialized",
            );
            return Step::Replied;
        }
        if method.eq_str("logging/setLevel") && served.logging {
            let level = param("level")
                .and_then(|v| v.as_str())
                .and_then(|name| LEVELS.into_iter().find(|l| name.eq_str(l.name())));
            match level {
                Some(level) => {
                    self.log_level = Some(level);
                    write_empty_result(w, id);
                }
                None => refuse(
                    w,
                    id,
                    ErrorCode::INVALID_PARAMS,
                    "level must be a log level",
                ),
            }
            return Step::Replied;
        }
        let subscribe = method.eq_str("resources/subscribe");
        if (subscribe || method.eq_str("resources/unsubscribe")) && served.subscribe {
            return match param("uri").and_then(|v| v.as_str()) {
                Some(uri) => Step::Subscription { id, uri, subscribe },
                None => {
                    refuse(w, id, ErrorCode::INVALID_PARAMS, "uri must be a string");
                    Step::Replied
                }
            };
        }
        match Method::from_name(method) {
            Some(Method::Discover | Method::SubscriptionsListen) | None => {
                refuse(w, id, ErrorCode::METHOD_NOT_FOUND, "Method not found");
                Step::Replied
            }
            Some(method) => Step::Modern { request, method },
        }
    }
}

fn refuse(w: &mut Writer<'_>, id: Id<'_>, code: ErrorCode, message: &str) {
    write_error(w, Some(id), code, message, None);
}

/// Writes `{"jsonrpc":"2.0","id":…,"result":{}}`: the answer to `ping`, `logging/setLevel`
/// and a subscription change.
pub fn write_empty_result(w: &mut Writer<'_>, id: Id<'_>) {
    emit::result(w, id);
    w.raw(b"{}}");
}
