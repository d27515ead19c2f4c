//! An MCP 2026-07-28 client over stdio (a spawned server process) and Streamable HTTP, with
//! multi round-trip requests handled for you.
//!
//! The protocol is the core's sans-IO driver ([`snodo_core::client`]): every request
//! carries the `_meta` envelope (protocol version, client info, client capabilities), over
//! HTTP also the request headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`). When a tool call, a resource read or a prompt comes back
//! `input_required`, each input request is checked and answered by the handler installed for
//! its kind, and the request is retried with a fresh id, the answers and the server's
//! `requestState` exactly as received — until the final result, or
//! [`ClientBuilder::max_rounds`] requests. A capability is declared only for the kinds that
//! have a handler.
//!
//! ```no_run
//! use serde_json::json;
//! use snodo_std::client::{Client, ElicitResult};
//!
//! # async fn run() -> Result<(), snodo_std::client::ClientError> {
//! let mut server = tokio::process::Command::new("my-mcp-server");
//! server.arg("--stdio");
//! let client = Client::builder("my-client", "1.0.0")
//!     .on_form(|form| async move {
//!         println!("{}", form.message);
//!         Ok(ElicitResult::accept(json!({"color": "teal"})))
//!     })
//!     .stdio(server)?;
//! let tools = client.list_tools().await?;
//! let result = client.call_tool("preference_preview", json!({"subject": "demo"})).await?;
//! println!("{} tools; {}", tools.len(), result["content"][0]["text"]);
//! client.close().await;
//! # Ok(())
//! # }
//! ```
//!
//! Over HTTP, the tool policy is the core's ([`snodo_core::client::tools`]):
//! [`Client::list_tools`] leaves out tools whose `x-mcp-header` annotations break the
//! specification's rules (with a warning through `tracing`) and keeps the others' schemas, at
//! most [`MAX_CACHED_TOOLS`] tools in [`TOOL_CACHE_BYTES`]; a tool call that the server
//! refuses with -32020 (`HeaderMismatch`) lists the tools again and is retried once with the
//! fresh definitions.
//!
//! # Both eras
//!
//! Before its first operation the client learns the server's era ([`Negotiation::Auto`], the
//! default, as the 2026-07-28 stdio and Streamable HTTP pages prescribe): it probes with
//! `server/discover`; a result or a 2026-07-28 error keeps it modern, anything else (another
//! error, a `4xx` without a JSON-RPC body, no answer within
//! [`ClientBuilder::probe_timeout`]) makes it open an `initialize` session
//! ([`snodo_core::client::legacy`]). On a legacy session requests go without the envelope;
//! over HTTP they carry the session's `Mcp-Session-Id` and `MCP-Protocol-Version`, the
//! session's event stream (`GET`) is read, and [`Client::close`] `DELETE`s the session. The
//! server's `elicitation/create`, `sampling/createMessage`, `roots/list` and `ping` requests
//! are answered by the same handlers, at most [`MAX_CONCURRENT_SERVER_REQUESTS`] at a time;
//! a kind without a handler (never declared) is refused with -32601. [`Client::era`] says
//! which era was found.
//!
//! # Tasks
//!
//! With [`ClientBuilder::tasks`], every request declares the Tasks extension
//! (`io.modelcontextprotocol/tasks`), and a tool call the server turns into a task is
//! followed to its end: `tasks/get` at the task's `pollIntervalMs`, its input requests
//! answered by the same handlers as MRTR input (each key once) with `tasks/update`, and the
//! call returns the task's result (`failed` is [`ClientError::Server`] with the task's
//! error, `cancelled` is [`ClientError::TaskCancelled`]). Dropping the call's future sends
//! `tasks/cancel`.

mod error;
mod handlers;
mod http;
mod negotiation;
mod server_requests;
mod sse;
mod stdio;
mod tasks;

use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use snodo_core::client::tools::{
    CacheFull, HeaderRetry, Listed, Retry, ToolCache, ToolLookup, admit_listed,
};
use snodo_core::client::{Abort, ClientConfig, Exchange, Operation, Reply, read_input_request};
use snodo_core::json::{Limits, Object, parse};
use snodo_core::rpc::ErrorCode;

