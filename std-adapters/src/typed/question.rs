//! What a handler can ask the client for, as typed `static`s: a form whose answer is a Rust
//! struct, a URL consent, a sampled model message and the client's roots.
//!
//! Each question carries the key its answer comes back under, is declared in
//! [`questions!`](crate::questions) and is checked once, when a server is built (a form's
//! generated schema must be the protocol's restricted flat subset).

use std::marker::PhantomData;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use snodo_core::mrtr::{
    Action, BuildError, CreateMessage, Elicitation, FormSchema, INVALID_RESPONSE, InputRequest,
    ListRoots, Response,
};
use snodo_core::server::{Error, RequestContext};

use super::schema::{leak, schema_of};

/// Something a handler asks the client for, with a typed answer.
///
/// Implemented by [`Form`], [`UrlConsent`], [`Sampling`] and [`RootsRequest`].
///
/// ```
/// use snodo_std::typed::{questions, Question, RootsRequest};
///
/// questions! {
///     static ROOTS: RootsRequest = RootsRequest::new("roots");
/// }
/// assert_eq!(ROOTS.key(), "roots");
/// assert!(ROOTS.check().is_ok());
/// ```
pub trait Question: Send + Sync {
    /// The answer, decoded.
    type Answer;

    /// The key the request is sent and answered under.
    fn key(&self) -> &'static str;

    /// The input request, checked.
    fn request(&self) -> Result<InputRequest<'static>, Error>;

    /// Whether the question is well formed (done once; the same problem every time).
    fn check(&self) -> Result<(), BuildError>;

    /// What is wrong with the question, naming its key (and, for a form, the field), or
    /// `None` when it is well formed.
    fn problem(&self) -> Option<String> {
        let e = self.check().err()?;
        Some(format!("question `{}`: {}", self.key(), e.reason))
    }

    /// The answer in `ctx`'s `inputResponses`: `None` when there is none; the generic -32602
    /// when it does not fit the question.
    fn read(&self, ctx: &RequestContext<'_>) -> Result<Option<Self::Answer>, Error>;
}

const NOT_BUILT: Error = Error::internal("an input request of this server is invalid");

/// What the user did with a form: accepted it with its content, or declined or cancelled it.
///
/// ```
/// use snodo_std::typed::Elicited;
///
/// let answer = Elicited::Accepted("teal");
/// assert!(matches!(answer, Elicited::Accepted(c) if c == "teal"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elicited<T> {
    /// Accepted, with the content decoded.
    Accepted(T),
    /// Declined.
    Declined,
    /// Cancelled (dismissed without a choice).
    Cancelled,
}

impl<T> Elicited<T> {
    /// The action taken (its wire name is `action().name()`).
    ///
    /// ```
    /// use snodo_std::typed::Elicited;
    ///
    /// assert_eq!(Elicited::<()>::Declined.action().name(), "decline");
    /// ```
    pub fn action(&self) -> Action {
        match self {
            Elicited::Accepted(_) => Action::Accept,
            Elicited::Declined => Action::Decline,
            Elicited::Cancelled => Action::Cancel,
        }
    }
}

