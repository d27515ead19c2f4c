//! The application's answers to input requests, asynchronously: closures or an
//! [`InputHandler`], one per kind, each optional. A capability is declared only for the
//! kinds that have a handler.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use snodo_core::client::{Ask, ClientCapabilities, InputKind, InputRequest};
use snodo_core::json::JsonStr;
use snodo_core::mrtr::Action;

/// A form elicitation: ask the user to fill in `requested_schema`.
#[derive(Clone, Debug, PartialEq)]
pub struct FormRequest {
    /// What to tell the user.
    pub message: String,
    /// The form: `{"type":"object","properties":{…},"required":[…]}`.
    pub requested_schema: Value,
    /// The whole params object.
    pub params: Value,
}

/// A URL elicitation: ask the user to consent to open `url` (an absolute `http`/`https`
/// URL, checked). Consent is not completion.
#[derive(Clone, Debug, PartialEq)]
pub struct UrlRequest {
    /// What to tell the user.
    pub message: String,
    /// The URL.
    pub url: String,
    /// The whole params object.
    pub params: Value,
}

/// A sampling request: have the client's model write the next message.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingRequest {
    /// The whole params object (`messages`, `maxTokens`, `systemPrompt`, …), checked for
    /// shape.
    pub params: Value,
}

impl SamplingRequest {
    /// The conversation so far.
    pub fn messages(&self) -> &[Value] {
        self.params["messages"]
            .as_array()
            .map_or(&[], Vec::as_slice)
    }

    /// The most tokens to sample.
    pub fn max_tokens(&self) -> Option<u64> {
        self.params["maxTokens"].as_u64()
    }

    /// The system prompt, when there is one.
    pub fn system_prompt(&self) -> Option<&str> {
        self.params["systemPrompt"].as_str()
    }
}

/// A roots request: list the client's roots.
#[derive(Clone, Debug, PartialEq)]
pub struct RootsRequest {
    /// The params object (`{}` when absent).
    pub params: Value,
}

/// The answer to an elicitation (either mode).
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitResult {
    /// What the user did.
    pub action: Action,
    /// The submitted form, for an accepted form.
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// The user submitted the form with `content` (a JSON object; anything else is sent as
    /// an empty form).
    pub fn accept(content: Value) -> Self {
        let content = match content {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        ElicitResult {
            action: Action::Accept,
            content: Some(content),
        }
    }

    /// The user consents to open the URL (URL mode).
    pub fn consent() -> Self {
        ElicitResult {
            action: Action::Accept,
            content: None,
        }
    }

    /// The user explicitly refused.
    pub fn decline() -> Self {
        ElicitResult {
            action: Action::Decline,
            content: None,
        }
    }

    /// The user dismissed the request.
    pub fn cancel() -> Self {
        ElicitResult {
            action: Action::Cancel,
            content: None,
        }
    }

    /// The `ElicitResult` object.
    pub fn to_json(&self) -> Value {
        let mut result = json!({ "action": self.action.name() });
        if let Some(content) = &self.content {
            result["content"] = Value::Object(content.clone());
        }
        result
    }
}

/// The answer to a sampling request: a `CreateMessageResult`.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateMessageResult {
    /// `assistant` (or `user`).
    pub role: String,
    /// One content block or an array of them.
    pub content: Value,
    /// The model that wrote it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, …).
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// An assistant message of one text block from `model`, ending its turn.
    pub fn text(model: impl Into<String>, text: impl Into<String>) -> Self {
        CreateMessageResult {
            role: "assistant".to_owned(),
            content: json!({"type": "text", "text": text.into()}),
            model: model.into(),
            stop_reason: Some("endTurn".to_owned()),
        }
    }

    /// The `CreateMessageResult` object.
    pub fn to_json(&self) -> Value {
        let mut result = json!({
            "role": self.role,
            "content": self.content,
            "model": self.model,
        });
        if let Some(reason) = &self.stop_reason {
            result["stopReason"] = json!(reason);
        }
        result
    }
}

/// One of the client's roots: a `file://` URI and an optional name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// A `file://` URI.
    pub uri: String,
    /// A display name.
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            name: None,
        }
    }

    /// With a display name.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// A handler's failure: the operation stops with [`ClientError::Handler`](super::ClientError::Handler).
/// (To refuse an elicitation, answer [`ElicitResult::decline`] instead.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandlerError(pub String);

impl HandlerError {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HandlerError(message.into())
    }
}

impl std::fmt::Display for HandlerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HandlerError {}

/// What a handler returns.
pub type HandlerResult<T> = Result<T, HandlerError>;

