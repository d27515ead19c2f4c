//! Input requests as a client reads them from an `input_required` result: each one's method
//! recognised and its params checked for the shape the method requires before any handler
//! sees it.
//!
//! The checks are structural and lenient where the protocol is: unknown members are allowed
//! everywhere. Sampling params get the same checks a server applies when it builds them
//! ([`check::sampling::check_params`]); a URL elicitation's URL must be an absolute `http` or
//! `https` URL with a host and no user info ([`check::url::check_elicitation_url`]), so a
//! handler is never asked to open anything else.

use crate::json::{Array, JsonStr, Object, Value};
use crate::mrtr::check;
use crate::protocol::ClientCapabilities;

/// The kinds of input a server may ask a client for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum InputKind {
    /// `elicitation/create` in form mode: the user fills in a small form.
    Form,
    /// `elicitation/create` in URL mode: the user consents to open a URL.
    Url,
    /// `sampling/createMessage`: the client's model writes a message.
    Sampling,
    /// `roots/list`: the client lists its roots.
    Roots,
}

impl InputKind {
    /// All four, in a fixed order.
    pub const ALL: [InputKind; 4] = [
        InputKind::Form,
        InputKind::Url,
        InputKind::Sampling,
        InputKind::Roots,
    ];

    /// A short name: `form elicitation`, `URL elicitation`, `sampling`, `roots`.
    pub const fn name(self) -> &'static str {
        match self {
            InputKind::Form => "form elicitation",
            InputKind::Url => "URL elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }

    /// The JSON-RPC method of the input request.
    pub const fn method(self) -> &'static str {
        match self {
            InputKind::Form | InputKind::Url => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }

    /// The client capability a handler of this kind declares.
    pub const fn capability(self) -> ClientCapabilities {
        match self {
            InputKind::Form => ClientCapabilities::ELICITATION_FORM,
            InputKind::Url => ClientCapabilities::ELICITATION_URL,
            InputKind::Sampling => ClientCapabilities::SAMPLING,
            InputKind::Roots => ClientCapabilities::ROOTS,
        }
    }
}

/// Longest URL a URL elicitation may carry, in bytes once unescaped.
pub const MAX_URL_LEN: usize = 2048;

/// One checked input request: its key in `inputRequests` and what it asks.
#[derive(Clone, Copy, Debug)]
pub struct InputRequest<'r> {
    /// The server's key for it; the answer goes under the same key in `inputResponses`.
    pub key: JsonStr<'r>,
    /// What it asks.
    pub ask: Ask<'r>,
}

impl<'r> InputRequest<'r> {
    /// The kind of input asked for.
    pub fn kind(&self) -> InputKind {
        match self.ask {
            Ask::Form(_) => InputKind::Form,
            Ask::Url(_) => InputKind::Url,
            Ask::Sampling(_) => InputKind::Sampling,
            Ask::Roots(_) => InputKind::Roots,
        }
    }

    /// The capabilities answering it needs (sampling with tools or context needs more than
    /// `sampling`).
    pub fn needs(&self) -> ClientCapabilities {
        match self.ask {
            Ask::Sampling(s) => s.needs,
            _ => self.kind().capability(),
        }
    }
}

/// What an input request asks, by kind.
#[derive(Clone, Copy, Debug)]
pub enum Ask<'r> {
    /// A form elicitation.
    Form(FormRequest<'r>),
    /// A URL elicitation.
    Url(UrlRequest<'r>),
    /// A sampling request.
    Sampling(SamplingRequest<'r>),
    /// A roots request.
    Roots(RootsRequest<'r>),
}

/// `elicitation/create` in form mode.
#[derive(Clone, Copy, Debug)]
pub struct FormRequest<'r> {
    /// What to tell the user.
    pub message: JsonStr<'r>,
    /// The form: `{"type":"object","properties":{…},"required":[…]}`.
    pub requested_schema: Object<'r>,
    /// The whole params object.
    pub params: Object<'r>,
}

impl<'r> FormRequest<'r> {
    /// The form's fields in order: name and property schema.
    pub fn fields(&self) -> impl Iterator<Item = (JsonStr<'r>, Object<'r>)> + 'r {
        self.requested_schema
            .get("properties")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
            .filter_map(|(name, schema)| Some((name, schema.as_object()?)))
    }

    /// Whether the field `name` is required.
    pub fn is_required(&self, name: &str) -> bool {
        self.requested_schema
            .get("required")
            .and_then(|r| r.as_array())
            .is_some_and(|r| r.iter().any(|n| n.as_str().is_some_and(|n| n.eq_str(name))))
    }
}

/// `elicitation/create` in URL mode. Accepting is consent to open the URL, not completion of
/// whatever happens there.
#[derive(Clone, Copy, Debug)]
pub struct UrlRequest<'r> {
    /// What to tell the user.
    pub message: JsonStr<'r>,
    /// The URL, checked to be an absolute `http`/`https` URL with a host and no user info.
    pub url: JsonStr<'r>,
    /// The whole params object.
    pub params: Object<'r>,
}

