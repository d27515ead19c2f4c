//! The server builder: identity, state keys and every definition, checked when built.

use std::borrow::Cow;
use std::sync::Arc;

use snodo_core::json::Limits;
use snodo_core::legacy::EraSupport;
use snodo_core::server::{
    Completion, CompletionRef, CompletionReply, Config, Done, Error, Prompt, PromptGet,
    PromptReply, Registry, Resource, ResourceRead, ResourceReply, ResourceTarget, ResourceTemplate,
    Server, Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions, Ttl};

use super::definition::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use super::schema::static_text;
use super::shared::Shared;
use crate::AsyncHandler;
use crate::serve::CheckError;

/// Starts a server named `name` at `version`.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use snodo_std::typed::{Cx, Stop, server, tool};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Echo { text: String }
///
/// async fn echo(args: Echo, _cx: Cx<'_>) -> Result<String, Stop> {
///     Ok(args.text)
/// }
///
/// let server = server("echo-server", "1.0.0")
///     .tool(tool("echo").run(echo))
///     .build()
///     .expect("every definition is valid");
/// // snodo_std::serve_stdio(server)
/// # let _ = server;
/// ```
pub fn server(
    name: impl Into<Cow<'static, str>>,
    version: impl Into<Cow<'static, str>>,
) -> ServerBuilder {
    ServerBuilder {
        config: Config::new(static_text(name), static_text(version)),
        state: Some(None),
        defs: Definitions::default(),
        problems: Vec::new(),
    }
}

