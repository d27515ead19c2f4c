//! The client's tool policy for Streamable HTTP: which listed tools can be called
//! ([`admit_listed`]), what is kept of them to compute their `Mcp-Param-*` headers
//! ([`ToolCache`], in storage of a fixed capacity the caller provides), and when a refused
//! call is tried again ([`HeaderRetry`]).
//!
//! A tool whose `x-mcp-header` annotations break the specification's rules cannot be called
//! over HTTP (its headers cannot be computed), so it is left out of the list and a call to it
//! is refused before anything is sent. When the server answers a call -32020
//! (`HeaderMismatch`), the tool's definition may have changed since it was listed: the client
//! lists the tools again and retries once with the fresh definition.
//!
//! ```
//! use snodo_core::client::tools::{HeaderRetry, Listed, Retry, ToolCache, ToolLookup};
//! use snodo_core::json::{Limits, parse};
//! use snodo_core::rpc::ErrorCode;
//!
//! let mut cache: ToolCache<[u8; 512], 8> = ToolCache::new([0; 512]);
//! let listed = br#"{"name":"route","inputSchema":{"type":"object","properties":
//!     {"region":{"type":"string","x-mcp-header":"Region"}}}}"#;
//! let tool = parse(listed, &Limits::HOST).unwrap();
//! assert_eq!(cache.learn(tool), Ok(Listed::Usable));
//! let ToolLookup::Usable(schema) = cache.lookup("route") else { panic!() };
//! assert!(schema.starts_with(br#"{"type":"object""#));
//! assert_eq!(cache.lookup("other"), ToolLookup::Unknown);
//!
//! let mut retry = HeaderRetry::new();
//! assert_eq!(retry.after_error(ErrorCode::HEADER_MISMATCH), Retry::Relist);
//! assert_eq!(retry.after_error(ErrorCode::HEADER_MISMATCH), Retry::Stop);
//! ```

use super::headers::check_tool;
use crate::json::Value;
use crate::rpc::ErrorCode;

/// What to do with one entry of `tools/list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Listed {
    /// List it: it can be called.
    Usable,
    /// Leave it out: its annotations break the rules (the reason says which), so it cannot
    /// be called over HTTP.
    LeftOut(&'static str),
    /// Leave it out: it has no string `name`, so nothing can call it.
    Unnamed,
}

/// Whether `tool` (one entry of `tools/list`) is listed to the application. Over stdio every
/// named tool is; over HTTP ([`check_tool`]) only those whose headers can be computed.
pub fn admit_listed(tool: Value<'_>, over_http: bool) -> Listed {
    if tool.get("name").and_then(|n| n.as_str()).is_none() {
        return Listed::Unnamed;
    }
    match check_tool(tool) {
        Err(reason) if over_http => Listed::LeftOut(reason),
        _ => Listed::Usable,
    }
}

/// How a tool is called, by what the cache knows of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolLookup<'c> {
    /// Not listed (or not kept): call it without `Mcp-Param-*` headers.
    Unknown,
    /// Listed and usable: its `inputSchema`, as JSON text, gives the headers.
    Usable(&'c [u8]),
    /// Listed and left out: refuse the call, for this reason.
    LeftOut(&'static str),
}

/// The cache has no room for another tool (`TOOLS` entries) or its name and schema (the
/// storage's bytes). The tool is still listed; calls to it go without `Mcp-Param-*` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CacheFull;

/// A range of the storage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Span {
    start: usize,
    len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kept {
    Usable(Span),
    LeftOut(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    name: Span,
    kept: Kept,
}

impl Entry {
    const EMPTY: Entry = Entry {
        name: Span { start: 0, len: 0 },
        kept: Kept::LeftOut(""),
    };
}

/// What a client kept of the last `tools/list` over HTTP: each tool's name and, for a usable
/// tool, its `inputSchema` (in `storage`), or why it was left out. At most `TOOLS` tools and
/// as many bytes of names and schemas as `storage` holds; nothing is allocated.
///
/// A tool listed twice is known by its last listing, as a later page overrides an earlier.
pub struct ToolCache<S, const TOOLS: usize> {
    storage: S,
    used: usize,
    entries: [Entry; TOOLS],
    len: usize,
}

impl<S, const TOOLS: usize> core::fmt::Debug for ToolCache<S, TOOLS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ToolCache")
            .field("tools", &self.len)
            .field("bytes", &self.used)
            .finish_non_exhaustive()
    }
}