/// `sampling/createMessage`.
#[derive(Clone, Copy, Debug)]
pub struct SamplingRequest<'r> {
    /// The whole params object (`messages`, `maxTokens`, `systemPrompt`, …).
    pub params: Object<'r>,
    /// The capabilities answering needs: `sampling`, and `sampling.tools` or
    /// `sampling.context` when the request uses them.
    pub needs: ClientCapabilities,
}

impl<'r> SamplingRequest<'r> {
    /// The conversation so far (checked to be a non-empty array of messages).
    pub fn messages(&self) -> impl Iterator<Item = Value<'r>> + 'r {
        self.params
            .get("messages")
            .and_then(|m| m.as_array())
            .into_iter()
            .flat_map(|m: Array<'r>| m.iter())
    }

    /// The most tokens to sample.
    pub fn max_tokens(&self) -> Option<u64> {
        self.params.get("maxTokens").and_then(|v| v.as_u64())
    }

    /// The system prompt, when there is one.
    pub fn system_prompt(&self) -> Option<JsonStr<'r>> {
        self.params.get("systemPrompt").and_then(|v| v.as_str())
    }
}

/// `roots/list`.
#[derive(Clone, Copy, Debug)]
pub struct RootsRequest<'r> {
    /// The params object, when there is one.
    pub params: Option<Object<'r>>,
}

/// Reads the input request `value` found under `key`: its method recognised and its params
/// checked. The error says what is wrong.
pub fn read_input_request<'r>(
    key: JsonStr<'r>,
    value: Value<'r>,
) -> Result<InputRequest<'r>, &'static str> {
    let request = value
        .as_object()
        .ok_or("an input request must be an object")?;
    let method = request
        .get("method")
        .and_then(|m| m.as_str())
        .ok_or("an input request needs a string method")?;
    let params = match request.get("params") {
        None => None,
        Some(p) => Some(
            p.as_object()
                .ok_or("input request params must be an object")?,
        ),
    };
    let ask = if method.eq_str("elicitation/create") {
        elicitation(params.ok_or("elicitation/create needs params")?)?
    } else if method.eq_str("sampling/createMessage") {
        let params = params.ok_or("sampling/createMessage needs params")?;
        let needs = check::sampling::check_params(params.as_value()).map_err(|e| e.reason)?;
        Ask::Sampling(SamplingRequest { params, needs })
    } else if method.eq_str("roots/list") {
        Ask::Roots(RootsRequest { params })
    } else {
        return Err("unknown input request method");
    };
    Ok(InputRequest { key, ask })
}

fn elicitation(params: Object<'_>) -> Result<Ask<'_>, &'static str> {
    let message = params
        .get("message")
        .and_then(|m| m.as_str())
        .ok_or("an elicitation needs a string message")?;
    let mode = match params.get("mode") {
        None => None,
        Some(m) => Some(m.as_str().ok_or("elicitation mode must be a string")?),
    };
    match mode {
        None => form(params, message),
        Some(m) if m.eq_str("form") => form(params, message),
        Some(m) if m.eq_str("url") => {
            let url = params
                .get("url")
                .and_then(|u| u.as_str())
                .ok_or("a URL elicitation needs a string url")?;
            let mut buf = [0u8; MAX_URL_LEN];
            let text = url
                .decode_into(&mut buf)
                .ok_or("the elicitation URL is too long")?;
            check::url::check_elicitation_url(text).map_err(|e| e.reason)?;
            Ok(Ask::Url(UrlRequest {
                message,
                url,
                params,
            }))
        }
        Some(_) => Err("elicitation mode must be form or url"),
    }
}

fn form<'r>(params: Object<'r>, message: JsonStr<'r>) -> Result<Ask<'r>, &'static str> {
    let schema = params
        .get("requestedSchema")
        .and_then(|s| s.as_object())
        .ok_or("a form elicitation needs a requestedSchema object")?;
    let is_object = schema
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("object"));
    if !is_object {
        return Err("requestedSchema type must be \"object\"");
    }
    let properties = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .ok_or("requestedSchema needs a properties object")?;
    if !properties.iter().all(|(_, p)| p.as_object().is_some()) {
        return Err("requestedSchema properties must be schemas (objects)");
    }
    if let Some(required) = schema.get("required") {
        let strings = required
            .as_array()
            .is_some_and(|r| r.iter().all(|n| n.as_str().is_some()));
        if !strings {
            return Err("requestedSchema required must be an array of strings");
        }
    }
    Ok(Ask::Form(FormRequest {
        message,
        requested_schema: schema,
        params,
    }))
}