pub use error::ClientError;
pub use handlers::{
    CreateMessageResult, ElicitResult, FormRequest, HandlerError, HandlerResult, InputHandler,
    Root, RootsRequest, SamplingRequest, UrlRequest,
};
pub use negotiation::{DEFAULT_PROBE_TIMEOUT, Era, Negotiation};
pub use server_requests::MAX_CONCURRENT_SERVER_REQUESTS;
pub use snodo_core::client::{ClientCapabilities, InputKind};
pub use snodo_core::legacy::LegacyVersion;
pub use snodo_core::mrtr::Action;

use handlers::{Handlers, json_of, slot, text};
use http::HttpTransport;
use stdio::StdioTransport;

/// Called with every notification the server sends (progress, log messages, …).
pub type Notify = Arc<dyn Fn(Value) + Send + Sync>;

/// Limits on the responses the client reads, by default: 16 MiB, depth 128, 4096 members
/// per object.
pub const DEFAULT_LIMITS: Limits = Limits {
    max_size: 16 << 20,
    max_depth: 128,
    max_members: 4096,
};

/// Limits for reading back what the client itself wrote (arguments, requests): generous,
/// as the data is the application's own.
const OWN_LIMITS: Limits = Limits {
    max_size: usize::MAX,
    max_depth: 512,
    max_members: u16::MAX,
};

/// Default time to wait for one response.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Most pages a list follows before it stops.
const MAX_PAGES: usize = 1000;

/// Configures a [`Client`]: identity, handlers, bounds, then the transport.
pub struct ClientBuilder {
    name: String,
    version: String,
    title: Option<String>,
    max_rounds: u8,
    limits: Limits,
    timeout: Option<Duration>,
    handlers: Handlers,
    notify: Option<Notify>,
    http_headers: Vec<(::http::HeaderName, ::http::HeaderValue)>,
    close_grace: Duration,
    negotiation: Negotiation,
    probe_timeout: Duration,
    tasks: bool,
}

