//! Input requests: what a handler asks the client for, built and checked before they are
//! sent, so that an invalid request is an error in the handler, never a bad message.

use super::BuildError;
use super::check;
use super::check::form::FormShape;
use crate::json::{Limits, Value, Writer, parse};
use crate::protocol::ClientCapabilities;

/// Limits for JSON given to the builders (schemas and sampling params are application data).
const BUILD_LIMITS: Limits = Limits {
    max_size: 16 * 1024,
    max_depth: 16,
    max_members: 256,
};

/// An `elicitation/create` request, in form or URL mode.
#[derive(Clone, Copy, Debug)]
pub struct Elicitation<'r> {
    message: &'r str,
    mode: ElicitMode<'r>,
}

#[derive(Clone, Copy, Debug)]
enum ElicitMode<'r> {
    Form(FormSchema<'r>),
    Url(&'r str),
}

/// A form's `requestedSchema`, parsed and checked once.
///
/// [`Elicitation::form`] checks its schema every time it is built, which is every leg of a
/// flow that builds its requests per leg. A handler that asks with the same schema again and
/// again can check it once — at start-up, in the application it builds, or on first use
/// behind a `LazyLock` — and build each leg's request with [`Elicitation::with_form`].
///
/// ```
/// use snodo_core::mrtr::{Elicitation, FormSchema};
///
/// let color = FormSchema::new(r#"{"type":"object","properties":{"color":{"type":"string"}}}"#)?;
/// let ask = Elicitation::with_form("Choose a color", color);
/// assert!(ask.form_schema().is_some());
/// assert!(FormSchema::new(r#"{"type":"object","properties":{"x":{"type":"object"}}}"#).is_err());
/// # Ok::<(), snodo_core::mrtr::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FormSchema<'r> {
    schema: Value<'r>,
    /// Where its properties are and which are required, for checking answers.
    shape: FormShape,
}

impl<'r> FormSchema<'r> {
    /// Parses and checks JSON text of the restricted flat schema (an object of primitive
    /// properties; see [`check::form`]).
    pub fn new(requested_schema: &'r str) -> Result<Self, BuildError> {
        let schema = parse(requested_schema.as_bytes(), &BUILD_LIMITS)
            .map_err(|_| BuildError::new("requestedSchema is not valid JSON"))?;
        check::form::check_schema(schema)?;
        Ok(FormSchema {
            schema,
            shape: FormShape::of(schema),
        })
    }

    /// The schema.
    pub fn as_value(&self) -> Value<'r> {
        self.schema
    }

    /// Whether `content`, an `accept` answer's content, satisfies the schema (see
    /// [`check::form::check_content`]).
    pub(crate) fn accepts(&self, content: Value<'_>) -> bool {
        self.shape.check_content(self.schema, content)
    }
}

impl<'r> Elicitation<'r> {
    /// A form elicitation: `requested_schema` is JSON text of the restricted flat schema
    /// (an object of primitive properties; see [`check::form`]), checked now.
    pub fn form(message: &'r str, requested_schema: &'r str) -> Result<Self, BuildError> {
        FormSchema::new(requested_schema).map(|schema| Self::with_form(message, schema))
    }

    /// A form elicitation with a schema checked before ([`FormSchema`]).
    pub const fn with_form(message: &'r str, schema: FormSchema<'r>) -> Self {
        Elicitation {
            message,
            mode: ElicitMode::Form(schema),
        }
    }

    /// A URL elicitation: the client asks the user to consent to opening `url` (an absolute
    /// `http`/`https` URL with a host and no user info). Consent is not completion: check
    /// the outcome of the external interaction independently.
    pub fn url(message: &'r str, url: &'r str) -> Result<Self, BuildError> {
        check::url::check_elicitation_url(url)?;
        Ok(Elicitation {
            message,
            mode: ElicitMode::Url(url),
        })
    }

    /// The form schema, for form mode.
    pub fn form_schema(&self) -> Option<Value<'r>> {
        self.checked_form().map(|form| form.as_value())
    }

    /// The checked form schema, for form mode.
    pub(crate) fn checked_form(&self) -> Option<FormSchema<'r>> {
        match self.mode {
            ElicitMode::Form(schema) => Some(schema),
            ElicitMode::Url(_) => None,
        }
    }

    /// The capability it needs: `elicitation.form` or `elicitation.url`.
    pub fn needs(&self) -> ClientCapabilities {
        match self.mode {
            ElicitMode::Form(_) => ClientCapabilities::ELICITATION_FORM,
            ElicitMode::Url(_) => ClientCapabilities::ELICITATION_URL,
        }
    }

    /// Writes the params object. The keys and the mode are constants that need no escaping,
    /// so they are copied as they are.
    fn write_params(&self, w: &mut Writer<'_>) {
        match self.mode {
            ElicitMode::Form(schema) => {
                w.raw(b"{\"mode\":\"form\",\"message\":");
                w.str(self.message);
                w.raw(b",\"requestedSchema\":");
                w.value(schema.as_value());
            }
            ElicitMode::Url(url) => {
                w.raw(b"{\"mode\":\"url\",\"message\":");
                w.str(self.message);
                w.raw(b",\"url\":");
                w.str(url);
            }
        }
        w.raw(b"}");
    }
}

