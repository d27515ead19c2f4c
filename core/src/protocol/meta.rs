//! Admission of the per-request `_meta` envelope.

use super::{
    ClientCapabilities, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL,
    META_PROTOCOL_VERSION, SUPPORTED_VERSIONS,
};
use crate::json::{JsonStr, Key, Object, Value};

/// Minimum severity of log notifications a request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LogLevel {
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `notice`
    Notice,
    /// `warning`
    Warning,
    /// `error`
    Error,
    /// `critical`
    Critical,
    /// `alert`
    Alert,
    /// `emergency`
    Emergency,
}

impl LogLevel {
    const ALL: [(&'static str, LogLevel); 8] = [
        ("debug", LogLevel::Debug),
        ("info", LogLevel::Info),
        ("notice", LogLevel::Notice),
        ("warning", LogLevel::Warning),
        ("error", LogLevel::Error),
        ("critical", LogLevel::Critical),
        ("alert", LogLevel::Alert),
        ("emergency", LogLevel::Emergency),
    ];

    fn from_name(name: JsonStr<'_>) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(n, _)| name.eq_str(n))
            .map(|&(_, l)| l)
    }

    /// The wire name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, l)| *l == self)
            .map_or("", |(n, _)| n)
    }
}

/// What a request declared about itself in `params._meta`.
#[derive(Clone, Copy, Debug)]
pub struct RequestMeta<'a> {
    /// The protocol version (always a supported one once admitted).
    pub protocol_version: JsonStr<'a>,
    /// The capabilities the client declared for this request.
    pub capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`, unvalidated, for display only.
    pub client_info: Option<Value<'a>>,
    /// `progressToken`, when the client opted into progress (a string or an integer).
    pub progress_token: Option<Value<'a>>,
    /// The requested log level; without one, no log notifications may be sent.
    pub log_level: Option<LogLevel>,
    /// The whole `_meta` object.
    pub raw: Object<'a>,
}

/// Why a request's `_meta` was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MetaError<'a> {
    /// -32602: `_meta` or a required field is missing or malformed; the message says which.
    Invalid(&'static str),
    /// -32022: the version is well-formed but not supported.
    UnsupportedVersion(JsonStr<'a>),
}

/// Admits a request's `params` by its `_meta`: the version must be present and supported, the
/// client capabilities present and well-formed.
pub fn admit<'a>(params: Option<Object<'a>>) -> Result<RequestMeta<'a>, MetaError<'a>> {
    admit_meta(params.and_then(|p| p.get("_meta")), None)
}

/// [`admit`] given `params._meta` (`None` when absent), with the members of `_meta` that
/// matter already noted by the caller (when `_meta` is an object) or, without `noted`, read
/// here.
pub(crate) fn admit_meta<'a>(
    meta: Option<Value<'a>>,
    noted: Option<&MetaFields<'a>>,
) -> Result<RequestMeta<'a>, MetaError<'a>> {
    let meta = meta
        .ok_or(MetaError::Invalid("params._meta is required"))?
        .as_object()
        .ok_or(MetaError::Invalid("params._meta must be an object"))?;
    let fields = match noted {
        Some(fields) => *fields,
        None => MetaFields::read(meta),
    };
    let version = fields
        .version
        .ok_or(MetaError::Invalid(
            "params._meta must carry io.modelcontextprotocol/protocolVersion",
        ))?
        .as_str()
        .ok_or(MetaError::Invalid(
            "io.modelcontextprotocol/protocolVersion must be a string",
        ))?;
    let capabilities = fields.capabilities.ok_or(MetaError::Invalid(
        "params._meta must carry io.modelcontextprotocol/clientCapabilities",
    ))?;
    if !SUPPORTED_VERSIONS.iter().any(|v| version.eq_str(v)) {
        return Err(MetaError::UnsupportedVersion(version));
    }
    let capabilities = ClientCapabilities::from_value(capabilities).ok_or(MetaError::Invalid(
        "io.modelcontextprotocol/clientCapabilities is malformed",
    ))?;
    let progress_token = match fields.progress_token {
        None => None,
        Some(t) if t.as_str().is_some() || t.as_i64().is_some() => Some(t),
        Some(_) => {
            return Err(MetaError::Invalid(
                "progressToken must be a string or an integer",
            ));
        }
    };
    let log_level = match fields.log_level {
        None => None,
        Some(level) => Some(level.as_str().and_then(LogLevel::from_name).ok_or(
            MetaError::Invalid("io.modelcontextprotocol/logLevel is not a log level"),
        )?),
    };
    Ok(RequestMeta {
        protocol_version: version,
        capabilities,
        client_info: fields.client_info,
        progress_token,
        log_level,
        raw: meta,
    })
}

/// The members of `_meta` that admission reads, found in one pass over it or noted while
/// the message was scanned.
#[derive(Clone, Copy, Default)]
pub(crate) struct MetaFields<'a> {
    version: Option<Value<'a>>,
    capabilities: Option<Value<'a>>,
    client_info: Option<Value<'a>>,
    progress_token: Option<Value<'a>>,
    log_level: Option<Value<'a>>,
}

impl<'a> MetaFields<'a> {
    fn read(meta: Object<'a>) -> Self {
        let mut fields = MetaFields::default();
        for (key, value) in meta {
            fields.note(&Key::of(key), value);
        }
        fields
    }

    /// Notes member `key` of `_meta` if admission reads it. Keys are unique (the scanner
    /// refuses duplicates), so this finds what `get` would.
    pub(crate) fn note(&mut self, key: &Key<'a>, value: Value<'a>) {
        let slot = if key.is(META_PROTOCOL_VERSION) {
            &mut self.version
        } else if key.is(META_CLIENT_CAPABILITIES) {
            &mut self.capabilities
        } else if key.is(META_CLIENT_INFO) {
            &mut self.client_info
        } else if key.is("progressToken") {
            &mut self.progress_token
        } else if key.is(META_LOG_LEVEL) {
            &mut self.log_level
        } else {
            return;
        };
        *slot = Some(value);
    }
}