/// A server being put together (see [`server`]). [`build`](ServerBuilder::build) checks
/// every definition, so what it returns can be served. Text setters take literals or owned
/// strings.
///
/// ```
/// let region = "eu-west";
/// let builder = snodo_std::typed::server("s", "1.0.0")
///     .title("S")
///     .description(format!("A server in {region}"))
///     .instructions("Use it well");
/// assert!(builder.build().is_ok());
/// ```
pub struct ServerBuilder {
    config: Config<'static>,
    /// `None`: no state keys; `Some(None)`: the process secret; `Some(Some(..))`: these.
    state: Option<Option<StateOptions<Keys>>>,
    defs: Definitions,
    problems: Vec<CheckError>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.config.info)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// With a human-readable title.
    #[must_use]
    pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.config.info = self.config.info.title(static_text(title));
        self
    }

    /// With a description, for people.
    #[must_use]
    pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.config.info = self.config.info.description(static_text(description));
        self
    }

    /// With `instructions` for the model (in `server/discover`).
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<Cow<'static, str>>) -> Self {
        self.config = self.config.with_instructions(static_text(instructions));
        self
    }

    /// With other bounds on incoming JSON (the default is [`Limits::HOST`]).
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        self.config = self.config.with_limits(limits);
        self
    }

    /// Serving only these eras (the default is both: 2026-07-28 and the `initialize` era).
    ///
    /// ```
    /// use snodo_std::legacy::EraSupport;
    ///
    /// let server = snodo_std::typed::server("s", "1.0")
    ///     .eras(EraSupport::ModernOnly)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(server.config().eras, EraSupport::ModernOnly);
    /// ```
    #[must_use]
    pub fn eras(mut self, eras: EraSupport) -> Self {
        self.config = self.config.with_eras(eras);
        self
    }

    /// The keys sealed request state is signed with and how long a token lives, in one call.
    /// Without it, the server seals with a random secret drawn once per process and the
    /// default TTL (300 s): right for one process serving loopback clients, not for a cluster
    /// (see `docs/state.md`). For a key ring from configuration, reloaded on `SIGHUP`, give
    /// [`crate::keys::KeyRingReloader`] a factory that puts a clone of the built
    /// [`TypedApp`] in a server with each ring (see `docs/deploy.md`).
    ///
    /// ```
    /// use snodo_core::state::{Keys, Ttl};
    ///
    /// let keys = Keys::ring(&[("2026-10", [7u8; 32])]).unwrap();
    /// let builder = snodo_std::typed::server("s", "1.0")
    ///     .state(keys, Ttl::from_secs(120).unwrap());
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn state(mut self, keys: Keys, ttl: Ttl) -> Self {
        self.state = Some(Some(StateOptions::new(keys).with_ttl(ttl)));
        self
    }

    /// No state keys at all: a server whose handlers never seal (a flow that tries answers
    /// -32603).
    ///
    /// ```
    /// let server = snodo_std::typed::server("s", "1.0").stateless().build().unwrap();
    /// assert!(server.config().state.is_none());
    /// ```
    #[must_use]
    pub fn stateless(mut self) -> Self {
        self.state = None;
        self
    }

    /// With a tool (listed in the order added).
    #[must_use]
    pub fn tool(mut self, entry: ToolEntry) -> Self {
        self.note(entry.def.name, &entry.problems);
        self.defs.tools.push(entry.def);
        self.defs.tool_runs.push(entry);
        self
    }

    /// With a resource at a fixed URI.
    #[must_use]
    pub fn resource(mut self, entry: ResourceEntry) -> Self {
        self.note(entry.def.name, &entry.problems);
        self.defs.resources.push(entry.def);
        self.defs.resource_runs.push(entry);
        self
    }

    /// With a resource template.
    #[must_use]
    pub fn template(mut self, entry: TemplateEntry) -> Self {
        self.note(entry.def.name, &entry.problems);
        self.defs.templates.push(entry.def);
        self.defs.template_runs.push(entry);
        self
    }

    /// With a prompt.
    #[must_use]
    pub fn prompt(mut self, entry: PromptEntry) -> Self {
        self.note(entry.def.name, &entry.problems);
        self.defs.prompts.push(entry.def);
        self.defs.prompt_runs.push(entry);
        self
    }

    /// Offers `completion/complete`: `complete` returns the suggestions for a query (at most
    /// 100 are sent).
    ///
    /// ```
    /// use snodo_std::typed::{CompletionQuery, server};
    ///
    /// let builder = server("s", "1.0").completions(|q: &CompletionQuery| {
    ///     ["Ada", "Alan"].iter().filter(|n| n.starts_with(&q.value)).map(|n| n.to_string()).collect()
    /// });
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn completions(
        mut self,
        complete: impl Fn(&CompletionQuery) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.defs.complete = Some(Box::new(complete));
        self
    }

    /// Gives every handler `value`, found by its type with [`Cx::data`](super::Cx::data): the
    /// application's store, clients and configuration, without globals. One value per type
    /// (a second replaces the first); wrap shared mutable state in a lock or an atomic, and
    /// give an `Arc` when the rest of the program keeps a handle too.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    /// use snodo_std::typed::{Cx, Stop, server, tool};
    ///
    /// #[derive(Default)]
    /// struct Notes(Mutex<Vec<String>>);
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Note { text: String }
    ///
    /// async fn note(args: Note, cx: Cx<'_>) -> Result<String, Stop> {
    ///     let notes = cx.data::<Notes>()?;
    ///     let mut notes = notes.0.lock().expect("not poisoned");
    ///     notes.push(args.text);
    ///     Ok(format!("{} notes", notes.len()))
    /// }
    ///
    /// let server = server("notes", "1.0")
    ///     .data(Notes::default())
    ///     .tool(tool("note").run(note))
    ///     .build()
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    #[must_use]
    pub fn data<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.defs.shared.insert(value);
        self
    }

    /// How an application error that reached a handler's `?` is told to the client (see
    /// [`Stop`](super::Stop)). By default it is a fixed sentence that shows nothing of the
    /// error, which is logged at `warn`; say here what may be shown.
    ///
    /// ```
    /// let builder = snodo_std::typed::server("s", "1.0").failure_message(|e| {
    ///     match e.downcast_ref::<std::io::Error>() {
    ///         Some(io) if io.kind() == std::io::ErrorKind::NotFound => "No such file".into(),
    ///         _ => "Something went wrong".into(),
    ///     }
    /// });
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn failure_message(
        mut self,
        describe: impl Fn(&(dyn std::error::Error + 'static)) -> String + Send + Sync + 'static,
    ) -> Self {
        self.defs.shared.describe_with(Box::new(describe));
        self
    }

    /// Where [`Cx::once`](super::Cx::once) records consumed tokens: by default a
    /// [`MemoryReplayGuard`](super::MemoryReplayGuard) of
    /// [`DEFAULT_CAPACITY`](super::MemoryReplayGuard::DEFAULT_CAPACITY) tokens, which sees
    /// replays to this process; a cluster gives one backed by its database.
    ///
    /// ```
    /// use snodo_std::typed::MemoryReplayGuard;
    ///
    /// let builder = snodo_std::typed::server("s", "1.0").replay_guard(MemoryReplayGuard::new(256));
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn replay_guard(mut self, guard: impl super::ReplayGuard) -> Self {
        self.defs.shared.guard_with(Box::new(guard));
        self
    }

    fn note(&mut self, name: &str, problems: &[String]) {
        self.problems
            .extend(problems.iter().map(|problem| CheckError {
                name: name.to_owned(),
                problem: problem.clone(),
            }));
    }

    /// Checks every definition (generated schemas, the questions listed with `asks`, then
    /// every question of the binary, unique names, what the core checks) and returns the
    /// server, ready to serve.
    pub fn build(mut self) -> Result<Server<'static, TypedApp>, CheckError> {
        if let Some(problem) = self.problems.into_iter().next() {
            return Err(problem);
        }
        if let Some(problem) = super::declared::first_problem() {
            return Err(problem);
        }
        if let Some(name) = duplicate(self.defs.tools.iter().map(|t| t.name))
            .or_else(|| duplicate(self.defs.prompts.iter().map(|p| p.name)))
            .or_else(|| duplicate(self.defs.resources.iter().map(|r| r.uri)))
        {
            return Err(CheckError {
                name: name.to_owned(),
                problem: "defined twice".to_owned(),
            });
        }
        self.config = match self.state {
            Some(Some(options)) => self.config.with_state::<Keys>(Box::leak(Box::new(options))),
            Some(None) => self.config.with_state(crate::process_state_options()),
            None => self.config,
        };
        Server::new(self.config, TypedApp(Arc::new(self.defs))).map_err(CheckError::from)
    }
}

