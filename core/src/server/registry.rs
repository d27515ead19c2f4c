//! What an application offers: tools, resources, resource templates and prompts.
//!
//! Definitions are plain data with borrowed strings, so firmware can keep them in `static`s
//! and hosts can build them at start-up. JSON members (`inputSchema`, `annotations`, `icons`,
//! `_meta`, ...) are JSON text that is copied verbatim into lists; [`crate::server::Server::check`] verifies it
//! once so a bad definition is found at start-up, not on the wire.

use super::{ListChanged, ServerCapabilities};

/// A tool definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tool<'r> {
    /// Unique name.
    pub name: &'r str,
    /// Display title.
    pub title: Option<&'r str>,
    /// What the tool does, for the model.
    pub description: Option<&'r str>,
    /// JSON Schema of the arguments (JSON text, an object schema).
    pub input_schema: &'r str,
    /// JSON Schema of `structuredContent` (JSON text), when the tool returns structured data.
    pub output_schema: Option<&'r str>,
    /// `annotations` (JSON text, an object).
    pub annotations: Option<&'r str>,
    /// `icons` (JSON text, an array of `Icon` objects: `src`, and optionally `mimeType`,
    /// `sizes`, `theme`).
    pub icons: Option<&'r str>,
    /// `_meta` (JSON text, an object).
    pub meta: Option<&'r str>,
    /// Whether a call may run as a task of the Tasks extension (served with feature
    /// `tasks`; without it no call becomes a task, and a tool that requires one answers
    /// -32021 to every call).
    pub task_support: TaskSupport,
}

/// Whether a tool's calls may run as tasks (`io.modelcontextprotocol/tasks`).
///
/// The server decides per call: a tool that supports tasks runs as one only when the request
/// declares the extension; to any other request it is an ordinary tool ([`Optional`]) or
/// answers -32021 naming the extension ([`Required`]).
///
/// [`Optional`]: TaskSupport::Optional
/// [`Required`]: TaskSupport::Required
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskSupport {
    /// Every call answers in its own request (the default).
    #[default]
    Forbidden,
    /// A call may become a task when its request declares the extension.
    Optional,
    /// Every call must become a task: a request that does not declare the extension is
    /// refused before the handler runs.
    Required,
}

impl<'r> Tool<'r> {
    /// A tool with no arguments.
    pub const fn new(name: &'r str) -> Self {
        Tool {
            name,
            title: None,
            description: None,
            input_schema: r#"{"type":"object"}"#,
            output_schema: None,
            annotations: None,
            icons: None,
            meta: None,
            task_support: TaskSupport::Forbidden,
        }
    }

    /// With an input schema (JSON text).
    #[must_use]
    pub const fn input_schema(mut self, schema: &'r str) -> Self {
        self.input_schema = schema;
        self
    }

    /// With task support (see [`TaskSupport`]).
    #[must_use]
    pub const fn task_support(mut self, support: TaskSupport) -> Self {
        self.task_support = support;
        self
    }
}

optional_text!(Tool {
    /// With a display title.
    title,
    /// With a description, for the model.
    description,
    /// With an output schema (JSON text).
    output_schema,
    /// With annotations (JSON text, an object).
    annotations,
    /// With icons (JSON text, an array of `Icon` objects).
    icons,
    /// With `_meta` (JSON text, an object).
    meta,
});

/// A resource with a fixed URI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource<'r> {
    /// The URI.
    pub uri: &'r str,
    /// Programmatic name.
    pub name: &'r str,
    /// Display title.
    pub title: Option<&'r str>,
    /// Description.
    pub description: Option<&'r str>,
    /// MIME type.
    pub mime_type: Option<&'r str>,
    /// Size in bytes of the raw content, when known.
    pub size: Option<u64>,
    /// `annotations` (JSON text, an object: `audience`, `priority`, `lastModified`).
    pub annotations: Option<&'r str>,
    /// `icons` (JSON text, an array of `Icon` objects).
    pub icons: Option<&'r str>,
    /// `_meta` (JSON text, an object).
    pub meta: Option<&'r str>,
}

impl<'r> Resource<'r> {
    /// A resource at `uri` named `name`.
    pub const fn new(uri: &'r str, name: &'r str) -> Self {
        Resource {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }

    /// With the size of the raw content, in bytes.
    #[must_use]
    pub const fn size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }
}