impl<S: AsRef<[u8]> + AsMut<[u8]>, const TOOLS: usize> ToolCache<S, TOOLS> {
    /// An empty cache keeping names and schemas in `storage`.
    pub const fn new(storage: S) -> Self {
        ToolCache {
            storage,
            used: 0,
            entries: [Entry::EMPTY; TOOLS],
            len: 0,
        }
    }

    /// Forgets every tool (before a fresh `tools/list`).
    pub fn clear(&mut self) {
        self.used = 0;
        self.len = 0;
    }

    /// How many tools are kept.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no tool is kept.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Decides on `tool` (one entry of `tools/list` over HTTP, see [`admit_listed`]) and keeps
    /// what a later call needs. An unnamed tool is not kept.
    pub fn learn(&mut self, tool: Value<'_>) -> Result<Listed, CacheFull> {
        let listed = admit_listed(tool, true);
        let Some(name) = tool.get("name").and_then(|n| n.as_str()) else {
            return Ok(listed);
        };
        let entry = self.entries.get_mut(self.len).ok_or(CacheFull)?;
        let storage = self.storage.as_mut();
        let free = storage.get_mut(self.used..).ok_or(CacheFull)?;
        let name_len = name.decode_into(free).ok_or(CacheFull)?.len();
        let name_span = Span {
            start: self.used,
            len: name_len,
        };
        let kept = match listed {
            Listed::LeftOut(reason) => Kept::LeftOut(reason),
            _ => {
                let schema = tool.get("inputSchema").map_or(&b"{}"[..], |s| s.raw());
                let start = self.used + name_len;
                let end = start.checked_add(schema.len()).ok_or(CacheFull)?;
                storage
                    .get_mut(start..end)
                    .ok_or(CacheFull)?
                    .copy_from_slice(schema);
                Kept::Usable(Span {
                    start,
                    len: schema.len(),
                })
            }
        };
        *entry = Entry {
            name: name_span,
            kept,
        };
        self.used = match kept {
            Kept::Usable(schema) => schema.start + schema.len,
            Kept::LeftOut(_) => name_span.start + name_span.len,
        };
        self.len += 1;
        Ok(listed)
    }

    /// What is known of the tool `name`, by its last listing.
    pub fn lookup(&self, name: &str) -> ToolLookup<'_> {
        let storage = self.storage.as_ref();
        let bytes = |span: Span| storage.get(span.start..span.start + span.len);
        let found = self
            .entries
            .get(..self.len)
            .unwrap_or_default()
            .iter()
            .rev()
            .find(|e| bytes(e.name) == Some(name.as_bytes()));
        match found.map(|e| e.kept) {
            None => ToolLookup::Unknown,
            Some(Kept::LeftOut(reason)) => ToolLookup::LeftOut(reason),
            Some(Kept::Usable(schema)) => {
                bytes(schema).map_or(ToolLookup::Unknown, ToolLookup::Usable)
            }
        }
    }
}

/// What to do after a tool call failed with a JSON-RPC error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Retry {
    /// List the tools again (the tool's definition may have changed) and call once more.
    Relist,
    /// Report the error.
    Stop,
}

/// The retry bound of one tool call: a -32020 (`HeaderMismatch`) relists and retries once;
/// any other error, or a second -32020, is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HeaderRetry {
    relisted: bool,
}

impl HeaderRetry {
    /// A call not yet retried.
    pub const fn new() -> Self {
        HeaderRetry { relisted: false }
    }