fn duplicate<'n>(names: impl Iterator<Item = &'n str>) -> Option<&'n str> {
    let mut seen = std::collections::HashSet::new();
    names.into_iter().find(|n| !seen.insert(*n))
}

/// A `completion/complete` request, decoded.
///
/// ```
/// use snodo_std::typed::{CompletionQuery, CompletionTarget};
///
/// let q = CompletionQuery {
///     target: CompletionTarget::Prompt("greet".into()),
///     argument: "name".into(),
///     value: "A".into(),
/// };
/// assert!("Ada".starts_with(&q.value));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionQuery {
    /// What is completed: a prompt's name or a template's URI template.
    pub target: CompletionTarget,
    /// The argument (or template variable) being completed.
    pub argument: String,
    /// What the user has typed so far.
    pub value: String,
}

/// What a completion refers to.
///
/// ```
/// use snodo_std::typed::CompletionTarget;
///
/// let t = CompletionTarget::Resource("greeting://{name}".into());
/// assert!(matches!(t, CompletionTarget::Resource(u) if u.starts_with("greeting")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionTarget {
    /// A prompt, by name.
    Prompt(String),
    /// A resource template, by URI template.
    Resource(String),
}

type Complete = Box<dyn Fn(&CompletionQuery) -> Vec<String> + Send + Sync>;

