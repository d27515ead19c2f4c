//! What typed handlers return, and how it is written into the reply.

use schemars::JsonSchema;
use serde::Serialize;
use snodo_core::server::{Done, Error, PromptReply, ResourceReply, Role, ToolReply};

use super::schema::schema_of;

/// What a tool returns: text or [`Structured`] content (whose type gives the tool's output
/// schema). A tool fails through [`Stop`](super::Stop): a [`ToolError`] the model can read,
/// or any error with `?`.
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Stop};
///
/// async fn hello(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
///     Ok("hello".to_owned())
/// }
/// ```
pub trait ToolOutput: Send {
    /// The JSON Schema of `structuredContent`, for outputs that have one.
    fn output_schema() -> Option<serde_json::Value> {
        None
    }

    /// Writes the result.
    fn write<'o>(self, reply: ToolReply<'o>) -> Result<Done<'o>, Error>;
}

impl ToolOutput for String {
    fn write<'o>(self, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text(&self))
    }
}

impl ToolOutput for &'static str {
    fn write<'o>(self, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text(self))
    }
}

/// Structured content (`structuredContent`, mirrored as a JSON text block); the tool's
/// `outputSchema` is generated from `T`, and the core checks each result against it.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use snodo_std::typed::{Cx, NoArgs, Stop, Structured};
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: f64 }
///
/// async fn two(_: NoArgs, _cx: Cx<'_>) -> Result<Structured<Sum>, Stop> {
///     Ok(Structured(Sum { sum: 2.0 }))
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Structured<T>(pub T);

impl<T: Serialize + JsonSchema + Send> ToolOutput for Structured<T> {
    fn output_schema() -> Option<serde_json::Value> {
        Some(schema_of::<T>())
    }

    fn write<'o>(self, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        let json = serde_json::to_vec(&self.0)
            .map_err(|_| Error::internal("the structured content does not serialize"))?;
        Ok(reply.structured(|w| {
            w.raw(&json);
        }))
    }
}

/// A tool error result (`isError: true`): a failure the model can read and act on. A tool
/// returns one with `?` or `.into()`, as [`Stop::Tool`](super::Stop::Tool):
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Stop, ToolError};
///
/// async fn launch(_: NoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
///     let fuel = 3;
///     if fuel < 10 {
///         return Err(ToolError::new(format!("{fuel} units of fuel are not enough")).into());
///     }
///     Ok("launched".into())
/// }
///
/// let e = ToolError::new(format!("{} is too large", f64::MAX));
/// assert!(e.text().ends_with("too large"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError(String);

impl ToolError {
    /// An error result with this text.
    pub fn new(text: impl Into<String>) -> Self {
        ToolError(text.into())
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

/// What a resource read returns: text (with the resource's MIME type), a [`Blob`], or
/// `None` for "not found after all" (-32602 with the URI).
///
/// ```
/// use snodo_std::typed::{Blob, Cx, NoArgs, Stop};
///
/// async fn pixel(_: NoArgs, _cx: Cx<'_>) -> Result<Blob, Stop> {
///     Ok(Blob("R0lGODlhAQABAAAAACw=".into()))
/// }
/// ```
pub trait ResourceOutput: Send {
    /// Writes the contents for the requested URI.
    fn write<'o>(
        self,
        reply: ResourceReply<'o>,
        mime_type: Option<&str>,
    ) -> Result<Done<'o>, Error>;
}

impl ResourceOutput for String {
    fn write<'o>(
        self,
        reply: ResourceReply<'o>,
        mime_type: Option<&str>,
    ) -> Result<Done<'o>, Error> {
        Ok(reply.text(mime_type, &self))
    }
}

impl ResourceOutput for &'static str {
    fn write<'o>(
        self,
        reply: ResourceReply<'o>,
        mime_type: Option<&str>,
    ) -> Result<Done<'o>, Error> {
        Ok(reply.text(mime_type, self))
    }
}

/// Binary resource contents, base64-encoded.
///
/// ```
/// let gif = snodo_std::typed::Blob("R0lGODlhAQABAAAAACw=".to_owned());
/// # let _ = gif;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blob(pub String);

impl ResourceOutput for Blob {
    fn write<'o>(
        self,
        reply: ResourceReply<'o>,
        mime_type: Option<&str>,
    ) -> Result<Done<'o>, Error> {
        Ok(reply.blob(mime_type, &self.0))
    }
}

impl<T: ResourceOutput> ResourceOutput for Option<T> {
    fn write<'o>(
        self,
        reply: ResourceReply<'o>,
        mime_type: Option<&str>,
    ) -> Result<Done<'o>, Error> {
        match self {
            Some(contents) => contents.write(reply, mime_type),
            None => Ok(reply.not_found()),
        }
    }
}

/// What a prompt returns: an optional description and messages.
///
/// ```
/// use snodo_std::typed::PromptMessages;
///
/// let m = PromptMessages::new()
///     .description("A greeting to write")
///     .user("Write a short greeting for Ada.");
/// assert_eq!(m.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptMessages {
    description: Option<String>,
    messages: Vec<(Role, String)>,
}

impl PromptMessages {
    /// No description, no messages.
    pub fn new() -> Self {
        PromptMessages::default()
    }

    /// With a description.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With one more user text message.
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Role::User, text.into()));
        self
    }

    /// With one more assistant text message.
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Role::Assistant, text.into()));
        self
    }

    /// How many messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub(crate) fn write<'o>(self, reply: PromptReply<'o>) -> Done<'o> {
        reply.messages(self.description.as_deref(), |m| {
            for (role, text) in &self.messages {
                m.text(*role, format_args!("{text}"));
            }
        })
    }
}