    /// What to do after the call failed with `code`.
    pub fn after_error(&mut self, code: ErrorCode) -> Retry {
        if code == ErrorCode::HEADER_MISMATCH && !self.relisted {
            self.relisted = true;
            Retry::Relist
        } else {
            Retry::Stop
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    fn tool(text: &str) -> Value<'_> {
        parse(text.as_bytes(), &Limits::HOST).unwrap()
    }

    const BROKEN: &str = r#"{"name":"bad","inputSchema":{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}}"#;

    #[test]
    fn listing_follows_the_transport_and_the_name() {
        let plain = tool(r#"{"name":"echo","inputSchema":{"type":"object"}}"#);
        assert_eq!(admit_listed(plain, true), Listed::Usable);
        assert!(matches!(
            admit_listed(tool(BROKEN), true),
            Listed::LeftOut(_)
        ));
        assert_eq!(admit_listed(tool(BROKEN), false), Listed::Usable);
        let unnamed = tool(r#"{"inputSchema":{"type":"object"}}"#);
        assert_eq!(admit_listed(unnamed, false), Listed::Unnamed);
        assert_eq!(admit_listed(unnamed, true), Listed::Unnamed);
    }

    #[test]
    fn the_cache_keeps_schemas_reasons_and_the_last_listing() {
        let mut cache: ToolCache<[u8; 256], 4> = ToolCache::new([0; 256]);
        let listed = cache.learn(tool(
            r#"{"name":"a\u0062","inputSchema":{"type":"object"}}"#,
        ));
        assert_eq!(listed, Ok(Listed::Usable));
        assert_eq!(
            cache.lookup("ab"),
            ToolLookup::Usable(br#"{"type":"object"}"#)
        );
        let reason = match cache.learn(tool(BROKEN)) {
            Ok(Listed::LeftOut(reason)) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(cache.lookup("bad"), ToolLookup::LeftOut(reason));
        // Listed again, now usable: the last listing wins.
        let fixed = r#"{"name":"bad","inputSchema":{"type":"object","properties":{}}}"#;
        assert_eq!(cache.learn(tool(fixed)), Ok(Listed::Usable));
        assert!(matches!(cache.lookup("bad"), ToolLookup::Usable(_)));
        assert_eq!(
            cache.learn(tool(r#"{"inputSchema":{}}"#)),
            Ok(Listed::Unnamed)
        );
        assert_eq!(cache.len(), 3);
        cache.clear();
        assert!(cache.is_empty());
        assert_eq!(cache.lookup("ab"), ToolLookup::Unknown);
    }

    #[test]
    fn a_full_cache_refuses_without_losing_what_it_kept() {
        let mut cache: ToolCache<[u8; 40], 2> = ToolCache::new([0; 40]);
        let small = r#"{"name":"a","inputSchema":{"type":"object"}}"#;
        assert_eq!(cache.learn(tool(small)), Ok(Listed::Usable));
        let big =
            r#"{"name":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}"#;
        assert_eq!(cache.learn(tool(big)), Err(CacheFull));
        assert_eq!(cache.lookup("b"), ToolLookup::Unknown);
        assert_eq!(
            cache.learn(tool(r#"{"name":"c","inputSchema":{}}"#)),
            Ok(Listed::Usable)
        );
        assert_eq!(
            cache.learn(tool(r#"{"name":"d","inputSchema":{}}"#)),
            Err(CacheFull)
        );
        assert!(matches!(cache.lookup("a"), ToolLookup::Usable(_)));
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn only_the_first_header_mismatch_relists() {
        let mut retry = HeaderRetry::new();
        assert_eq!(retry.after_error(ErrorCode::INVALID_PARAMS), Retry::Stop);
        assert_eq!(retry.after_error(ErrorCode::HEADER_MISMATCH), Retry::Relist);
        assert_eq!(retry.after_error(ErrorCode::HEADER_MISMATCH), Retry::Stop);
    }
}
