//! What the fixture serves: every name, schema, URI and payload the runner's 2026-07-28
//! scenarios look for (see `docs/conformance-notes.md` §3).

use snodo_core::server::{Prompt, PromptArgument, Resource, ResourceTemplate, TaskSupport, Tool};

/// A 1×1 red PNG (`image/png`), base64.
pub const IMAGE_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV file (`audio/wav`), base64.
pub const AUDIO_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Schema of the tools that take no arguments.
pub const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{}}"#;

/// `json_schema_2020_12_tool`'s input schema: the runner checks that `tools/list` carries
/// `$schema`, `$defs`, `additionalProperties`, `allOf`/`anyOf`, `if`/`then`/`else` and
/// `$anchor` verbatim.
pub const JSON_SCHEMA_2020_12: &str = concat!(
    r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","#,
    r#""$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"#,
    r##""properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"##,
    r#""allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"#,
    r#""if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"#,
    r#""then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}"#,
);

/// `test_header_param`'s input schema: one string argument mirrored into `Mcp-Param-Region`.
/// It is the first tool with an `x-mcp-header`, which `http-custom-header-server-validation`
/// picks; it has no other required property.
pub const HEADER_PARAM_SCHEMA: &str = r#"{"type":"object","properties":{"region":{"type":"string","description":"A region, mirrored into the Mcp-Param-Region header","x-mcp-header":"Region"}},"required":["region"]}"#;

/// `greet`'s input schema.
const GREET_SCHEMA: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
/// `slow_compute`'s input schema.
const SLOW_COMPUTE_SCHEMA: &str = r#"{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}"#;
/// `confirm_delete`'s input schema.
const FILENAME_SCHEMA: &str =
    r#"{"type":"object","properties":{"filename":{"type":"string"}},"required":["filename"]}"#;

const fn tool(name: &'static str, description: &'static str) -> Tool<'static> {
    Tool::new(name)
        .description(description)
        .input_schema(NO_ARGUMENTS)
}

/// How many tools are listed before `test_trigger_tool_change` adds `test_dynamic_tool`.
pub const BASE_TOOL_COUNT: usize = 35;

