//! The one Streamable HTTP header rule of a legacy session the core can check alone.

use crate::protocol::LegacyVersion;

/// An `MCP-Protocol-Version` header a legacy session cannot accept: answer 400.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BadVersionHeader;

/// Checks the `MCP-Protocol-Version` header of a request to a legacy session: absent is
/// accepted (the session knows its version; 2025-11-25 lets older clients omit it), a served
/// legacy version is accepted and returned, anything else is refused (the specification's
/// 400 for "an invalid or unsupported" version — 2026-07-28 included, since a modern request
/// carries its `_meta` envelope and never reaches a session).
pub fn check_version_header(
    header: Option<&[u8]>,
) -> Result<Option<LegacyVersion>, BadVersionHeader> {
    let Some(header) = header else {
        return Ok(None);
    };
    let text = core::str::from_utf8(header).map_err(|_| BadVersionHeader)?;
    LegacyVersion::from_name(text.trim_matches([' ', '\t']))
        .map(Some)
        .ok_or(BadVersionHeader)
}