/// A form elicitation whose content is the struct `T`: its `requestedSchema` is generated from
/// `T` and must be the restricted flat subset (an object of strings, numbers, integers,
/// booleans and enums); an accepted answer is checked against it and decoded into `T`.
/// Declared with [`questions!`](crate::questions). (This example is its own crate: a form
/// that is not flat makes every server of its binary refuse to build.)
///
/// ```standalone_crate
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use snodo_std::typed::{questions, Form, Question};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Color {
///     #[schemars(length(min = 1))]
///     color: String,
/// }
///
/// questions! {
///     static COLOR: Form<Color> = Form::new("color", "Choose a color");
/// }
/// assert!(COLOR.check().is_ok());
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Nested {
///     inner: Color,
/// }
/// questions! {
///     static NESTED: Form<Nested> = Form::new("nested", "Not a flat form");
/// }
/// assert!(NESTED.check().is_err());
/// ```
pub struct Form<T> {
    key: &'static str,
    message: &'static str,
    schema: OnceLock<Result<FormSchema<'static>, BuildError>>,
    answer: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Form<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Form")
            .field("key", &self.key)
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

impl<T> Form<T> {
    /// A form asked under `key` with `message`: write `Form::new(key, message)` in
    /// [`questions!`](crate::questions), which checks it at build.
    #[doc(hidden)]
    pub const fn __declared(key: &'static str, message: &'static str) -> Self {
        Form {
            key,
            message,
            schema: OnceLock::new(),
            answer: PhantomData,
        }
    }
}

impl<T: DeserializeOwned + JsonSchema> Form<T> {
    fn schema(&self) -> Result<FormSchema<'static>, BuildError> {
        *self
            .schema
            .get_or_init(|| FormSchema::new(leak(schema_of::<T>().to_string())))
    }

    fn elicitation(&self) -> Result<Elicitation<'static>, Error> {
        let schema = self.schema().map_err(|_| NOT_BUILT)?;
        Ok(Elicitation::with_form(self.message, schema))
    }
}

impl<T: DeserializeOwned + JsonSchema> Question for Form<T> {
    type Answer = Elicited<T>;

    fn key(&self) -> &'static str {
        self.key
    }

    fn request(&self) -> Result<InputRequest<'static>, Error> {
        self.elicitation().map(InputRequest::from)
    }

    fn check(&self) -> Result<(), BuildError> {
        self.schema().map(drop)
    }

    fn problem(&self) -> Option<String> {
        let e = self.check().err()?;
        match offending_field(&schema_of::<T>()) {
            Some(field) => Some(format!(
                "question `{}`, field `{field}`: {}",
                self.key, e.reason
            )),
            None => Some(format!("question `{}`: {}", self.key, e.reason)),
        }
    }

    fn read(&self, ctx: &RequestContext<'_>) -> Result<Option<Elicited<T>>, Error> {
        let answer = match ctx.response(self.key, &self.elicitation()?)? {
            Response::Missing => return Ok(None),
            Response::Answered(answer) => answer,
        };
        Ok(Some(match answer.action() {
            Action::Accept => {
                let content = answer.content().ok_or(INVALID_RESPONSE)?;
                let content = serde_json::from_slice(content.as_value().raw())
                    .map_err(|_| INVALID_RESPONSE)?;
                Elicited::Accepted(content)
            }
            Action::Decline => Elicited::Declined,
            Action::Cancel => Elicited::Cancelled,
        }))
    }
}

/// The first property of a generated form schema that is not a valid form on its own, so a
/// refusal can name it; `None` when the trouble is not in one property (or there are none).
fn offending_field(schema: &serde_json::Value) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    properties.iter().find_map(|(name, property)| {
        let alone = serde_json::json!({
            "type": "object",
            "properties": {name.as_str(): property},
        });
        FormSchema::new(&alone.to_string())
            .is_err()
            .then(|| name.clone())
    })
}

/// A URL elicitation: consent to open an `http(s)` page. Consent is not completion: check the
/// outcome of the external interaction yourself. The answer is the user's [`Action`].
///
/// ```standalone_crate
/// use snodo_std::typed::{questions, Question, UrlConsent};
///
/// questions! {
///     static CONSENT: UrlConsent =
///         UrlConsent::new("consent", "Open the page", "https://example.com/page");
/// }
/// assert!(CONSENT.check().is_ok());
/// questions! {
///     static BAD: UrlConsent = UrlConsent::new("consent", "Open", "file:///etc/passwd");
/// }
/// assert!(BAD.check().is_err());
/// ```
#[derive(Debug)]
pub struct UrlConsent {
    key: &'static str,
    message: &'static str,
    url: &'static str,
}

impl UrlConsent {
    /// Consent asked under `key` with `message` to open `url`: write
    /// `UrlConsent::new(key, message, url)` in [`questions!`](crate::questions).
    #[doc(hidden)]
    pub const fn __declared(key: &'static str, message: &'static str, url: &'static str) -> Self {
        UrlConsent { key, message, url }
    }

    fn elicitation(&self) -> Result<Elicitation<'static>, BuildError> {
        Elicitation::url(self.message, self.url)
    }
}

impl Question for UrlConsent {
    type Answer = Action;

    fn key(&self) -> &'static str {
        self.key
    }

    fn request(&self) -> Result<InputRequest<'static>, Error> {
        self.elicitation()
            .map(InputRequest::from)
            .map_err(|_| NOT_BUILT)
    }

    fn check(&self) -> Result<(), BuildError> {
        self.elicitation().map(drop)
    }

    fn read(&self, ctx: &RequestContext<'_>) -> Result<Option<Action>, Error> {
        let ask = self.elicitation().map_err(|_| NOT_BUILT)?;
        Ok(match ctx.response(self.key, &ask)? {
            Response::Missing => None,
            Response::Answered(answer) => Some(answer.action()),
        })
    }
}

/// A `sampling/createMessage` request (deprecated by the protocol, still defined) whose params
/// are JSON text, checked once. The answer is a [`Sampled`] message: model output the client
/// chose to return, to treat as untrusted data.
///
/// ```
/// use snodo_std::typed::{questions, Question, Sampling};
///
/// questions! {
///     static SUGGEST: Sampling = Sampling::new(
///         "suggestion",
///         r#"{"messages":[{"role":"user","content":{"type":"text","text":"A color?"}}],"maxTokens":16}"#,
///     );
/// }
/// assert!(SUGGEST.check().is_ok());
/// ```
#[derive(Debug)]
pub struct Sampling {
    key: &'static str,
    params: &'static str,
}