/// Every tool, in list order: `test_simple_text` first (`http-header-validation` calls
/// `tools[0]` with empty arguments), `test_dynamic_tool` last (listed only while toggled on).
pub const TOOLS: [Tool<'static>; BASE_TOOL_COUNT + 1] = [
    tool("test_simple_text", "Returns a simple text content block"),
    tool("test_image_content", "Returns an image content block"),
    tool("test_audio_content", "Returns an audio content block"),
    tool(
        "test_embedded_resource",
        "Returns an embedded text resource",
    ),
    tool(
        "test_multiple_content_types",
        "Returns text, image and resource content blocks together",
    ),
    tool(
        "test_tool_with_progress",
        "Reports progress three times, then returns the progress token",
    ),
    tool(
        "test_error_handling",
        "Returns a tool error result (isError: true)",
    ),
    Tool::new("json_schema_2020_12_tool")
        .description("A tool whose input schema uses JSON Schema 2020-12 keywords")
        .input_schema(JSON_SCHEMA_2020_12),
    Tool::new("test_header_param")
        .description("Echoes a region that the client mirrors into the Mcp-Param-Region header")
        .input_schema(HEADER_PARAM_SCHEMA),
    tool(
        "test_missing_capability",
        "Needs the client's sampling capability; -32021 without it",
    ),
    tool(
        "test_streaming_elicitation",
        "Asks for a confirmation through input_required, never through a request on the stream",
    ),
    tool(
        "test_logging_tool",
        "Logs only when the request asked for a log level",
    ),
    tool(
        "test_trigger_tool_change",
        "Toggles test_dynamic_tool and announces that the tool list changed",
    ),
    tool(
        "test_trigger_prompt_change",
        "Announces that the prompt list changed",
    ),
    tool(
        "test_input_required_result_elicitation",
        "MRTR: asks for the user's name (form elicitation), no request state",
    ),
    tool(
        "test_input_required_result_sampling",
        "MRTR: asks the client to sample a model message",
    ),
    tool(
        "test_input_required_result_list_roots",
        "MRTR: asks for the client's roots",
    ),
    tool(
        "test_input_required_result_request_state",
        "MRTR: asks for a confirmation with sealed request state",
    ),
    tool(
        "test_input_required_result_multiple_inputs",
        "MRTR: asks for an elicitation, a sampled message and the roots at once",
    ),
    tool(
        "test_input_required_result_multi_round",
        "MRTR: two rounds of elicitation, the first answer carried in sealed state",
    ),
    tool(
        "test_input_required_result_tampered_state",
        "MRTR: refuses request state that does not verify",
    ),
    tool(
        "test_input_required_result_capabilities",
        "MRTR: asks only for what this request's client capabilities allow",
    ),
    tool(
        "test_tool_with_logging",
        "Logs three info messages about 50 ms apart (2025-11-25 scenarios)",
    ),
    Tool::new("test_sampling")
        .description("Samples the prompt once through the client (2025-11-25 scenarios)")
        .input_schema(r#"{"type":"object","properties":{"prompt":{"type":"string"}},"required":["prompt"]}"#),
    Tool::new("test_elicitation")
        .description("Asks the user for a username and an email (2025-11-25 scenarios)")
        .input_schema(r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#),
    tool(
        "test_elicitation_sep1034_defaults",
        "Asks with a form that has a default for every primitive type (SEP-1034)",
    ),
    tool(
        "test_elicitation_sep1330_enums",
        "Asks with a form of all five enum shapes (SEP-1330)",
    ),
    tool(
        "test_reconnection",
        "Answers after a short pause, for SSE polling and resumption (SEP-1699)",
    ),
    Tool::new("greet")
        .description("Greets by name, in the request (sync-only)")
        .input_schema(GREET_SCHEMA),
    Tool::new("slow_compute")
        .description("Sleeps the given seconds, then answers; a task when the client takes tasks")
        .input_schema(SLOW_COMPUTE_SCHEMA)
        .task_support(TaskSupport::Optional),
    tool("failing_job", "Runs only as a task, and ends with a tool error").task_support(TaskSupport::Required),
    tool("protocol_error_job", "Fails with a JSON-RPC error").task_support(TaskSupport::Optional),
    Tool::new("confirm_delete")
        .description("Asks to confirm before deleting a file")
        .input_schema(FILENAME_SCHEMA)
        .task_support(TaskSupport::Optional),
    tool("multi_input", "Asks two questions at once").task_support(TaskSupport::Optional),
    tool(
        "test_tool_with_task",
        "Asks for a name in the request, then becomes a task that greets it",
    )
    .task_support(TaskSupport::Required),
    tool(
        "test_dynamic_tool",
        "Listed while test_trigger_tool_change has toggled it on",
    ),
];

/// `test://static-text`
pub const STATIC_TEXT_URI: &str = "test://static-text";
/// `test://static-binary`
pub const STATIC_BINARY_URI: &str = "test://static-binary";
/// `test://watched-resource`
pub const WATCHED_URI: &str = "test://watched-resource";

/// Fixed resources; the first one is readable (`caching` reads `resources[0]`).
pub const RESOURCES: &[Resource<'static>] = &[
    Resource {
        title: Some("Static Text Resource"),
        ..Resource::new(STATIC_TEXT_URI, "static-text")
            .description("A static text resource for testing")
            .mime_type("text/plain")
    },
    Resource {
        title: Some("Static Binary Resource"),
        ..Resource::new(STATIC_BINARY_URI, "static-binary")
            .description("A static binary resource (a PNG image) for testing")
            .mime_type("image/png")
    },
    Resource {
        title: Some("Watched Resource"),
        ..Resource::new(WATCHED_URI, "watched-resource")
            .description("A text resource for subscription tests")
            .mime_type("text/plain")
    },
];

/// The template `resources-templates-read` reads as `test://template/123/data`.
pub const TEMPLATES: &[ResourceTemplate<'static>] =
    &[
        ResourceTemplate::new("test://template/{id}/data", "template")
            .description("A resource template with parameter substitution")
            .mime_type("application/json"),
    ];

const ARGS_WITH_ARGUMENTS: &[PromptArgument<'static>] = &[
    PromptArgument::required("arg1").description("First test argument"),
    PromptArgument::required("arg2").description("Second test argument"),
];

const ARGS_EMBEDDED: &[PromptArgument<'static>] =
    &[PromptArgument::required("resourceUri").description("URI of the resource to embed")];

/// Every prompt, each with a description.
pub const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("test_simple_prompt").description("A simple prompt without arguments"),
    Prompt::new("test_prompt_with_arguments")
        .description("A prompt with required arguments")
        .arguments(ARGS_WITH_ARGUMENTS),
    Prompt::new("test_prompt_with_embedded_resource")
        .description("A prompt that includes an embedded resource")
        .arguments(ARGS_EMBEDDED),
    Prompt::new("test_prompt_with_image").description("A prompt that includes image content"),
    Prompt::new("test_input_required_result_prompt")
        .description("MRTR: prompt that requires elicitation input"),
];

/// Values `completion/complete` offers for `test_prompt_with_arguments`, filtered by prefix.
pub const COMPLETIONS: &[&str] = &["testValue1", "testValue2", "other"];