impl std::fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("handlers", &self.handlers)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// A client named `name` at `version` (sent as `io.modelcontextprotocol/clientInfo`).
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientBuilder {
            name: name.into(),
            version: version.into(),
            title: None,
            max_rounds: ClientConfig::DEFAULT_MAX_ROUNDS,
            limits: DEFAULT_LIMITS,
            timeout: Some(DEFAULT_TIMEOUT),
            handlers: Handlers::default(),
            notify: None,
            http_headers: Vec::new(),
            close_grace: Duration::from_secs(5),
            negotiation: Negotiation::Auto,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            tasks: false,
        }
    }

    /// Takes tasks (the `io.modelcontextprotocol/tasks` extension, declared on every
    /// request): a tool call that becomes a task is polled to its end (see the
    /// [module docs](self#tasks)). Off by default: the server then answers in the request.
    #[must_use]
    pub fn tasks(mut self, tasks: bool) -> Self {
        self.tasks = tasks;
        self
    }

    /// Which eras the client speaks (default [`Negotiation::Auto`]: probe with
    /// `server/discover`, fall back to `initialize` on a legacy server).
    #[must_use]
    pub fn negotiation(mut self, negotiation: Negotiation) -> Self {
        self.negotiation = negotiation;
        self
    }

    /// How long the `server/discover` probe waits before taking the server for a legacy
    /// one that does not answer requests before `initialize` (default
    /// [`DEFAULT_PROBE_TIMEOUT`]).
    #[must_use]
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// A human-readable title in the client info.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// At most `rounds` requests per operation (the first and its retries; default 8).
    #[must_use]
    pub fn max_rounds(mut self, rounds: u8) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Bounds on the responses read (default [`DEFAULT_LIMITS`]).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How long to wait for each response (`None`: forever; default [`DEFAULT_TIMEOUT`]).
    #[must_use]
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Answers form elicitations with `f` and declares `elicitation.form`.
    #[must_use]
    pub fn on_form<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(FormRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<ElicitResult>> + Send + 'static,
    {
        self.handlers.form = slot(f);
        self
    }

    /// Answers URL elicitations with `f` and declares `elicitation.url`.
    #[must_use]
    pub fn on_url<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(UrlRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<ElicitResult>> + Send + 'static,
    {
        self.handlers.url = slot(f);
        self
    }

    /// Answers sampling requests with `f` and declares `sampling`.
    #[must_use]
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(SamplingRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<CreateMessageResult>> + Send + 'static,
    {
        self.handlers.sampling = slot(f);
        self
    }

    /// Also declares `sampling.tools` and/or `sampling.context` (only those two count) while
    /// a sampling handler is installed: the handler then gets requests with `tools` and
    /// `toolChoice`, or with `includeContext` other than `"none"`, which a server must not
    /// send to a client that does not declare them.
    #[must_use]
    pub fn sampling_supports(mut self, extra: ClientCapabilities) -> Self {
        self.handlers.sampling_extra = extra.intersection(
            ClientCapabilities::SAMPLING_TOOLS.union(ClientCapabilities::SAMPLING_CONTEXT),
        );
        self
    }

    /// Answers roots requests with `f` and declares `roots`.
    #[must_use]
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RootsRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HandlerResult<Vec<Root>>> + Send + 'static,
    {
        self.handlers.roots = slot(f);
        self
    }

    /// Installs `handler` for the kinds it names.
    #[must_use]
    pub fn handler<H: InputHandler>(mut self, handler: H) -> Self {
        self.handlers.install(Arc::new(handler));
        self
    }

    /// Calls `f` with every notification the server sends.
    #[must_use]
    pub fn on_notification(mut self, f: impl Fn(Value) + Send + Sync + 'static) -> Self {
        self.notify = Some(Arc::new(f));
        self
    }

    /// Sends this header on every HTTP request too (for example `Authorization`).
    #[must_use]
    pub fn http_header(mut self, name: ::http::HeaderName, value: ::http::HeaderValue) -> Self {
        self.http_headers.push((name, value));
        self
    }

    /// How long [`Client::close`] waits for a stdio server to exit before killing it.
    #[must_use]
    pub fn close_grace(mut self, grace: Duration) -> Self {
        self.close_grace = grace;
        self
    }

    /// Spawns `command` as the server and talks to it over its standard streams. Its
    /// standard error is inherited unless `command` says otherwise. Needs a tokio runtime.
    pub fn stdio(self, command: tokio::process::Command) -> Result<Client, ClientError> {
        let transport = StdioTransport::spawn(
            command,
            self.limits,
            self.notify.clone(),
            self.handlers.clone(),
        )?;
        Ok(self.build(Transport::Stdio(Arc::new(transport))))
    }

    /// Talks to the Streamable HTTP endpoint at `url` (`http://` only).
    pub fn http(self, url: &str) -> Result<Client, ClientError> {
        let transport = HttpTransport::new(
            url,
            self.http_headers.clone(),
            self.limits,
            self.notify.clone(),
            self.handlers.clone(),
        )?;
        Ok(self.build(Transport::Http(Arc::new(transport))))
    }

    fn build(self, transport: Transport) -> Client {
        // Only HTTP calls need the listed schemas (for their `Mcp-Param-*` headers).
        let cache_bytes = match transport {
            Transport::Http(_) => TOOL_CACHE_BYTES,
            Transport::Stdio(_) => 0,
        };
        let tools = Box::new(ToolCache::new(vec![0; cache_bytes].into_boxed_slice()));
        Client {
            name: self.name,
            version: self.version,
            title: self.title,
            max_rounds: self.max_rounds,
            limits: self.limits,
            timeout: self.timeout,
            handlers: self.handlers,
            close_grace: self.close_grace,
            negotiation: self.negotiation,
            probe_timeout: self.probe_timeout,
            tasks: self.tasks,
            negotiated: tokio::sync::OnceCell::new(),
            reopening: tokio::sync::Mutex::new(()),
            transport,
            ids: AtomicI64::new(1),
            tools: Mutex::new(tools),
        }
    }
}

#[derive(Clone, Debug)]
enum Transport {
    Stdio(Arc<StdioTransport>),
    Http(Arc<HttpTransport>),
}

/// Most tools kept from `tools/list` over HTTP ([`ToolCache`]).
pub const MAX_CACHED_TOOLS: usize = 1024;

/// Bytes of tool names and input schemas kept from `tools/list` over HTTP.
pub const TOOL_CACHE_BYTES: usize = 4 << 20;

/// What the client kept of `tools/list` over HTTP, in storage of fixed size.
type Tools = ToolCache<Box<[u8]>, MAX_CACHED_TOOLS>;

/// An MCP client (see the [module docs](self)). Methods take `&self`, so one client serves
/// concurrent operations; each request gets its own id.
pub struct Client {
    name: String,
    version: String,
    title: Option<String>,
    max_rounds: u8,
    limits: Limits,
    timeout: Option<Duration>,
    handlers: Handlers,
    close_grace: Duration,
    negotiation: Negotiation,
    probe_timeout: Duration,
    /// Whether requests declare the Tasks extension.
    tasks: bool,
    /// The server's era, found once per client (the spec's "property of the server").
    /// `None` for 2026-07-28, the session's version on an `initialize` server.
    negotiated: tokio::sync::OnceCell<Option<LegacyVersion>>,
    /// Held while a legacy HTTP session that ended is replaced, so concurrent requests
    /// open one new session between them.
    reopening: tokio::sync::Mutex<()>,
    transport: Transport,
    ids: AtomicI64,
    tools: Mutex<Box<Tools>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("handlers", &self.handlers)
            .finish_non_exhaustive()
    }
}

/// An operation with the data it owns; its core [`Operation`] borrows from it.
enum Owned {
    Discover,
    List(&'static str, Option<String>),
    CallTool(String, Vec<u8>),
    ReadResource(String),
    GetPrompt(String, Option<Vec<u8>>),
    Request(String, Option<Vec<u8>>, Option<Vec<u8>>),
    /// A request of the Tasks extension: method, task id, `inputResponses`.
    Task(&'static str, String, Option<Vec<u8>>),
}

/// Where driving one operation ended.
enum Driven {
    /// Its final result.
    Complete(Value),
    /// The `CreateTaskResult` of the task it became.
    Task(Value),
}

/// The params members of a retry, which the driver writes itself.
const RETRY_FIELDS: [&str; 2] = ["requestState", "inputResponses"];

impl Owned {
    fn operation<'o>(&'o self) -> Result<Operation<'o>, ClientError> {
        let object = |bytes: &'o [u8], what: &str| -> Result<Object<'o>, ClientError> {
            parse(bytes, &OWN_LIMITS)
                .ok()
                .and_then(|v| v.as_object())
                .ok_or_else(|| ClientError::InvalidParams(format!("{what} must be a JSON object")))
        };
        Ok(match self {
            Owned::Discover => Operation::discover(),
            Owned::List(method, cursor) => {
                let cursor = cursor.as_deref();
                match *method {
                    "tools/list" => Operation::list_tools(cursor),
                    "resources/list" => Operation::list_resources(cursor),
                    "resources/templates/list" => Operation::list_resource_templates(cursor),
                    "prompts/list" => Operation::list_prompts(cursor),
                    other => Operation::request(other, None),
                }
            }
            Owned::CallTool(name, arguments) => {
                Operation::call_tool(name, Some(object(arguments, "the arguments")?))
            }
            Owned::ReadResource(uri) => Operation::read_resource(uri),
            Owned::GetPrompt(name, arguments) => {
                let arguments = match arguments {
                    Some(a) => Some(object(a, "the prompt arguments")?),
                    None => None,
                };
                Operation::get_prompt(name, arguments)
            }
            Owned::Task(method, task_id, responses) => {
                let responses = match responses {
                    Some(r) => Some(object(r, "inputResponses")?),
                    None => None,
                };
                Operation::task(method, task_id, responses)
            }
            Owned::Request(method, params, meta) => {
                let params = match params {
                    Some(p) => Some(object(p, "params")?),
                    None => None,
                };
                let op = Operation::request(method, params);
                match meta {
                    Some(m) => op.with_meta(object(m, "params._meta")?),
                    None => op,
                }
            }
        })
    }
}

impl Client {
    /// Starts configuring a client named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(name, version)
    }

    /// The capabilities every request declares (those of the installed handlers, and the
    /// Tasks extension with [`ClientBuilder::tasks`]).
    pub fn capabilities(&self) -> ClientCapabilities {
        let handled = self.handlers.capabilities();
        if self.tasks {
            handled.union(ClientCapabilities::TASKS)
        } else {
            handled
        }
    }

    /// `server/discover`: the server's versions, capabilities and identity.
    pub async fn discover(&self) -> Result<Value, ClientError> {
        self.drive(&Owned::Discover, None).await
    }

    /// `tools/list`, every page. Over HTTP, tools with invalid `x-mcp-header` annotations
    /// are left out (and refused by [`Client::call_tool`]); over both, tools without a name.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let tools = self.list_all("tools/list", "tools").await?;
        // A legacy session sends no `Mcp-Param-*` headers, so annotations do not matter.
        let http = matches!(self.transport, Transport::Http(_)) && !self.is_legacy();
        let mut cache = lock(&self.tools);
        cache.clear();
        let mut usable = Vec::with_capacity(tools.len());
        for tool in tools {
            let raw = serde_json::to_vec(&tool).unwrap_or_default();
            let Ok(parsed) = parse(&raw, &self.limits) else {
                // Too deep or too wide to read back within the limits: listed, not kept.
                usable.push(tool);
                continue;
            };
            let listed = if http {
                cache.learn(parsed).unwrap_or_else(|CacheFull| {
                    tracing::warn!(tool = ?tool["name"], "tool cache full: calls go without Mcp-Param headers");
                    admit_listed(parsed, true)
                })
            } else {
                admit_listed(parsed, false)
            };
            match listed {
                Listed::Usable => usable.push(tool),
                Listed::LeftOut(reason) => {
                    tracing::warn!(tool = ?tool["name"], reason, "tool left out: it cannot be called over HTTP");
                }
                Listed::Unnamed => {
                    tracing::warn!("tools/list returned a tool without a name; left out")
                }
            }
        }
        Ok(usable)
    }

    /// `resources/list`, every page.
    pub async fn list_resources(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/list", "resources").await
    }

    /// `resources/templates/list`, every page.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// `prompts/list`, every page.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// `tools/call` of `name` with `arguments` (a JSON object; `null` is `{}`), answering
    /// input requests on the way; the final `CallToolResult`.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let arguments = match arguments {
            Value::Null => Value::Object(serde_json::Map::new()),
            other => other,
        };
        let op = Owned::CallTool(
            name.to_owned(),
            serde_json::to_vec(&arguments).map_err(ClientError::transport)?,
        );
        self.era().await?;
        let (Transport::Http(_), false) = (&self.transport, self.is_legacy()) else {
            return self.drive(&op, None).await;
        };
        let mut retry = HeaderRetry::new();
        loop {
            let schema = match lock(&self.tools).lookup(name) {
                ToolLookup::LeftOut(reason) => {
                    return Err(ClientError::InvalidTool {
                        name: name.to_owned(),
                        reason,
                    });
                }
                ToolLookup::Usable(schema) => Some(schema.to_vec()),
                ToolLookup::Unknown => None,
            };
            match self.drive(&op, schema.as_deref()).await {
                Err(ClientError::Server { code, .. })
                    if i32::try_from(code)
                        .is_ok_and(|c| retry.after_error(ErrorCode(c)) == Retry::Relist) =>
                {
                    self.list_tools().await?;
                }
                other => return other,
            }
        }
    }

    /// `resources/read` of `uri`, answering input requests on the way; the final
    /// `ReadResourceResult`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, ClientError> {
        self.drive(&Owned::ReadResource(uri.to_owned()), None).await
    }

    /// `prompts/get` of `name` with `arguments` (an object of strings, or `null` for none),
    /// answering input requests on the way; the final `GetPromptResult`.
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let arguments = match arguments {
            Value::Null => None,
            other => Some(serde_json::to_vec(&other).map_err(ClientError::transport)?),
        };
        self.drive(&Owned::GetPrompt(name.to_owned(), arguments), None)
            .await
    }

    /// Any other request: `method` with `params` (an object, or `null`). Members of
    /// `params._meta` other than the protocol's own are sent along.
    ///
    /// The client answers input requests and echoes `requestState` itself, so params that
    /// carry `requestState` or `inputResponses` are [`ClientError::InvalidParams`], as are
    /// params that are not an object; nothing is sent then.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let (params, meta) = match params {
            Value::Null => (None, None),
            Value::Object(map) if RETRY_FIELDS.iter().any(|k| map.contains_key(*k)) => {
                return Err(ClientError::InvalidParams(
                    "requestState and inputResponses are written by the client, which answers \
                     input requests itself"
                        .to_owned(),
                ));
            }
            Value::Object(mut map) => {
                let meta = map.remove("_meta");
                (Some(Value::Object(map)), meta)
            }
            _ => {
                return Err(ClientError::InvalidParams(
                    "params must be a JSON object or null".to_owned(),
                ));
            }
        };
        let bytes = |v: Option<Value>| v.map(|v| serde_json::to_vec(&v).unwrap_or_default());
        let op = Owned::Request(method.to_owned(), bytes(params), bytes(meta));
        self.drive(&op, None).await
    }

    /// Ends the session: over stdio, closes the server's input, waits for it to exit (up to
    /// [`ClientBuilder::close_grace`]) and kills it if it does not; over HTTP, a legacy
    /// session is ended with `DELETE` (waiting at most as long).
    pub async fn close(self) {
        match &self.transport {
            Transport::Stdio(stdio) => stdio.close(self.close_grace).await,
            Transport::Http(http) => http.end_session(self.close_grace).await,
        }
    }

    async fn list_all(&self, method: &'static str, key: &str) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut page = self
                .drive(&Owned::List(method, cursor.take()), None)
                .await?;
            match page.get_mut(key).map(Value::take) {
                Some(Value::Array(more)) => items.extend(more),
                _ => {
                    return Err(ClientError::MalformedResponse(format!(
                        "a {method} result needs a {key} array"
                    )));
                }
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_owned()),
                _ => return Ok(items),
            }
        }
        Err(ClientError::MalformedResponse(format!(
            "{method} kept returning a nextCursor after {MAX_PAGES} pages"
        )))
    }

    fn config(&self) -> ClientConfig<'_> {
        let config = ClientConfig::new(&self.name, &self.version)
            .with_max_rounds(self.max_rounds)
            .with_limits(self.limits);
        match &self.title {
            Some(title) => config.with_title(title),
            None => config,
        }
    }

    fn next_id(&self) -> i64 {
        let id = self.ids.fetch_add(1, Ordering::Relaxed);
        if id <= 0 {
            self.ids.store(2, Ordering::Relaxed);
            return 1;
        }
        id
    }

    /// Drives one operation to its final result, following it when it becomes a task.
    async fn drive(&self, op: &Owned, tool_schema: Option<&[u8]>) -> Result<Value, ClientError> {
        match self.drive_request(op, tool_schema).await? {
            Driven::Complete(result) => Ok(result),
            Driven::Task(created) => self.follow_task(created).await,
        }
    }

    /// Drives one operation to its final result, or to the task it became.
    async fn drive_request(
        &self,
        op: &Owned,
        tool_schema: Option<&[u8]>,
    ) -> Result<Driven, ClientError> {
        let era = self.era().await?;
        let config = self.config();
        let operation = op.operation()?;
        let mut exchange = match era {
            Era::Modern => Exchange::new(&config, operation, self.capabilities()),
            Era::Legacy => Exchange::legacy(&config, operation),
        };
        let mut out = Vec::new();
        let mut id = self.next_id();
        let mut len = grow(&mut out, |buf| exchange.write_request(id, buf))?;
        loop {
            let response = self.round_trip(id, &out[..len], tool_schema).await?;
            let reply = exchange
                .read_response(&response)
                .map_err(|e| explain(e, &response, &self.limits))?;
            match reply {
                Reply::Complete(result) => {
                    return Ok(Driven::Complete(json_of(result.as_value().raw())));
                }
                Reply::Task(created) => {
                    return Ok(Driven::Task(json_of(created.as_value().raw())));
                }
                Reply::Error(e) => {
                    return Err(ClientError::Server {
                        code: e.code,
                        message: text(e.message),
                        data: e.data.map(|d| json_of(d.raw())),
                    });
                }
                Reply::VersionRetry => {
                    id = self.next_id();
                    len = grow(&mut out, |buf| exchange.write_request(id, buf))?;
                }
                Reply::InputRequired(input) => {
                    let mut answers = Vec::with_capacity(input.len());
                    for request in input.requests() {
                        answers.push(self.handlers.answer(&request).await?);
                    }
                    id = self.next_id();
                    len = grow(&mut out, |buf| {
                        let mut next = answers.iter();
                        exchange.write_retry(id, &input, buf, |_, answer| {
                            let json = next.next().map_or(&b"null"[..], Vec::as_slice);
                            answer
                                .json(json)
                                .map_err(|_| Abort::new("the answer is not JSON"))
                        })
                    })?;
                }
            }
        }
    }

    async fn round_trip(
        &self,
        id: i64,
        request: &[u8],
        tool_schema: Option<&[u8]>,
    ) -> Result<Vec<u8>, ClientError> {
        self.round_trip_within(id, request, tool_schema, self.timeout)
            .await
    }

    async fn round_trip_within(
        &self,
        id: i64,
        request: &[u8],
        tool_schema: Option<&[u8]>,
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, ClientError> {
        match &self.transport {
            Transport::Stdio(stdio) => stdio.round_trip(id, request, timeout).await,
            Transport::Http(http) => {
                let session = http.session_id();
                match http.round_trip(id, request, tool_schema, timeout).await {
                    // 2025-11-25: a 404 to a request with a session id means the session is
                    // gone, and the client must open a new one; the request goes again, once.
                    Err(ClientError::Http { status: 404, .. }) if session.is_some() => {
                        self.reopen(session).await?;
                        http.round_trip(id, request, tool_schema, timeout).await
                    }
                    other => other,
                }
            }
        }
    }
}

/// Writes with `write` into `out`, growing it until the request fits; returns the length.
fn grow(
    out: &mut Vec<u8>,
    mut write: impl FnMut(&mut [u8]) -> Result<usize, snodo_core::client::ClientError>,
) -> Result<usize, ClientError> {
    if out.len() < 4096 {
        out.resize(4096, 0);
    }
    loop {
        match write(out) {
            Ok(n) => return Ok(n),
            Err(snodo_core::client::ClientError::BufferTooSmall { required })
                if required > out.len() =>
            {
                out.resize(required, 0);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The driver's error, with the key of a malformed input request when one is to blame.
fn explain(e: snodo_core::client::ClientError, response: &[u8], limits: &Limits) -> ClientError {
    let mut error = ClientError::from(e);
    if let ClientError::MalformedInputRequest { key, .. } = &mut error {
        let requests = parse(response, limits)
            .ok()
            .and_then(|r| r.get("result"))
            .and_then(|r| r.get("inputRequests"))
            .and_then(|r| r.as_object());
        *key = requests
            .into_iter()
            .flatten()
            .find(|(k, v)| read_input_request(*k, *v).is_err())
            .map(|(k, _)| text(k));
    }
    error
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
