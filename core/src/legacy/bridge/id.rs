//! Ids of the requests the bridge sends to a legacy client.
//!
//! They are strings, `snodo-bridge-<n>` with `n` counted per session, so an answer is
//! recognised at a glance and never confused with an id the client chose.

use crate::json::Writer;
use crate::rpc::Id;

const PREFIX: &str = "snodo-bridge-";

/// The id of one bridged request, unique within its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BridgeId(pub u64);

impl BridgeId {
    /// The bridge id `id` spells, if it is one.
    pub fn from_id(id: &Id<'_>) -> Option<Self> {
        let Id::Str(text) = id else { return None };
        let digits = text.as_plain()?.strip_prefix(PREFIX)?;
        if digits.is_empty() || digits.len() > 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok().map(BridgeId)
    }

    /// Writes the id as a JSON string.
    pub fn write(self, w: &mut Writer<'_>) {
        w.str_fmt(format_args!("{PREFIX}{}", self.0));
    }
}

impl crate::rpc::emit::WireId for BridgeId {
    fn emit(&self, w: &mut Writer<'_>) {
        self.write(w);
    }
}
