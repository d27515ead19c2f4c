//! `Mcp-Session-Id` values for legacy Streamable HTTP sessions.

/// A session id: 32 lowercase hex digits from 16 random bytes the adapter draws (the core
/// has no random source). Visible ASCII, as 2025-11-25 requires, and usable as a map key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SessionId([u8; 32]);

impl SessionId {
    /// The id spelled by `random` (which must come from a cryptographically secure source).
    pub fn from_random(random: [u8; 16]) -> Self {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut text = [0u8; 32];
        for (pair, byte) in text.chunks_exact_mut(2).zip(random) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0xf)];
        }
        SessionId(text)
    }

    /// The id in an `Mcp-Session-Id` header, if it has the shape this server mints.
    pub fn parse(header: &[u8]) -> Option<Self> {
        let text: [u8; 32] = header.try_into().ok()?;
        text.iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            .then_some(SessionId(text))
    }

    /// The header value.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.0).unwrap_or_default()
    }
}
