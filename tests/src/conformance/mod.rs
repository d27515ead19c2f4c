//! The fixture server the official conformance runner (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12) tests at revision 2026-07-28, built on the public API of `snodo-core` and
//! `snodo-std` only, as a user's server would be.
//!
//! [`ConformanceApp`] serves every tool, resource, template, prompt and completion the
//! runner's server scenarios call, with the exact names and texts of
//! `docs/conformance-notes.md` §3: content of every kind, progress, a tool error result, the
//! JSON Schema 2020-12 and `x-mcp-header` tools, a tool that needs sampling (-32021 without
//! it), logging only on request, list-changed triggers published on an [`EventBus`] for
//! `subscriptions/listen` streams, and the MRTR (`input_required`) flows with sealed state.
//! The binary `conformance-server` serves it over Streamable HTTP.

mod catalogue;
mod legacy;
mod mrtr;
mod tasks;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use snodo_core::protocol::LogLevel;
use snodo_core::server::{
    Completion, CompletionRef, CompletionReply, Config, Done, Error, ListChanged, PromptGet,
    PromptReply, ResourceRead, ResourceReply, ResourceTarget, ServerCapabilities, ToolCall,
    ToolReply,
};
use snodo_std::AsyncHandler;

use crate::catalogue::Catalogue;
use snodo_std::events::{EventBus, ServerEvent};

pub use catalogue::{AUDIO_WAV, IMAGE_PNG, JSON_SCHEMA_2020_12, TOOLS};

/// The name in `_meta["io.modelcontextprotocol/serverInfo"]`.
pub const SERVER_NAME: &str = "snodo-conformance-fixture";

/// The fixture's configuration: its identity and process-lifetime state keys.
pub fn config() -> Config<'static> {
    Config::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
        .with_state(snodo_std::process_state_options())
}

/// The application the conformance runner tests.
#[derive(Debug)]
pub struct ConformanceApp {
    events: EventBus,
    dynamic_tool: AtomicBool,
}

impl ConformanceApp {
    /// An application that announces list changes on `events`.
    pub fn new(events: EventBus) -> Self {
        ConformanceApp {
            events,
            dynamic_tool: AtomicBool::new(false),
        }
    }

    /// Whether `test_dynamic_tool` is listed now.
    pub fn dynamic_tool(&self) -> bool {
        self.dynamic_tool.load(Ordering::SeqCst)
    }