impl Sampling {
    /// A request asked under `key` with these `sampling/createMessage` params: write
    /// `Sampling::new(key, params)` in [`questions!`](crate::questions).
    #[doc(hidden)]
    pub const fn __declared(key: &'static str, params: &'static str) -> Self {
        Sampling { key, params }
    }

    fn create_message(&self) -> Result<CreateMessage<'static>, BuildError> {
        CreateMessage::new(self.params)
    }
}

/// A sampled message, decoded (model output: untrusted data).
///
/// ```
/// use snodo_std::typed::Sampled;
///
/// let m: Sampled = serde_json::from_str(
///     r#"{"role":"assistant","content":{"type":"text","text":"teal"},"model":"m","stopReason":"endTurn"}"#,
/// ).unwrap();
/// assert_eq!((m.model.as_str(), m.stop_reason.as_deref()), ("m", Some("endTurn")));
/// ```
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    /// `role` (`assistant` from a model).
    pub role: String,
    /// `content`: one block or an array of blocks.
    pub content: serde_json::Value,
    /// `model`: the model that produced it.
    pub model: String,
    /// `stopReason`, when given.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// The text of the content when it is a single text block.
    ///
    /// ```
    /// use snodo_std::typed::Sampled;
    ///
    /// let m: Sampled = serde_json::from_str(
    ///     r#"{"role":"assistant","content":{"type":"text","text":"teal"},"model":"m"}"#,
    /// ).unwrap();
    /// assert_eq!(m.text(), Some("teal"));
    /// ```
    pub fn text(&self) -> Option<&str> {
        if self.content.get("type")? != "text" {
            return None;
        }
        self.content.get("text")?.as_str()
    }
}

impl Question for Sampling {
    type Answer = Sampled;

    fn key(&self) -> &'static str {
        self.key
    }

    fn request(&self) -> Result<InputRequest<'static>, Error> {
        self.create_message()
            .map(InputRequest::from)
            .map_err(|_| NOT_BUILT)
    }

    fn check(&self) -> Result<(), BuildError> {
        self.create_message().map(drop)
    }

    fn read(&self, ctx: &RequestContext<'_>) -> Result<Option<Sampled>, Error> {
        let ask = self.create_message().map_err(|_| NOT_BUILT)?;
        match ctx.response(self.key, &ask)? {
            Response::Missing => Ok(None),
            Response::Answered(_) => {
                let raw = ctx
                    .input_responses()
                    .and_then(|r| r.get(self.key))
                    .ok_or(INVALID_RESPONSE)?
                    .raw();
                serde_json::from_slice(raw)
                    .map(Some)
                    .map_err(|_| INVALID_RESPONSE.into())
            }
        }
    }
}

/// A `roots/list` request (deprecated by the protocol, still defined). The answer is the
/// client's [`Root`]s: claims about its file system, never access grants.
///
/// ```
/// use snodo_std::typed::{questions, Question, RootsRequest};
///
/// questions! {
///     static ROOTS: RootsRequest = RootsRequest::new("roots");
/// }
/// assert!(ROOTS.request().is_ok());
/// ```
#[derive(Debug)]
pub struct RootsRequest {
    key: &'static str,
}

impl RootsRequest {
    /// The request asked under `key`: write `RootsRequest::new(key)` in
    /// [`questions!`](crate::questions).
    #[doc(hidden)]
    pub const fn __declared(key: &'static str) -> Self {
        RootsRequest { key }
    }
}

/// One of the client's roots (a claim, not an access grant).
///
/// ```
/// use snodo_std::typed::Root;
///
/// let root: Root = serde_json::from_str(r#"{"uri":"file:///work"}"#).unwrap();
/// assert_eq!((root.uri.as_str(), root.name), ("file:///work", None));
/// ```
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name, when given.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct RootList {
    roots: Vec<Root>,
}

impl Question for RootsRequest {
    type Answer = Vec<Root>;

    fn key(&self) -> &'static str {
        self.key
    }

    fn request(&self) -> Result<InputRequest<'static>, Error> {
        Ok(InputRequest::from(ListRoots))
    }

    fn check(&self) -> Result<(), BuildError> {
        Ok(())
    }

    fn read(&self, ctx: &RequestContext<'_>) -> Result<Option<Vec<Root>>, Error> {
        if let Response::Missing = ctx.response(self.key, &ListRoots)? {
            return Ok(None);
        }
        let raw = ctx
            .input_responses()
            .and_then(|r| r.get(self.key))
            .ok_or(INVALID_RESPONSE)?
            .raw();
        serde_json::from_slice::<RootList>(raw)
            .map(|list| Some(list.roots))
            .map_err(|_| INVALID_RESPONSE.into())
    }
}
