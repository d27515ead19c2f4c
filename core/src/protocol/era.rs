//! The two eras a server can answer, and which of them it does: shared by the 2026-07-28
//! path, which refuses `initialize` when the legacy dialect is not served, and by the
//! legacy dialect itself (module `legacy`, feature `legacy`).

/// Why `initialize` is refused on a connection that already speaks 2026-07-28.
pub(crate) const INITIALIZE_ON_MODERN: &str = "This connection speaks MCP 2026-07-28 (a request with \
the _meta envelope or server/discover came first): initialize opens a 2025-11-25 session only \
before any 2026-07-28 request";

/// One of the two eras.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Era {
    /// 2025-11-25 and earlier: an `initialize` handshake opens a session.
    Legacy,
    /// 2026-07-28: every request carries its version and capabilities in `_meta`.
    Modern,
}

/// Which eras a server answers (default: both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum EraSupport {
    /// Only 2026-07-28: `initialize` is refused with an error that names the versions
    /// served (a legacy client's only diagnostic).
    ModernOnly,
    /// Only the `initialize` era: modern requests are refused.
    LegacyOnly,
    /// Both, chosen per connection (stdio) or per request and session (HTTP).
    #[default]
    Both,
}

impl EraSupport {
    /// Whether `era` is served.
    pub const fn serves(self, era: Era) -> bool {
        !matches!(
            (self, era),
            (EraSupport::ModernOnly, Era::Legacy) | (EraSupport::LegacyOnly, Era::Modern)
        )
    }

    /// Why the 2026-07-28 path refuses `initialize` (-32601) on a server serving these eras:
    /// a modern-only server speaks nothing else; on a dual-era one the request reached that
    /// path because a 2026-07-28 request decided the connection first (or it carries the
    /// envelope itself).
    pub(crate) const fn initialize_refusal(self) -> &'static str {
        if self.serves(Era::Legacy) {
            INITIALIZE_ON_MODERN
        } else {
            "initialize is not part of protocol 2026-07-28; this server speaks 2026-07-28 only"
        }
    }

    /// The era that serves a message which decides nothing before anything is decided:
    /// modern when served (so such messages are answered exactly as a modern-only server
    /// answers them), legacy otherwise.
    pub const fn undecided(self) -> Era {
        if self.serves(Era::Modern) {
            Era::Modern
        } else {
            Era::Legacy
        }
    }
}
