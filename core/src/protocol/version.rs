//! Every protocol version this core speaks, in one place: the 2026-07-28 revision of the
//! per-request envelope, and the versions of the `initialize` era with their negotiation.

use crate::json::JsonStr;
use crate::protocol::ClientCapabilities;

/// The protocol revision this core speaks.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// Every version the 2026-07-28 envelope accepts, newest first (what -32022 lists as
/// `supported`). The `initialize` era's are [`LegacyVersion::ALL`].
pub const SUPPORTED_VERSIONS: &[&str] = &[PROTOCOL_VERSION];

/// A protocol version of the `initialize` era this core can serve (with feature `legacy`)
/// and speak as a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LegacyVersion {
    /// `2025-03-26`: no elicitation, no structured tool output.
    V2025_03_26,
    /// `2025-06-18`: form elicitation, structured tool output.
    V2025_06_18,
    /// `2025-11-25`: URL elicitation, sampling with tools.
    V2025_11_25,
}

impl LegacyVersion {
    /// The newest legacy version: what a client asking for an unknown version is offered.
    pub const LATEST: LegacyVersion = LegacyVersion::V2025_11_25;

    /// Every legacy version served, newest first.
    pub const ALL: [LegacyVersion; 3] = [
        LegacyVersion::V2025_11_25,
        LegacyVersion::V2025_06_18,
        LegacyVersion::V2025_03_26,
    ];

    /// The wire name, e.g. `2025-11-25`.
    pub const fn name(self) -> &'static str {
        match self {
            LegacyVersion::V2025_03_26 => "2025-03-26",
            LegacyVersion::V2025_06_18 => "2025-06-18",
            LegacyVersion::V2025_11_25 => "2025-11-25",
        }
    }

    /// The version named `name`, if it is one served.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The version to answer a client that asked for `requested` with: the same when it is
    /// served, otherwise the newest ("the server MUST respond with another protocol version
    /// it supports. This SHOULD be the latest").
    pub fn negotiate(requested: JsonStr<'_>) -> Self {
        Self::ALL
            .into_iter()
            .find(|v| requested.eq_str(v.name()))
            .unwrap_or(Self::LATEST)
    }

    /// The client capabilities that exist in this version: a client that declares more (URL
    /// elicitation on 2025-06-18, say) cannot be sent what the negotiated version lacks.
    pub const fn known_capabilities(self) -> ClientCapabilities {
        let basic = ClientCapabilities::SAMPLING.union(ClientCapabilities::ROOTS);
        match self {
            LegacyVersion::V2025_03_26 => basic,
            LegacyVersion::V2025_06_18 => basic.union(ClientCapabilities::ELICITATION_FORM),
            LegacyVersion::V2025_11_25 => basic
                .union(ClientCapabilities::ELICITATION_FORM)
                .union(ClientCapabilities::ELICITATION_URL)
                .union(ClientCapabilities::SAMPLING_TOOLS)
                .union(ClientCapabilities::SAMPLING_CONTEXT),
        }
    }
}
