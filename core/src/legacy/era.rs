//! Which era a message speaks, and the rule that a connection or session keeps the era it
//! opened with.
//!
//! The 2026-07-28 binding pages decide by how the client opens: `initialize` selects the
//! legacy handshake for the stdio process or the HTTP session; a request that carries the
//! per-request `_meta` envelope (or is `server/discover`) is modern. Everything else decides
//! nothing and takes the modern path, which answers it exactly as a modern-only server does.

use crate::json::Value;
use crate::json::Writer;
pub use crate::protocol::{Era, EraSupport};
use crate::protocol::{INITIALIZE_ON_MODERN, META_PROTOCOL_VERSION, PROTOCOL_VERSION};
use crate::rpc::{ErrorCode, Id, Incoming, write_error};

/// What a message says about the era of the connection it arrives on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Signal {
    /// An `initialize` request.
    Initialize,
    /// A request or notification with the modern `_meta` envelope, or `server/discover`.
    Modern,
    /// Anything else: a request without the envelope, a notification, a response.
    Neutral,
}

/// Reads the era signal of one parsed message.
pub fn signal(message: &Incoming<'_>) -> Signal {
    let (method, params) = match message {
        Incoming::Request(r) => (r.method, r.params),
        Incoming::Notification(n) => (n.method, n.params),
        Incoming::Response(_) => return Signal::Neutral,
    };
    let is_request = matches!(message, Incoming::Request(_));
    if is_request && method.eq_str("initialize") {
        return Signal::Initialize;
    }
    let enveloped = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m: Value<'_>| m.get(META_PROTOCOL_VERSION))
        .is_some();
    if enveloped || (is_request && method.eq_str("server/discover")) {
        Signal::Modern
    } else {
        Signal::Neutral
    }
}

/// A message that contradicts the era its connection or session already speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EraMismatch {
    /// A modern request on a connection that opened with `initialize`.
    ModernOnLegacy,
    /// `initialize` on a connection that already speaks 2026-07-28.
    InitializeOnModern,
    /// An era the server is configured not to serve.
    NotServed(Era),
}

impl EraMismatch {
    /// The message of the JSON-RPC error that refuses it.
    pub const fn message(self) -> &'static str {
        match self {
            EraMismatch::ModernOnLegacy => {
                "This connection opened with initialize (MCP 2025-11-25 and earlier): requests \
                 with the 2026-07-28 _meta envelope are refused on it"
            }
            EraMismatch::InitializeOnModern => INITIALIZE_ON_MODERN,
            EraMismatch::NotServed(Era::Legacy) => {
                "This server speaks only MCP 2026-07-28: initialize is not supported"
            }
            EraMismatch::NotServed(Era::Modern) => {
                "This server speaks only the initialize era (MCP 2025-11-25 and earlier)"
            }
        }
    }

    /// Writes the -32600 error that refuses the request `id`, listing in `data.supported` the
    /// versions the refused side could use instead (a legacy client has no other diagnostic).
    pub fn write_error(self, w: &mut Writer<'_>, id: Option<Id<'_>>, support: EraSupport) {
        write_error(
            w,
            id,
            ErrorCode::INVALID_REQUEST,
            self.message(),
            Some(&|w: &mut Writer<'_>| {
                w.raw(b"{\"supported\":");
                w.array(|a| {
                    if support.serves(Era::Modern) {
                        a.str(PROTOCOL_VERSION);
                    }
                    if support.serves(Era::Legacy) {
                        for v in super::LegacyVersion::ALL {
                            a.str(v.name());
                        }
                    }
                });
                w.raw(b"}");
            }),
        );
    }
}

/// The era of one stdio connection: undecided until the first `initialize` or modern
/// request, then fixed for the life of the process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EraGate {
    support: EraSupport,
    era: Option<Era>,
}

impl EraGate {
    /// A gate for a new connection of a server that answers `support`.
    pub const fn new(support: EraSupport) -> Self {
        EraGate { support, era: None }
    }

    /// The era decided so far.
    pub fn era(&self) -> Option<Era> {
        self.era
    }

    /// Admits one message: the era that serves it, or the mismatch that refuses it.
    ///
    /// A neutral message never decides (before a decision it is served in
    /// [`EraSupport::undecided`]); a refused one never changes the decision.
    pub fn admit(&mut self, message: &Incoming<'_>) -> Result<Era, EraMismatch> {
        let wanted = match signal(message) {
            Signal::Initialize => Era::Legacy,
            Signal::Modern => Era::Modern,
            Signal::Neutral => return Ok(self.era.unwrap_or(self.support.undecided())),
        };
        match self.era {
            None if !self.support.serves(wanted) => Err(EraMismatch::NotServed(wanted)),
            None => {
                self.era = Some(wanted);
                Ok(wanted)
            }
            Some(era) if era == wanted => Ok(era),
            Some(Era::Legacy) => Err(EraMismatch::ModernOnLegacy),
            Some(Era::Modern) => Err(EraMismatch::InitializeOnModern),
        }
    }
}

/// Where one Streamable HTTP POST goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HttpRoute {
    /// The modern (2026-07-28) path (a stray `Mcp-Session-Id` is ignored).
    Modern,
    /// An `initialize` without a session: open a legacy session and mint its id.
    Initialize,
    /// A message of the legacy session named by the `Mcp-Session-Id` header (404 when that
    /// session is unknown or ended).
    Session,
}

/// Classifies one POST by its message and whether it carries an `Mcp-Session-Id` header.
///
/// Modern requests win over a session header (2026-07-28: ignore it); `initialize` with a
/// session header goes to that session, which refuses a second handshake; anything else
/// without a session takes the modern path, whose errors (400) are what a legacy client
/// without a session must get.
pub fn classify_post(
    message: &Incoming<'_>,
    has_session_header: bool,
    support: EraSupport,
) -> Result<HttpRoute, EraMismatch> {
    let signal = signal(message);
    if signal == Signal::Initialize && !support.serves(Era::Legacy) {
        return Err(EraMismatch::NotServed(Era::Legacy));
    }
    let route = match (signal, has_session_header) {
        (Signal::Modern, _) => HttpRoute::Modern,
        (Signal::Initialize, false) => HttpRoute::Initialize,
        (_, true) => HttpRoute::Session,
        (Signal::Neutral, false) => HttpRoute::Modern,
    };
    match route {
        // Without legacy support there are no sessions: the header is stray.
        HttpRoute::Session if !support.serves(Era::Legacy) => Ok(HttpRoute::Modern),
        HttpRoute::Modern if !support.serves(Era::Modern) => {
            Err(EraMismatch::NotServed(Era::Modern))
        }
        _ => Ok(route),
    }
}
