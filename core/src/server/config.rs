//! What a server says about itself and the knobs that shape its replies.

use crate::json::{Limits, Writer};
use crate::protocol::EraSupport;
use crate::state::{KeySet, StateOptions};

/// The server software (`_meta["io.modelcontextprotocol/serverInfo"]` on every result, and
/// in `server/discover`): a name and version, and optionally a title, a description and
/// the address of its website.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerInfo<'s> {
    /// Programmatic name.
    pub name: &'s str,
    /// Version string.
    pub version: &'s str,
    /// Human-readable title.
    pub title: Option<&'s str>,
    /// What the server is, for people.
    pub description: Option<&'s str>,
    /// `websiteUrl`: where to read about it.
    pub website_url: Option<&'s str>,
}

impl<'s> ServerInfo<'s> {
    /// The software named `name` at `version`.
    pub const fn new(name: &'s str, version: &'s str) -> Self {
        ServerInfo {
            name,
            version,
            title: None,
            description: None,
            website_url: None,
        }
    }

    /// Writes the info object (on every result). Its keys are constants that need no
    /// escaping, so they are copied as they are; only the values are escaped.
    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.raw(b"{\"name\":").str(self.name);
        if let Some(title) = self.title {
            w.raw(b",\"title\":").str(title);
        }
        w.raw(b",\"version\":").str(self.version);
        if let Some(description) = self.description {
            w.raw(b",\"description\":").str(description);
        }
        if let Some(url) = self.website_url {
            w.raw(b",\"websiteUrl\":").str(url);
        }
        w.raw(b"}");
    }
}

optional_text!(ServerInfo {
    /// With a human-readable title.
    title,
    /// With a description.
    description,
    /// With the address of its website.
    website_url,
});

/// Who may share a cached response (`cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum CacheScope {
    /// Any client or intermediary may cache and share it.
    Public,
    /// Cache only within the same authorization context.
    Private,
}

impl CacheScope {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The capabilities a server advertises. Methods of a capability it does not advertise
/// answer -32601.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ServerCapabilities {
    /// `tools`
    pub tools: bool,
    /// `resources`
    pub resources: bool,
    /// `prompts`
    pub prompts: bool,
    /// `completions`
    pub completions: bool,
    /// `logging` (per-request `io.modelcontextprotocol/logLevel`)
    pub logging: bool,
    /// The advertised lists that announce `listChanged`: their change notifications reach
    /// `subscriptions/listen` streams.
    pub list_changed: ListChanged,
    /// `resources.subscribe`: resource updates are delivered to `subscriptions/listen`.
    pub subscribe: bool,
}

/// Which lists announce `listChanged`, each on its own: a server that changes its tools at run
/// time need not claim that its prompts change too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ListChanged {
    /// `tools.listChanged`
    pub tools: bool,
    /// `resources.listChanged`
    pub resources: bool,
    /// `prompts.listChanged`
    pub prompts: bool,
}

impl ListChanged {
    /// No list announces changes.
    pub const NONE: ListChanged = ListChanged {
        tools: false,
        resources: false,
        prompts: false,
    };
    /// Every list announces changes (those not advertised are left out all the same).
    pub const ALL: ListChanged = ListChanged {
        tools: true,
        resources: true,
        prompts: true,
    };
}

impl ServerCapabilities {
    /// Writes the capabilities object; `tasks` adds the Tasks extension under `extensions`
    /// (only `server/discover` says it: a 2025-11-25 client sees no tasks).
    pub(crate) fn write(&self, w: &mut Writer<'_>, tasks: bool) {
        let list = |changes: bool| -> &[u8] {
            if changes {
                b"{\"listChanged\":true}"
            } else {
                b"{}"
            }
        };
        w.object(|o| {
            if self.completions {
                o.raw("completions", b"{}");
            }
            if tasks {
                o.raw("extensions", b"{\"io.modelcontextprotocol/tasks\":{}}");
            }
            if self.logging {
                o.raw("logging", b"{}");
            }
            if self.prompts {
                o.raw("prompts", list(self.list_changed.prompts));
            }
            if self.resources {
                o.object("resources", |r| {
                    if self.list_changed.resources {
                        r.bool("listChanged", true);
                    }
                    if self.subscribe {
                        r.bool("subscribe", true);
                    }
                });
            }
            if self.tools {
                o.raw("tools", list(self.list_changed.tools));
            }
        });
    }
}