    async fn tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        match call.name() {
            "test_simple_text" => Ok(reply.text("This is a simple text response for testing.")),
            "test_image_content" => Ok(reply.content(|c| {
                c.image(IMAGE_PNG, "image/png");
            })),
            "test_audio_content" => Ok(reply.content(|c| {
                c.audio(AUDIO_WAV, "audio/wav");
            })),
            "test_embedded_resource" => Ok(reply.content(|c| {
                c.embedded_text(
                    "test://embedded-resource",
                    Some("text/plain"),
                    "This is an embedded resource content.",
                );
            })),
            "test_multiple_content_types" => Ok(reply.content(|c| {
                c.text("Multiple content types test:")
                    .image(IMAGE_PNG, "image/png")
                    .embedded_text(
                        "test://mixed-content-resource",
                        Some("application/json"),
                        r#"{"test":"data","value":123}"#,
                    );
            })),
            "test_tool_with_progress" => progress(call, reply).await,
            "test_error_handling" => {
                Ok(reply.error_text("This tool intentionally returns an error for testing"))
            }
            "json_schema_2020_12_tool" => {
                let args = String::from_utf8_lossy(call.arguments().as_value().raw()).into_owned();
                Ok(reply.text_fmt(format_args!("JSON Schema 2020-12 tool called with: {args}")))
            }
            "test_header_param" => {
                let region = call
                    .argument("region")
                    .and_then(|r| r.as_str())
                    .map_or_else(String::new, mrtr::text_of);
                Ok(reply.text_fmt(format_args!("region={region}")))
            }
            "test_missing_capability" => mrtr::missing_capability(call, reply),
            "test_streaming_elicitation" => mrtr::streaming_elicitation(call, reply),
            "test_logging_tool" => {
                let mut reply = reply;
                reply
                    .log(
                        LogLevel::Info,
                        Some("conformance"),
                        format_args!("Diagnostic trace logging activated"),
                    )
                    .map_err(|_| Error::internal("the log message does not fit"))?;
                Ok(reply.text("Logging evaluated"))
            }
            "test_trigger_tool_change" => {
                self.dynamic_tool.fetch_xor(true, Ordering::SeqCst);
                let streams = self.events.publish(ServerEvent::ToolsListChanged);
                tracing::debug!(streams, "tools list changed");
                Ok(reply.text("Tool list changed"))
            }
            "test_trigger_prompt_change" => {
                let streams = self.events.publish(ServerEvent::PromptsListChanged);
                tracing::debug!(streams, "prompts list changed");
                Ok(reply.text("Prompt list changed"))
            }
            "test_input_required_result_elicitation" => mrtr::elicitation(call, reply),
            "test_input_required_result_sampling" => mrtr::sampling_tool(call, reply),
            "test_input_required_result_list_roots" => mrtr::list_roots(call, reply),
            "test_input_required_result_request_state" => mrtr::request_state(call, reply),
            "test_input_required_result_multiple_inputs" => mrtr::multiple_inputs(call, reply),
            "test_input_required_result_multi_round" => mrtr::multi_round(call, reply),
            "test_input_required_result_tampered_state" => mrtr::tampered_state(call, reply),
            "test_input_required_result_capabilities" => mrtr::capabilities(call, reply),
            "test_tool_with_logging" => legacy::logging(reply).await,
            "test_sampling" => legacy::sampling(call, reply),
            "test_elicitation" => legacy::elicitation(call, reply),
            "test_elicitation_sep1034_defaults" => legacy::defaults(call, reply),
            "test_elicitation_sep1330_enums" => legacy::enums(call, reply),
            "test_reconnection" => legacy::reconnection(reply).await,
            "greet" => tasks::greet(call, reply),
            "slow_compute" => tasks::slow_compute(call, reply).await,
            "failing_job" => tasks::failing_job(call, reply).await,
            "protocol_error_job" => tasks::protocol_error_job(call, reply),
            "confirm_delete" => tasks::confirm_delete(call, reply),
            "multi_input" => tasks::multi_input(call, reply),
            "test_tool_with_task" => tasks::with_task(call, reply),
            "test_dynamic_tool" if self.dynamic_tool() => Ok(reply.text("dynamic")),
            _ => Err(Error::invalid_params("Unknown tool")),
        }
    }
}

/// `test_tool_with_progress`: progress 0, 50 and 100 of 100, about 50 ms apart, then the
/// progress token as text. Without a token, no progress and the text `no-token`.
async fn progress<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let mut reply = reply;
    let Some(token) = call.progress_token() else {
        return Ok(reply.text("no-token"));
    };
    for (i, step) in [0u32, 50, 100].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let message = format!("Completed step {step} of 100");
        reply
            .progress(f64::from(step), Some(100.0), Some(&message))
            .map_err(|_| Error::internal("the progress notification does not fit"))?;
    }
    let token = match token.as_str() {
        Some(s) => mrtr::text_of(s),
        None => String::from_utf8_lossy(token.raw()).into_owned(),
    };
    Ok(reply.text(&token))
}

/// What [`ConformanceApp`] lists; `test_dynamic_tool`, the last tool, only once triggered.
const CATALOGUE: Catalogue = Catalogue::new()
    .tools(&TOOLS)
    .resources(catalogue::RESOURCES)
    .templates(catalogue::TEMPLATES)
    .prompts(catalogue::PROMPTS)
    .with_completions();

/// Every family, logging, and a list-changed notice for each list.
const CAPABILITIES: ServerCapabilities = ServerCapabilities {
    tools: true,
    resources: true,
    prompts: true,
    completions: true,
    logging: true,
    list_changed: ListChanged::ALL,
    subscribe: true,
};

crate::registry!(
    ConformanceApp => CATALOGUE,
    tools(app) = if app.dynamic_tool() {
        CATALOGUE.tools
    } else {
        &CATALOGUE.tools[..catalogue::BASE_TOOL_COUNT]
    },
    capabilities = CAPABILITIES
);

