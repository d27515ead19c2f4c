//! Definitions with their handlers, each built in one expression: `tool(..)`, `resource(..)`,
//! `template(..)` and `prompt(..)`, ending with the handler (`run`, `read`, `render`).

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use snodo_core::server::{Prompt, PromptArgument, Resource, ResourceTemplate, TaskSupport, Tool};

use super::context::Stop;
use super::handler::{Handler, RunPrompt, RunResource, RunTool, Typed};
use super::output::{PromptMessages, ResourceOutput, ToolOutput};
use super::question::Question;
use super::schema::{leak, schema_of, static_text};

/// Problems found while a definition was built, reported by the server builder.
pub(crate) type Problems = Vec<String>;

/// A definition builder (the definition and the problems found so far, optional text setters
/// and `asks`) and the entry it ends as (the definition with its erased handler).
macro_rules! definition {
    (
        $(#[doc = $builder_doc:literal])* $builder:ident,
        $(#[doc = $entry_doc:literal])* $entry:ident { $($field:ident: $field_type:ty),* $(,)? },
        $def:ident { $($(#[doc = $doc:literal])* $setter:ident),* $(,)? }
    ) => {
        $(#[doc = $builder_doc])*
        #[derive(Debug)]
        pub struct $builder {
            def: $def<'static>,
            problems: Problems,
        }

        impl $builder {
            $(
                $(#[doc = $doc])*
                #[must_use]
                pub fn $setter(mut self, $setter: impl Into<Cow<'static, str>>) -> Self {
                    self.def = self.def.$setter(static_text($setter));
                    self
                }
            )*

            /// Lists a question the handler asks, so a refusal names this definition too
            /// (`build` checks every question of the binary either way).
            #[must_use]
            pub fn asks(mut self, question: &impl Question) -> Self {
                self.problems.extend(question.problem());
                self
            }
        }

        $(#[doc = $entry_doc])*
        pub struct $entry {
            pub(crate) def: $def<'static>,
            $(pub(crate) $field: $field_type,)*
            pub(crate) problems: Problems,
        }

        impl std::fmt::Debug for $entry {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($entry))
                    .field("def", &self.def)
                    .finish_non_exhaustive()
            }
        }
    };
}

definition!(
    /// A tool being defined (see [`tool`]).
    ///
    /// ```
    /// let builder = snodo_std::typed::tool("echo").title("Echo").annotations(r#"{"readOnlyHint":true}"#);
    /// # let _ = builder;
    /// ```
    ToolBuilder,
    /// A tool with its handler, ready for [`ServerBuilder::tool`](super::ServerBuilder::tool).
    ///
    /// ```
    /// use snodo_std::typed::{Cx, NoArgs, Stop, ToolEntry, tool};
    ///
    /// async fn ping(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> { Ok("pong") }
    /// let entry: ToolEntry = tool("ping").run(ping);
    /// # let _ = entry;
    /// ```
    ToolEntry { run: Box<dyn RunTool> },
    Tool {
        /// With a display title.
        title,
        /// With a description, for the model.
        description,
        /// With annotations (JSON text, an object).
        annotations,
        /// With icons (JSON text, an array of `Icon` objects).
        icons,
        /// With `_meta` (JSON text, an object).
        meta,
    }
);

/// Starts a tool definition.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use snodo_std::typed::{Cx, Stop, tool};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Echo {
///     /// The text to return
///     text: String,
/// }
///
/// async fn echo(args: Echo, _cx: Cx<'_>) -> Result<String, Stop> {
///     Ok(args.text)
/// }
///
/// let echo = tool("echo").description("Returns the text it is given.").run(echo);
/// # let _ = echo;
/// ```
pub fn tool(name: impl Into<Cow<'static, str>>) -> ToolBuilder {
    ToolBuilder {
        def: Tool::new(static_text(name)),
        problems: Vec::new(),
    }
}

impl ToolBuilder {
    /// Whether calls may run as tasks of the Tasks extension (default
    /// [`TaskSupport::Forbidden`]). A tool that supports tasks becomes one whenever a
    /// request declares the extension, and its function runs as the task's work
    /// ([`Cx::in_task`](super::Cx::in_task)); to other requests an
    /// [`Optional`](TaskSupport::Optional) tool answers in the request, a
    /// [`Required`](TaskSupport::Required) one -32021.
    ///
    /// ```
    /// use snodo_core::server::TaskSupport;
    /// let builder = snodo_std::typed::tool("report").task_support(TaskSupport::Optional);
    /// # let _ = builder;
    /// ```
    #[must_use]
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.def = self.def.task_support(support);
        self
    }

    /// Ends the definition with its handler: an `async fn(A, Cx<'_>) -> Result<R, Stop>`.
    /// The input schema is generated from `A`, the output schema from `R` when it is
    /// [`Structured`](super::Structured).
    pub fn run<F, A, R>(mut self, handler: F) -> ToolEntry
    where
        F: for<'a> Handler<'a, A, Output = Result<R, Stop>>,
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: ToolOutput + 'static,
    {
        let input = schema_of::<A>();
        if input.get("type").and_then(|t| t.as_str()) != Some("object") {
            self.problems.push(
                "the argument type's schema is not an object (use a struct or NoArgs)".to_owned(),
            );
        }
        self.def = self.def.input_schema(leak(input.to_string()));
        if let Some(output) = R::output_schema() {
            self.def = self.def.output_schema(leak(output.to_string()));
        }
        ToolEntry {
            def: self.def,
            run: Box::new(Typed::<F, A, R>::new(handler)),
            problems: self.problems,
        }
    }
}

definition!(
    /// A resource being defined (see [`resource`]).
    ///
    /// ```
    /// let builder = snodo_std::typed::resource("x://about", "about").mime_type("text/plain");
    /// # let _ = builder;
    /// ```
    ResourceBuilder,
    /// A resource with its handler.
    ///
    /// ```
    /// use snodo_std::typed::{Cx, NoArgs, ResourceEntry, Stop, resource};
    ///
    /// async fn about(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> { Ok("about") }
    /// let entry: ResourceEntry = resource("x://about", "about").read(about);
    /// # let _ = entry;
    /// ```
    ResourceEntry { run: Box<dyn RunResource> },
    Resource {
        /// With a display title.
        title,
        /// With a description.
        description,
        /// With a MIME type (also the MIME type of text the handler returns).
        mime_type,
        /// With annotations (JSON text, an object).
        annotations,
        /// With icons (JSON text, an array of `Icon` objects).
        icons,
        /// With `_meta` (JSON text, an object).
        meta,
    }
);

/// Starts a resource at a fixed URI.
///
/// ```
/// use snodo_std::typed::{Cx, NoArgs, Stop, resource};
///
/// async fn about(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
///     Ok("A demonstration server.")
/// }
///
/// let about = resource("preview://about", "about").mime_type("text/plain").read(about);
/// # let _ = about;
/// ```
pub fn resource(
    uri: impl Into<Cow<'static, str>>,
    name: impl Into<Cow<'static, str>>,
) -> ResourceBuilder {
    ResourceBuilder {
        def: Resource::new(static_text(uri), static_text(name)),
        problems: Vec::new(),
    }
}

impl ResourceBuilder {
    /// Ends the definition with its handler, which takes [`NoArgs`](super::NoArgs).
    pub fn read<F, A, R>(self, handler: F) -> ResourceEntry
    where
        F: for<'a> Handler<'a, A, Output = Result<R, Stop>>,
        A: DeserializeOwned + Send + 'static,
        R: ResourceOutput + 'static,
    {
        ResourceEntry {
            def: self.def,
            run: Box::new(Typed::<F, A, R>::new(handler)),
            problems: self.problems,
        }
    }
}

definition!(
    /// A resource template being defined (see [`template`]).
    ///
    /// ```
    /// let builder = snodo_std::typed::template("x://{id}", "item").description("An item");
    /// # let _ = builder;
    /// ```
    TemplateBuilder,
    /// A resource template with its handler.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use snodo_std::typed::{Cx, Stop, TemplateEntry, template};
    ///
    /// #[derive(Deserialize)]
    /// struct Item { id: String }
    /// async fn item(i: Item, _cx: Cx<'_>) -> Result<Option<String>, Stop> { Ok(Some(i.id)) }
    /// let entry: TemplateEntry = template("x://{id}", "item").read(item);
    /// # let _ = entry;
    /// ```
    TemplateEntry { vars: Vec<&'static str>, run: Box<dyn RunResource> },
    ResourceTemplate {
        /// With a display title.
        title,
        /// With a description.
        description,
        /// With a MIME type (also the MIME type of text the handler returns).
        mime_type,
        /// With annotations (JSON text, an object).
        annotations,
        /// With icons (JSON text, an array of `Icon` objects).
        icons,
        /// With `_meta` (JSON text, an object).
        meta,
    }
);

/// Starts a resource template (RFC 6570 `{var}` and `{+var}`); its handler takes a struct of
/// the template's variables.
///
/// ```
/// use serde::Deserialize;
/// use snodo_std::typed::{Cx, Stop, template};
///
/// #[derive(Deserialize)]
/// struct Person { name: String }
///
/// async fn greeting(p: Person, _cx: Cx<'_>) -> Result<String, Stop> {
///     Ok(format!("Hello, {}!", p.name))
/// }
///
/// let greeting = template("greeting://{name}", "greeting").read(greeting);
/// # let _ = greeting;
/// ```
pub fn template(
    uri_template: impl Into<Cow<'static, str>>,
    name: impl Into<Cow<'static, str>>,
) -> TemplateBuilder {
    TemplateBuilder {
        def: ResourceTemplate::new(static_text(uri_template), static_text(name)),
        problems: Vec::new(),
    }
}

impl TemplateBuilder {
    /// Ends the definition with its handler, which takes the template's variables as a
    /// struct (a URI whose variables do not decode is "Resource not found").
    pub fn read<F, A, R>(self, handler: F) -> TemplateEntry
    where
        F: for<'a> Handler<'a, A, Output = Result<R, Stop>>,
        A: DeserializeOwned + Send + 'static,
        R: ResourceOutput + 'static,
    {
        TemplateEntry {
            vars: variables(self.def.uri_template),
            def: self.def,
            run: Box::new(Typed::<F, A, R>::new(handler)),
            problems: self.problems,
        }
    }
}

/// The names of a URI template's variables.
fn variables(uri_template: &'static str) -> Vec<&'static str> {
    uri_template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}'))
        .map(|(name, _)| name.trim_start_matches('+'))
        .collect()
}

definition!(
    /// A prompt being defined (see [`prompt`]).
    ///
    /// ```
    /// let builder = snodo_std::typed::prompt("greet").title("Greet someone");
    /// # let _ = builder;
    /// ```
    PromptBuilder,
    /// A prompt with its handler.
    ///
    /// ```
    /// use snodo_std::typed::{Cx, NoArgs, PromptEntry, PromptMessages, Stop, prompt};
    ///
    /// async fn hello(_: NoArgs, _cx: Cx<'_>) -> Result<PromptMessages, Stop> {
    ///     Ok(PromptMessages::new().user("Say hello."))
    /// }
    /// let entry: PromptEntry = prompt("hello").render(hello);
    /// # let _ = entry;
    /// ```
    PromptEntry { run: Box<dyn RunPrompt> },
    Prompt {
        /// With a display title.
        title,
        /// With a description.
        description,
        /// With icons (JSON text, an array of `Icon` objects).
        icons,
        /// With `_meta` (JSON text, an object).
        meta,
    }
);

/// Starts a prompt; its handler takes a struct of string arguments, from which the prompt's
/// argument list (names, descriptions, which are required) is generated.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use snodo_std::typed::{Cx, PromptMessages, Stop, prompt};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Greet {
///     /// Who to greet
///     name: String,
/// }
///
/// async fn greet(g: Greet, _cx: Cx<'_>) -> Result<PromptMessages, Stop> {
///     Ok(PromptMessages::new().user(format!("Greet {}.", g.name)))
/// }
///
/// let greet = prompt("greet").render(greet);
/// # let _ = greet;
/// ```
pub fn prompt(name: impl Into<Cow<'static, str>>) -> PromptBuilder {
    PromptBuilder {
        def: Prompt::new(static_text(name)),
        problems: Vec::new(),
    }
}

impl PromptBuilder {
    /// Ends the definition with its handler.
    pub fn render<F, A>(mut self, handler: F) -> PromptEntry
    where
        F: for<'a> Handler<'a, A, Output = Result<PromptMessages, Stop>>,
        A: DeserializeOwned + JsonSchema + Send + 'static,
    {
        match prompt_arguments(&schema_of::<A>()) {
            Ok(arguments) => self.def = self.def.arguments(arguments),
            Err(problem) => self.problems.push(problem.to_owned()),
        }
        PromptEntry {
            def: self.def,
            run: Box::new(Typed::<F, A, PromptMessages>::new(handler)),
            problems: self.problems,
        }
    }
}

/// A prompt's arguments from the schema of its argument struct: every property a string.
fn prompt_arguments(
    schema: &serde_json::Value,
) -> Result<&'static [PromptArgument<'static>], &'static str> {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return Ok(&[]);
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(|r| r.as_array())
            .is_some_and(|r| r.iter().any(|n| n == name))
    };
    let mut arguments = Vec::with_capacity(properties.len());
    for (name, property) in properties {
        if property.get("type").and_then(|t| t.as_str()) != Some("string") {
            return Err("prompt arguments must all be strings");
        }
        let name = leak(name.clone());
        let mut argument = if required(name) {
            PromptArgument::required(name)
        } else {
            PromptArgument::optional(name)
        };
        if let Some(d) = property.get("description").and_then(|d| d.as_str()) {
            argument = argument.description(leak(d.to_owned()));
        }
        if let Some(t) = property.get("title").and_then(|t| t.as_str()) {
            argument = argument.title(leak(t.to_owned()));
        }
        arguments.push(argument);
    }
    Ok(Vec::leak(arguments))
}
