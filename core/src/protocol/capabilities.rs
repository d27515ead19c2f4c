//! Client capabilities as a small bit set.
//!
//! The server needs only to know which input requests a client can answer, so the declared
//! capabilities collapse into bits; merging needs is a union and writing them is
//! deterministic.

use crate::json::{Object, Value, Writer};

/// The Tasks extension's identifier (also `tasks::EXTENSION`, with feature `tasks`).
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A set of client capabilities relevant to a server.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClientCapabilities(u8);

impl core::fmt::Debug for ClientCapabilities {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut set = f.debug_set();
        for (bit, name) in Self::NAMES {
            if self.0 & bit.0 != 0 {
                set.entry(&name);
            }
        }
        set.finish()
    }
}

impl ClientCapabilities {
    /// Nothing declared.
    pub const NONE: Self = ClientCapabilities(0);
    /// `elicitation.form` (also implied by an empty `elicitation` object).
    pub const ELICITATION_FORM: Self = ClientCapabilities(1);
    /// `elicitation.url`.
    pub const ELICITATION_URL: Self = ClientCapabilities(2);
    /// `sampling`.
    pub const SAMPLING: Self = ClientCapabilities(4);
    /// `sampling.tools`.
    pub const SAMPLING_TOOLS: Self = ClientCapabilities(8);
    /// `sampling.context`.
    pub const SAMPLING_CONTEXT: Self = ClientCapabilities(16);
    /// `roots`.
    pub const ROOTS: Self = ClientCapabilities(32);
    /// `extensions["io.modelcontextprotocol/tasks"]`: the Tasks extension, declared on the
    /// request (a server may answer this request with a task only then).
    pub const TASKS: Self = ClientCapabilities(64);

    const NAMES: [(Self, &'static str); 7] = [
        (Self::ELICITATION_FORM, "elicitation.form"),
        (Self::ELICITATION_URL, "elicitation.url"),
        (Self::SAMPLING, "sampling"),
        (Self::SAMPLING_TOOLS, "sampling.tools"),
        (Self::SAMPLING_CONTEXT, "sampling.context"),
        (Self::ROOTS, "roots"),
        (Self::TASKS, "extensions.io.modelcontextprotocol/tasks"),
    ];

    /// The union of two sets.
    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        ClientCapabilities(self.0 | other.0)
    }

    /// The capabilities in both sets.
    #[must_use]
    pub const fn intersection(self, other: Self) -> Self {
        ClientCapabilities(self.0 & other.0)
    }

    /// Whether every capability in `other` is in `self`.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// The capabilities of `self` that `have` lacks.
    #[must_use]
    pub const fn missing_from(self, have: Self) -> Self {
        ClientCapabilities(self.0 & !have.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names of the capabilities in the set (`elicitation.form`, `sampling.tools`, …),
    /// in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .into_iter()
            .filter(move |(bit, _)| self.contains(*bit))
            .map(|(_, name)| name)
    }

    /// Reads `io.modelcontextprotocol/clientCapabilities`; `None` when it is malformed (a
    /// known capability whose value, or whose known sub-capability, is not an object).
    pub fn from_value(v: Value<'_>) -> Option<Self> {
        let caps = v.as_object()?;
        let mut set = Self::NONE;
        for (key, value) in caps {
            let known = [
                "elicitation",
                "sampling",
                "roots",
                "experimental",
                "extensions",
            ];
            if !known.iter().any(|k| key.eq_str(k)) {
                continue;
            }
            let inner = value.as_object()?;
            if key.eq_str("elicitation") {
                let form = sub(inner, "form")?;
                let url = sub(inner, "url")?;
                if form || !url {
                    set = set.union(Self::ELICITATION_FORM);
                }
                if url {
                    set = set.union(Self::ELICITATION_URL);
                }
            } else if key.eq_str("sampling") {
                set = set.union(Self::SAMPLING);
                if sub(inner, "tools")? {
                    set = set.union(Self::SAMPLING_TOOLS);
                }
                if sub(inner, "context")? {
                    set = set.union(Self::SAMPLING_CONTEXT);
                }
            } else if key.eq_str("roots") {
                set = set.union(Self::ROOTS);
            } else if key.eq_str("experimental") || key.eq_str("extensions") {
                for (name, ext) in inner {
                    ext.as_object()?;
                    if key.eq_str("extensions") && name.eq_str(TASKS_EXTENSION) {
                        set = set.union(Self::TASKS);
                    }
                }
            }
        }
        Some(set)
    }

    /// Writes the set as a `ClientCapabilities` object, e.g. `{"sampling":{"tools":{}},"roots":{}}`.
    pub fn write(self, w: &mut Writer<'_>) {
        let has = |c: Self| self.contains(c);
        w.object(|o| {
            if has(Self::ELICITATION_FORM) || has(Self::ELICITATION_URL) {
                o.object("elicitation", |e| {
                    if has(Self::ELICITATION_FORM) {
                        e.raw("form", b"{}");
                    }
                    if has(Self::ELICITATION_URL) {
                        e.raw("url", b"{}");
                    }
                });
            }
            if has(Self::SAMPLING) || has(Self::SAMPLING_TOOLS) || has(Self::SAMPLING_CONTEXT) {
                o.object("sampling", |s| {
                    if has(Self::SAMPLING_CONTEXT) {
                        s.raw("context", b"{}");
                    }
                    if has(Self::SAMPLING_TOOLS) {
                        s.raw("tools", b"{}");
                    }
                });
            }
            if has(Self::ROOTS) {
                o.raw("roots", b"{}");
            }
            if has(Self::TASKS) {
                o.object("extensions", |e| {
                    e.raw(TASKS_EXTENSION, b"{}");
                });
            }
        });
    }
}

/// Whether the optional sub-capability `key` is declared; `None` if present but not an object.
fn sub(obj: Object<'_>, key: &str) -> Option<bool> {
    match obj.get(key) {
        None => Some(false),
        Some(v) => v.as_object().map(|_| true),
    }
}
