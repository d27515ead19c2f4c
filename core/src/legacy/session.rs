//! What a legacy session remembers between its messages: a small `Copy` value the adapter
//! keeps per stdio connection or per HTTP session.

use crate::json::JsonStr;
use crate::protocol::LegacyVersion;
use crate::protocol::{ClientCapabilities, LogLevel};

/// Longest client name kept from `clientInfo.name`, in bytes.
pub const MAX_CLIENT_NAME: usize = 64;
/// Longest client version kept from `clientInfo.version`, in bytes.
pub const MAX_CLIENT_VERSION: usize = 32;

/// A short text kept inline, so a session stays a fixed-size `Copy` value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct InlineText<const N: usize> {
    bytes: [u8; N],
    len: u8,
}

impl<const N: usize> InlineText<N> {
    const EMPTY: Self = InlineText {
        bytes: [0; N],
        len: 0,
    };

    /// The decoded text of `s` when it fits in `N` bytes.
    fn decode(s: JsonStr<'_>) -> Option<Self> {
        let mut text = Self::EMPTY;
        let len = s.decode_into(&mut text.bytes)?.len();
        text.len = u8::try_from(len).ok()?;
        Some(text)
    }

    fn as_str(&self) -> &str {
        let bytes = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        core::str::from_utf8(bytes).unwrap_or_default()
    }
}

/// The client's `clientInfo` name and version, kept when both fit (for display and for the
/// `io.modelcontextprotocol/clientInfo` the modern handler path sees).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ClientName {
    name: InlineText<MAX_CLIENT_NAME>,
    version: InlineText<MAX_CLIENT_VERSION>,
}

impl ClientName {
    /// Both texts, or `None` when either is longer than its capacity.
    pub(crate) fn decode(name: JsonStr<'_>, version: JsonStr<'_>) -> Option<Self> {
        Some(ClientName {
            name: InlineText::decode(name)?,
            version: InlineText::decode(version)?,
        })
    }

    /// `clientInfo.name`.
    pub fn name(&self) -> &str {
        self.name.as_str()
    }

    /// `clientInfo.version`.
    pub fn version(&self) -> &str {
        self.version.as_str()
    }
}

impl core::fmt::Debug for ClientName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}@{}", self.name(), self.version())
    }
}

/// One legacy session, from its `initialize` to its end.
///
/// Everything here was declared once by the client (`initialize`, `logging/setLevel`) and
/// holds for the whole session; the adapter keeps the value and hands it to every legacy
/// piece. It is small and fixed-size: no per-session memory grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session {
    pub(crate) version: LegacyVersion,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) roots_list_changed: bool,
    pub(crate) client: Option<ClientName>,
    pub(crate) initialized: bool,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) next_bridge_id: u64,
}

impl Session {
    /// A session of `version` whose client declared `capabilities` (masked to what the
    /// version knows), before `notifications/initialized`.
    pub fn new(version: LegacyVersion, capabilities: ClientCapabilities) -> Self {
        Session {
            version,
            capabilities: capabilities.intersection(version.known_capabilities()),
            roots_list_changed: false,
            client: None,
            initialized: false,
            log_level: None,
            next_bridge_id: 1,
        }
    }

    /// The negotiated protocol version.
    pub fn version(&self) -> LegacyVersion {
        self.version
    }

    /// What the client can answer, from its `initialize`, for the whole session.
    pub fn capabilities(&self) -> ClientCapabilities {
        self.capabilities
    }

    /// Whether the client announced `roots.listChanged`.
    pub fn roots_list_changed(&self) -> bool {
        self.roots_list_changed
    }

    /// The client's name and version, when it sent short enough ones.
    pub fn client(&self) -> Option<&ClientName> {
        self.client.as_ref()
    }

    /// Whether `notifications/initialized` has arrived.
    pub fn initialized(&self) -> bool {
        self.initialized
    }

    /// The level `logging/setLevel` asked for; without one the server sends no log messages.
    pub fn log_level(&self) -> Option<LogLevel> {
        self.log_level
    }

    /// Takes `count` consecutive bridge ids for the requests of one bridged leg.
    pub(crate) fn take_bridge_ids(&mut self, count: u64) -> u64 {
        let first = self.next_bridge_id;
        self.next_bridge_id = self.next_bridge_id.wrapping_add(count);
        first
    }
}