/// The application a typed [`ServerBuilder`] builds: the definitions and their handlers.
/// Cloning it shares them, so a server can be made again around the same definitions with
/// other state keys (a key-ring reload) without building them anew.
///
/// ```
/// use snodo_core::server::{Registry, Server};
///
/// let server = snodo_std::typed::server("s", "1.0.0").build().unwrap();
/// let app: &snodo_std::typed::TypedApp = server.app();
/// assert!(app.tools().is_empty());
/// let again = Server::new(*server.config(), app.clone()).unwrap();
/// # let _ = again;
/// ```
#[derive(Clone, Debug, Default)]
pub struct TypedApp(Arc<Definitions>);

/// The definitions, each with its handler.
#[derive(Default)]
struct Definitions {
    tools: Vec<Tool<'static>>,
    tool_runs: Vec<ToolEntry>,
    resources: Vec<Resource<'static>>,
    resource_runs: Vec<ResourceEntry>,
    templates: Vec<ResourceTemplate<'static>>,
    template_runs: Vec<TemplateEntry>,
    prompts: Vec<Prompt<'static>>,
    prompt_runs: Vec<PromptEntry>,
    complete: Option<Complete>,
    shared: Shared,
}

impl std::fmt::Debug for Definitions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Definitions")
            .field("tools", &self.tools)
            .field("resources", &self.resources)
            .field("templates", &self.templates)
            .field("prompts", &self.prompts)
            .finish_non_exhaustive()
    }
}

/// The position of `item` in `items` (the core hands back the definition it routed to).
fn index_of<T>(items: &[T], item: &T) -> Option<usize> {
    items.iter().position(|i| std::ptr::eq(i, item))
}

/// The handler entry at `index` (definitions and entries are pushed together).
fn entry<E>(entries: &[E], index: Option<usize>) -> Result<&E, Error> {
    index
        .and_then(|i| entries.get(i))
        .ok_or(Error::internal("no handler for this definition"))
}

impl Registry for TypedApp {
    fn tools(&self) -> &[Tool<'_>] {
        &self.0.tools
    }

    fn resources(&self) -> &[Resource<'_>] {
        &self.0.resources
    }

    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        &self.0.templates
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        &self.0.prompts
    }

    fn completions(&self) -> bool {
        self.0.complete.is_some()
    }
}

impl AsyncHandler for TypedApp {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let entry = entry(&self.0.tool_runs, index_of(&self.0.tools, call.tool()))?;
        entry.run.run(call, reply, &self.0.shared).await
    }

    async fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.target() {
            ResourceTarget::Fixed(r) => {
                let entry = entry(&self.0.resource_runs, index_of(&self.0.resources, r))?;
                entry
                    .run
                    .run(call, reply, &[], entry.def.mime_type, &self.0.shared)
                    .await
            }
            ResourceTarget::Template(t) => {
                let entry = entry(&self.0.template_runs, index_of(&self.0.templates, t))?;
                entry
                    .run
                    .run(
                        call,
                        reply,
                        &entry.vars,
                        entry.def.mime_type,
                        &self.0.shared,
                    )
                    .await
            }
        }
    }

    async fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let entry = entry(
            &self.0.prompt_runs,
            index_of(&self.0.prompts, call.prompt()),
        )?;
        entry.run.run(call, reply, &self.0.shared).await
    }

    async fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let Some(complete) = &self.0.complete else {
            return Ok(reply.values(&[], false));
        };
        let text = |s: snodo_core::json::JsonStr<'_>| s.chars().collect::<String>();
        let query = CompletionQuery {
            target: match call.reference() {
                CompletionRef::Prompt(name) => CompletionTarget::Prompt(text(name)),
                CompletionRef::Resource(uri) => CompletionTarget::Resource(text(uri)),
            },
            argument: text(call.argument_name()),
            value: text(call.argument_value()),
        };
        let values = complete(&query);
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        Ok(reply.values(&values, false))
    }
}