/// Server configuration: identity, limits and cache hints.
#[derive(Clone, Copy, Debug)]
pub struct Config<'s> {
    /// Identity written on every result.
    pub info: ServerInfo<'s>,
    /// `instructions` in `server/discover`.
    pub instructions: Option<&'s str>,
    /// Bounds on incoming JSON.
    pub limits: Limits,
    /// Items per page of a list.
    pub page_size: usize,
    /// `ttlMs` on cacheable results (lists, discover, resource reads).
    pub ttl_ms: u64,
    /// `cacheScope` on cacheable results.
    pub cache_scope: CacheScope,
    /// Keys and TTL for sealed request state (`None`: handlers cannot seal or open state).
    pub state: Option<&'s StateOptions<dyn KeySet>>,
    /// Which eras the server speaks (default both). The core serves 2026-07-28; the
    /// `initialize` era is served beside it by the transports (`snodo-std`'s stdio and HTTP
    /// servers read it here, and the serial bridge serves it for a device). The core reads
    /// it to refuse an `initialize` that reaches its 2026-07-28 path in true words: a
    /// modern-only server speaks nothing else; a dual-era one opens a 2025-11-25 session
    /// only before a 2026-07-28 request decided the connection.
    pub eras: EraSupport,
}

impl<'s> Config<'s> {
    /// A configuration with host defaults for the named server.
    pub const fn new(name: &'s str, version: &'s str) -> Self {
        Config {
            info: ServerInfo::new(name, version),
            instructions: None,
            limits: Limits::HOST,
            page_size: 50,
            ttl_ms: 60_000,
            cache_scope: CacheScope::Public,
            state: None,
            eras: EraSupport::Both,
        }
    }

    /// The same configuration serving only these eras.
    #[must_use]
    pub const fn with_eras(mut self, eras: EraSupport) -> Self {
        self.eras = eras;
        self
    }

    /// The same configuration with other JSON limits (e.g. [`Limits::DEVICE`]).
    #[must_use]
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The same configuration with state keys: options over [`Keys`](crate::state::Keys), or
    /// over a lone [`Secret`](crate::state::Secret) or [`KeyRing`](crate::state::KeyRing).
    #[must_use]
    pub const fn with_state<K: KeySet + 'static>(mut self, state: &'s StateOptions<K>) -> Self {
        self.state = Some(state);
        self
    }

    /// The same configuration with `instructions`.
    #[must_use]
    pub const fn with_instructions(mut self, instructions: &'s str) -> Self {
        self.instructions = Some(instructions);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Accepted, Registry, Round, Server};

    #[derive(Debug)]
    struct Empty;
    impl Registry for Empty {}

    /// What a server configured with `eras` answers `initialize` (which reaches the core only
    /// where no legacy session can open for it).
    fn initialize_refused(eras: EraSupport) -> ([u8; 512], usize) {
        let server = Server::new(Config::new("s", "1.0").with_eras(eras), Empty).unwrap();
        let mut out = [0u8; 512];
        let request = br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}"#;
        let accepted = server.accept(request, Round::anonymous(0), &mut out);
        let Ok(Accepted::Replied(n)) = accepted else {
            panic!("initialize is answered by the core: {accepted:?}");
        };
        (out, n)
    }

    #[test]
    fn a_modern_only_server_refuses_initialize_as_speaking_2026_07_28_only() {
        let (out, n) = initialize_refused(EraSupport::ModernOnly);
        assert_eq!(
            &out[..n],
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"initialize is not part of protocol 2026-07-28; this server speaks 2026-07-28 only","data":{"supported":["2026-07-28"]}}}"#
        );
    }

    #[test]
    fn a_dual_era_server_refuses_initialize_as_too_late_for_the_connection() {
        for eras in [EraSupport::Both, EraSupport::LegacyOnly] {
            let (out, n) = initialize_refused(eras);
            assert_eq!(
                &out[..n],
                br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"This connection speaks MCP 2026-07-28 (a request with the _meta envelope or server/discover came first): initialize opens a 2025-11-25 session only before any 2026-07-28 request","data":{"supported":["2026-07-28"]}}}"#,
                "{eras:?}"
            );
        }
        assert_eq!(Config::new("s", "1.0").eras, EraSupport::Both);
    }

    fn written(info: ServerInfo<'_>) -> ([u8; 256], usize) {
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        info.write(&mut w);
        let n = w.finish().unwrap();
        (buf, n)
    }

    #[test]
    fn server_info_writes_the_members_it_has() {
        let (buf, n) = written(ServerInfo::new("s", "1.0"));
        assert_eq!(&buf[..n], br#"{"name":"s","version":"1.0"}"#);
        let full = ServerInfo::new("s", "1.0")
            .title("S")
            .description("Serves \"things\"")
            .website_url("https://example.com/s");
        let (buf, n) = written(full);
        assert_eq!(
            &buf[..n],
            br#"{"name":"s","title":"S","version":"1.0","description":"Serves \"things\"","websiteUrl":"https://example.com/s"}"#
        );
    }
}
