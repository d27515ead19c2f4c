//! What a client says about itself, and the bounds it keeps.

use crate::json::{Limits, Writer};

/// The client's identity, sent as `io.modelcontextprotocol/clientInfo` on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClientInfo<'c> {
    /// Programmatic name.
    pub name: &'c str,
    /// Version of the client software.
    pub version: &'c str,
    /// Human-readable name, when there is one.
    pub title: Option<&'c str>,
}

impl ClientInfo<'_> {
    /// Writes the `Implementation` object.
    pub fn write(&self, w: &mut Writer<'_>) {
        w.object(|o| {
            o.str("name", self.name).str("version", self.version);
            if let Some(title) = self.title {
                o.str("title", title);
            }
        });
    }
}

/// Configuration shared by every operation of one client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClientConfig<'c> {
    /// Who the client is.
    pub info: ClientInfo<'c>,
    /// Most requests one operation may send: the first and every retry after
    /// `input_required`. An `input_required` result on the last of them is
    /// [`ClientError::ExhaustedRounds`](super::ClientError::ExhaustedRounds). At least 1.
    pub max_rounds: u8,
    /// Bounds on the responses the client reads (size, depth, members per object).
    pub limits: Limits,
}

impl<'c> ClientConfig<'c> {
    /// Default for [`ClientConfig::max_rounds`].
    pub const DEFAULT_MAX_ROUNDS: u8 = 8;

    /// A client named `name` at `version`, with [`Self::DEFAULT_MAX_ROUNDS`] and
    /// [`Limits::HOST`].
    pub const fn new(name: &'c str, version: &'c str) -> Self {
        ClientConfig {
            info: ClientInfo {
                name,
                version,
                title: None,
            },
            max_rounds: Self::DEFAULT_MAX_ROUNDS,
            limits: Limits::HOST,
        }
    }

    /// With a human-readable title.
    #[must_use]
    pub const fn with_title(mut self, title: &'c str) -> Self {
        self.info.title = Some(title);
        self
    }

    /// With at most `rounds` requests per operation (0 counts as 1).
    #[must_use]
    pub const fn with_max_rounds(mut self, rounds: u8) -> Self {
        self.max_rounds = if rounds == 0 { 1 } else { rounds };
        self
    }

    /// With other bounds on the responses read.
    #[must_use]
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
}
