//! The method table of a 2026-07-28 server.

use crate::json::JsonStr;

/// A request method a server may be asked to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Method {
    /// `server/discover`
    Discover,
    /// `tools/list`
    ToolsList,
    /// `tools/call`
    ToolsCall,
    /// `resources/list`
    ResourcesList,
    /// `resources/templates/list`
    ResourceTemplatesList,
    /// `resources/read`
    ResourcesRead,
    /// `prompts/list`
    PromptsList,
    /// `prompts/get`
    PromptsGet,
    /// `completion/complete`
    Complete,
    /// `subscriptions/listen`
    SubscriptionsListen,
}

impl Method {
    pub(crate) const TABLE: [(&'static str, Method); 10] = [
        ("server/discover", Method::Discover),
        ("tools/list", Method::ToolsList),
        ("tools/call", Method::ToolsCall),
        ("resources/list", Method::ResourcesList),
        ("resources/templates/list", Method::ResourceTemplatesList),
        ("resources/read", Method::ResourcesRead),
        ("prompts/list", Method::PromptsList),
        ("prompts/get", Method::PromptsGet),
        ("completion/complete", Method::Complete),
        ("subscriptions/listen", Method::SubscriptionsListen),
    ];

    /// The method named `name`, or `None` for unknown and removed methods (`initialize`,
    /// `ping`, `logging/setLevel`, `resources/subscribe`, the input-request methods, ...).
    pub fn from_name(name: JsonStr<'_>) -> Option<Self> {
        // Compared as bytes (decoded first only if escaped): most names differ in length.
        let mut buf = [0u8; 24];
        let name = if name.has_escapes() {
            name.decode_into(&mut buf)?.as_bytes()
        } else {
            name.raw()
        };
        Self::TABLE
            .iter()
            .find(|(n, _)| n.as_bytes() == name)
            .map(|&(_, m)| m)
    }

    /// The wire name.
    pub fn name(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("", |(n, _)| n)
    }

    /// Whether a result of this method may be `input_required`.
    pub fn allows_input_required(self) -> bool {
        matches!(
            self,
            Method::ToolsCall | Method::ResourcesRead | Method::PromptsGet
        )
    }
}