impl AsyncHandler for ConformanceApp {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.tool(call, reply).await
    }

    async fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.target() {
            ResourceTarget::Fixed(r) => match r.uri {
                catalogue::STATIC_TEXT_URI => Ok(reply.text(
                    Some("text/plain"),
                    "This is the content of the static text resource.",
                )),
                catalogue::STATIC_BINARY_URI => Ok(reply.blob(Some("image/png"), IMAGE_PNG)),
                catalogue::WATCHED_URI => {
                    Ok(reply.text(Some("text/plain"), "Watched resource content"))
                }
                _ => Err(Error::internal("a listed resource has no content")),
            },
            ResourceTarget::Template(_) => {
                let Some(id) = call.var("id") else {
                    return Ok(reply.not_found());
                };
                let data = serde_json::json!({
                    "id": id,
                    "templateTest": true,
                    "data": format!("Data for ID: {id}"),
                });
                Ok(reply.text(Some("application/json"), &data.to_string()))
            }
        }
    }

    async fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let arg = |name| call.argument(name).map_or_else(String::new, mrtr::text_of);
        match call.name() {
            "test_simple_prompt" => Ok(reply.messages(None, |m| {
                m.user("This is a simple prompt for testing.");
            })),
            "test_prompt_with_arguments" => {
                let (arg1, arg2) = (arg("arg1"), arg("arg2"));
                Ok(reply.messages(None, |m| {
                    m.text(
                        snodo_core::server::Role::User,
                        format_args!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"),
                    );
                }))
            }
            "test_prompt_with_embedded_resource" => {
                let uri = arg("resourceUri");
                Ok(reply.result(|o| {
                    o.array("messages", |a| {
                        a.object(|m| {
                            m.str("role", "user").object("content", |c| {
                                c.str("type", "resource").object("resource", |r| {
                                    r.str("uri", &uri)
                                        .str("mimeType", "text/plain")
                                        .str("text", "Embedded resource content for testing.");
                                });
                            });
                        });
                        a.object(|m| {
                            m.str("role", "user").object("content", |c| {
                                c.str("type", "text")
                                    .str("text", "Please process the embedded resource above.");
                            });
                        });
                    });
                }))
            }
            "test_prompt_with_image" => Ok(reply.result(|o| {
                o.array("messages", |a| {
                    a.object(|m| {
                        m.str("role", "user").object("content", |c| {
                            c.str("type", "image")
                                .str("data", IMAGE_PNG)
                                .str("mimeType", "image/png");
                        });
                    });
                    a.object(|m| {
                        m.str("role", "user").object("content", |c| {
                            c.str("type", "text")
                                .str("text", "Please analyze the image above.");
                        });
                    });
                });
            })),
            "test_input_required_result_prompt" => mrtr::prompt(call, reply),
            _ => Err(Error::invalid_params("Unknown prompt")),
        }
    }

    async fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let for_arguments = match call.reference() {
            CompletionRef::Prompt(name) => name.eq_str("test_prompt_with_arguments"),
            CompletionRef::Resource(_) => false,
        };
        if !for_arguments {
            return Ok(reply.values(&[], false));
        }
        let typed = mrtr::text_of(call.argument_value());
        let values: Vec<&str> = catalogue::COMPLETIONS
            .iter()
            .copied()
            .filter(|v| v.starts_with(&typed))
            .collect();
        Ok(reply.values(&values, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_core::server::{Registry, Server};

    #[test]
    fn definitions_are_what_the_runner_looks_for() {
        let server = Server::new(config(), ConformanceApp::new(EventBus::new()))
            .expect("the definitions check");
        let app = server.app();
        assert_eq!(app.tools()[0].name, "test_simple_text");
        assert!(app.tools().iter().all(|t| t.description.is_some()));
        assert!(app.prompts().iter().all(|p| p.description.is_some()));
        let first_with_header = app
            .tools()
            .iter()
            .find(|t| t.input_schema.contains("x-mcp-header"))
            .map(|t| t.name);
        assert_eq!(first_with_header, Some("test_header_param"));
        assert!(!app.tools().iter().any(|t| t.name == "test_dynamic_tool"));
        app.dynamic_tool.fetch_xor(true, Ordering::SeqCst);
        assert_eq!(
            app.tools().last().map(|t| t.name),
            Some("test_dynamic_tool")
        );
    }
}