/// A `sampling/createMessage` request (deprecated by the protocol, still supported).
#[derive(Clone, Copy, Debug)]
pub struct CreateMessage<'r> {
    params: Value<'r>,
    needs: ClientCapabilities,
}

impl<'r> CreateMessage<'r> {
    /// A request whose params are the JSON text `params` (`messages`, `maxTokens`, and any of
    /// `modelPreferences`, `systemPrompt`, `stopSequences`, `temperature`, `includeContext`,
    /// `metadata`, `tools`, `toolChoice`), checked structurally.
    pub fn new(params: &'r str) -> Result<Self, BuildError> {
        let params = parse(params.as_bytes(), &BUILD_LIMITS)
            .map_err(|_| BuildError::new("sampling params are not valid JSON"))?;
        let needs = check::sampling::check_params(params)?;
        Ok(CreateMessage { params, needs })
    }

    /// The capabilities it needs: `sampling`, plus `sampling.tools` for tools or a tool choice
    /// and `sampling.context` for an `includeContext` other than `none`.
    pub fn needs(&self) -> ClientCapabilities {
        self.needs
    }
}

/// A `roots/list` request (deprecated by the protocol, still supported).
#[derive(Clone, Copy, Debug, Default)]
pub struct ListRoots;

impl ListRoots {
    /// The capability it needs: `roots`.
    pub fn needs(&self) -> ClientCapabilities {
        ClientCapabilities::ROOTS
    }
}

/// Any input request.
#[derive(Clone, Copy, Debug)]
pub enum InputRequest<'r> {
    /// `elicitation/create`
    Elicit(Elicitation<'r>),
    /// `sampling/createMessage`
    CreateMessage(CreateMessage<'r>),
    /// `roots/list`
    ListRoots,
}

impl InputRequest<'_> {
    /// The JSON-RPC method the client would run.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::CreateMessage(_) => "sampling/createMessage",
            InputRequest::ListRoots => "roots/list",
        }
    }

    /// The client capabilities answering it needs.
    pub fn needs(&self) -> ClientCapabilities {
        match self {
            InputRequest::Elicit(e) => e.needs(),
            InputRequest::CreateMessage(m) => m.needs(),
            InputRequest::ListRoots => ListRoots.needs(),
        }
    }

    /// Writes `{"method":…,"params":…}`.
    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        // The method names need no escaping either.
        match self {
            InputRequest::Elicit(e) => {
                w.raw(b"{\"method\":\"elicitation/create\",\"params\":");
                e.write_params(w);
            }
            InputRequest::CreateMessage(m) => {
                w.raw(b"{\"method\":\"sampling/createMessage\",\"params\":");
                w.value(m.params);
            }
            InputRequest::ListRoots => {
                w.raw(b"{\"method\":\"roots/list\",\"params\":{}");
            }
        }
        w.raw(b"}");
    }
}

impl<'r> From<Elicitation<'r>> for InputRequest<'r> {
    fn from(e: Elicitation<'r>) -> Self {
        InputRequest::Elicit(e)
    }
}

impl<'r> From<&Elicitation<'r>> for InputRequest<'r> {
    fn from(e: &Elicitation<'r>) -> Self {
        InputRequest::Elicit(*e)
    }
}

impl<'r> From<CreateMessage<'r>> for InputRequest<'r> {
    fn from(m: CreateMessage<'r>) -> Self {
        InputRequest::CreateMessage(m)
    }
}

impl<'r> From<&CreateMessage<'r>> for InputRequest<'r> {
    fn from(m: &CreateMessage<'r>) -> Self {
        InputRequest::CreateMessage(*m)
    }
}

impl From<ListRoots> for InputRequest<'_> {
    fn from(_: ListRoots) -> Self {
        InputRequest::ListRoots
    }
}

impl From<&ListRoots> for InputRequest<'_> {
    fn from(_: &ListRoots) -> Self {
        InputRequest::ListRoots
    }
}