/// Answers input requests asynchronously, one method per kind, each optional; only the
/// kinds [`installed`](InputHandler::installed) names are declared and ever called. Give it
/// to [`ClientBuilder::handler`](super::ClientBuilder::handler); closures are the other way
/// ([`ClientBuilder::on_form`](super::ClientBuilder::on_form) and siblings).
pub trait InputHandler: Send + Sync + 'static {
    /// The kinds this handler answers.
    fn installed(&self) -> &[InputKind];

    /// Answers a form elicitation.
    fn elicit_form(
        &self,
        request: FormRequest,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send {
        let _ = request;
        async { Err(HandlerError::new("no form handler")) }
    }

    /// Answers a URL elicitation (consent, decline or cancel).
    fn elicit_url(
        &self,
        request: UrlRequest,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send {
        let _ = request;
        async { Err(HandlerError::new("no URL handler")) }
    }

    /// Answers a sampling request.
    fn create_message(
        &self,
        request: SamplingRequest,
    ) -> impl Future<Output = HandlerResult<CreateMessageResult>> + Send {
        let _ = request;
        async { Err(HandlerError::new("no sampling handler")) }
    }

    /// Answers a roots request.
    fn list_roots(
        &self,
        request: RootsRequest,
    ) -> impl Future<Output = HandlerResult<Vec<Root>>> + Send {
        let _ = request;
        async { Err(HandlerError::new("no roots handler")) }
    }
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = HandlerResult<T>> + Send>>;
type Slot<R, T> = Option<Arc<dyn Fn(R) -> BoxFuture<T> + Send + Sync>>;

/// The installed handlers, one optional closure per kind.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) form: Slot<FormRequest, ElicitResult>,
    pub(crate) url: Slot<UrlRequest, ElicitResult>,
    pub(crate) sampling: Slot<SamplingRequest, CreateMessageResult>,
    pub(crate) roots: Slot<RootsRequest, Vec<Root>>,
    /// `sampling.tools` and/or `sampling.context`, declared with `sampling` when the
    /// sampling handler supports them.
    pub(crate) sampling_extra: ClientCapabilities,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("installed", &self.capabilities())
            .finish()
    }
}

pub(crate) fn slot<R, T, F, Fut>(f: F) -> Slot<R, T>
where
    F: Fn(R) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<T>> + Send + 'static,
{
    Some(Arc::new(move |request| {
        Box::pin(f(request)) as BoxFuture<T>
    }))
}

impl Handlers {
    /// Installs the kinds `handler` answers.
    pub(crate) fn install<H: InputHandler>(&mut self, handler: Arc<H>) {
        for kind in handler.installed() {
            let h = Arc::clone(&handler);
            match kind {
                InputKind::Form => {
                    self.form = slot(move |r| {
                        let h = Arc::clone(&h);
                        async move { h.elicit_form(r).await }
                    });
                }
                InputKind::Url => {
                    self.url = slot(move |r| {
                        let h = Arc::clone(&h);
                        async move { h.elicit_url(r).await }
                    });
                }
                InputKind::Sampling => {
                    self.sampling = slot(move |r| {
                        let h = Arc::clone(&h);
                        async move { h.create_message(r).await }
                    });
                }
                InputKind::Roots => {
                    self.roots = slot(move |r| {
                        let h = Arc::clone(&h);
                        async move { h.list_roots(r).await }
                    });
                }
            }
        }
    }

    /// The capabilities every request declares: exactly the installed kinds.
    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::NONE;
        let installed = [
            self.form.is_some(),
            self.url.is_some(),
            self.sampling.is_some(),
            self.roots.is_some(),
        ];
        for (kind, on) in InputKind::ALL.into_iter().zip(installed) {
            if on {
                caps = caps.union(kind.capability());
            }
        }
        if self.sampling.is_some() {
            caps = caps.union(self.sampling_extra);
        }
        caps
    }

    /// Answers one checked input request: the answer's JSON text.
    pub(crate) async fn answer(
        &self,
        request: &InputRequest<'_>,
    ) -> Result<Vec<u8>, super::ClientError> {
        let kind = request.kind();
        let missing = super::ClientError::MissingHandler(kind);
        let failed = |e: HandlerError| super::ClientError::Handler { kind, message: e.0 };
        let answer = match request.ask {
            Ask::Form(form) => {
                let f = self.form.as_ref().ok_or(missing)?;
                let request = FormRequest {
                    message: text(form.message),
                    requested_schema: json_of(form.requested_schema.as_value().raw()),
                    params: json_of(form.params.as_value().raw()),
                };
                f(request).await.map_err(failed)?.to_json()
            }
            Ask::Url(url) => {
                let f = self.url.as_ref().ok_or(missing)?;
                let request = UrlRequest {
                    message: text(url.message),
                    url: text(url.url),
                    params: json_of(url.params.as_value().raw()),
                };
                f(request).await.map_err(failed)?.to_json()
            }
            Ask::Sampling(sampling) => {
                let f = self.sampling.as_ref().ok_or(missing)?;
                let request = SamplingRequest {
                    params: json_of(sampling.params.as_value().raw()),
                };
                f(request).await.map_err(failed)?.to_json()
            }
            Ask::Roots(roots) => {
                let f = self.roots.as_ref().ok_or(missing)?;
                let request = RootsRequest {
                    params: roots
                        .params
                        .map_or_else(|| json!({}), |p| json_of(p.as_value().raw())),
                };
                let roots = f(request).await.map_err(failed)?;
                let roots: Vec<Value> = roots
                    .into_iter()
                    .map(|root| {
                        let mut r = json!({ "uri": root.uri });
                        if let Some(name) = root.name {
                            r["name"] = json!(name);
                        }
                        r
                    })
                    .collect();
                json!({ "roots": roots })
            }
        };
        serde_json::to_vec(&answer).map_err(|_| super::ClientError::InvalidAnswer(kind))
    }
}

/// The decoded text of a JSON string.
pub(crate) fn text(s: JsonStr<'_>) -> String {
    s.chars().collect()
}

/// A validated JSON text as a `serde_json` value (`null` if it somehow is not).
pub(crate) fn json_of(raw: &[u8]) -> Value {
    serde_json::from_slice(raw).unwrap_or(Value::Null)
}