/// A family of resources named by an RFC 6570 URI template (`{var}` and `{+var}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceTemplate<'r> {
    /// The URI template.
    pub uri_template: &'r str,
    /// Programmatic name.
    pub name: &'r str,
    /// Display title.
    pub title: Option<&'r str>,
    /// Description.
    pub description: Option<&'r str>,
    /// MIME type.
    pub mime_type: Option<&'r str>,
    /// `annotations` (JSON text, an object).
    pub annotations: Option<&'r str>,
    /// `icons` (JSON text, an array of `Icon` objects).
    pub icons: Option<&'r str>,
    /// `_meta` (JSON text, an object).
    pub meta: Option<&'r str>,
}

impl<'r> ResourceTemplate<'r> {
    /// A template named `name`.
    pub const fn new(uri_template: &'r str, name: &'r str) -> Self {
        ResourceTemplate {
            uri_template,
            name,
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: None,
            meta: None,
        }
    }
}

optional_text!([Resource, ResourceTemplate] {
    /// With a display title.
    title,
    /// With a description.
    description,
    /// With a MIME type.
    mime_type,
    /// With annotations (JSON text, an object).
    annotations,
    /// With icons (JSON text, an array of `Icon` objects).
    icons,
    /// With `_meta` (JSON text, an object).
    meta,
});

/// A prompt argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PromptArgument<'r> {
    /// Name.
    pub name: &'r str,
    /// Display title.
    pub title: Option<&'r str>,
    /// Description.
    pub description: Option<&'r str>,
    /// Whether `prompts/get` must supply it.
    pub required: bool,
}

impl<'r> PromptArgument<'r> {
    /// An optional argument.
    pub const fn optional(name: &'r str) -> Self {
        PromptArgument {
            name,
            title: None,
            description: None,
            required: false,
        }
    }

    /// A required argument.
    pub const fn required(name: &'r str) -> Self {
        PromptArgument {
            name,
            title: None,
            description: None,
            required: true,
        }
    }
}

optional_text!(PromptArgument {
    /// With a display title.
    title,
    /// With a description.
    description,
});

/// A prompt definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt<'r> {
    /// Unique name.
    pub name: &'r str,
    /// Display title.
    pub title: Option<&'r str>,
    /// Description.
    pub description: Option<&'r str>,
    /// Arguments.
    pub arguments: &'r [PromptArgument<'r>],
    /// `icons` (JSON text, an array of `Icon` objects).
    pub icons: Option<&'r str>,
    /// `_meta` (JSON text, an object).
    pub meta: Option<&'r str>,
}

impl<'r> Prompt<'r> {
    /// A prompt with no arguments.
    pub const fn new(name: &'r str) -> Self {
        Prompt {
            name,
            title: None,
            description: None,
            arguments: &[],
            icons: None,
            meta: None,
        }
    }

    /// With arguments.
    #[must_use]
    pub const fn arguments(mut self, arguments: &'r [PromptArgument<'r>]) -> Self {
        self.arguments = arguments;
        self
    }
}

optional_text!(Prompt {
    /// With a display title.
    title,
    /// With a description.
    description,
    /// With icons (JSON text, an array of `Icon` objects).
    icons,
    /// With `_meta` (JSON text, an object).
    meta,
});

/// The catalogue an application serves. Lists are answered from it by the core.
pub trait Registry {
    /// Tools, in the deterministic order `tools/list` returns them.
    fn tools(&self) -> &[Tool<'_>] {
        &[]
    }

    /// Resources with fixed URIs.
    fn resources(&self) -> &[Resource<'_>] {
        &[]
    }

    /// Resource templates.
    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        &[]
    }

    /// Prompts.
    fn prompts(&self) -> &[Prompt<'_>] {
        &[]
    }

    /// Whether `completion/complete` is offered.
    fn completions(&self) -> bool {
        false
    }

    /// The advertised capabilities; by default, each family that has entries.
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: !self.tools().is_empty(),
            resources: !self.resources().is_empty() || !self.resource_templates().is_empty(),
            prompts: !self.prompts().is_empty(),
            completions: self.completions(),
            logging: false,
            list_changed: ListChanged::NONE,
            subscribe: false,
        }
    }
}
