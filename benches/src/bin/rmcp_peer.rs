//! The reference server of the side-by-side harness: the `echo` tool, the 3-leg
//! `preference_preview` form flow and the `report` task of the `preferences` example, on the
//! official Rust SDK (`rmcp`), over stdio or stateless Streamable HTTP with JSON responses.
//! `report` runs as a task of the Tasks extension on rmcp's own `TaskManager` (in memory, as
//! the example's default store): each half of the work takes `seconds`, and it asks one
//! question halfway.
//!
//! It does what the example does, the way an rmcp application would: the flow's partial
//! answers travel in a `requestState` sealed with rmcp's HMAC-SHA256 codec, bound to the tool
//! and its arguments and valid for 300 s (the example binds the method, the arguments, the
//! principal and an expiry), and each leg reads the form answer it asked for.
//!
//! ```text
//! rmcp_peer [--stdio]              serve on standard input and output (the default)
//! rmcp_peer --http 127.0.0.1:0     serve on loopback; the first stdout line is the URL
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::{InputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, CreateTaskResult,
    ElicitRequest, ElicitRequestParams, ErrorData, GetTaskParams, GetTaskResult, InputRequest,
    InputRequests, InputRequiredResult, ProtocolVersion, RequestStateCodec, SealOptions,
    ServerCapabilities, ServerConfig, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::task_manager::{TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The question of the first leg (the example's `COLOR_SCHEMA`).
const COLOR_SCHEMA: &str = r#"{"type":"object","properties":{"color":{"type":"string","minLength":1}},"required":["color"]}"#;
/// The question of the second leg (the example's `STYLE_SCHEMA`).
const STYLE_SCHEMA: &str = r#"{"type":"object","properties":{"style":{"type":"string","minLength":1}},"required":["style"]}"#;
/// How long a sealed state stays valid, as in the example.
const STATE_TTL: Duration = Duration::from_secs(300);
/// The report's question (the example's `Detail` form).
const DETAIL_SCHEMA: &str =
    r#"{"type":"object","properties":{"detailed":{"type":"boolean"}},"required":["detailed"]}"#;
/// How long a task is kept, and how often a client is told to poll, as in the example.
const TASK_TTL_MS: u64 = 600_000;
const TASK_POLL_MS: u64 = 500;

#[derive(Deserialize, JsonSchema)]
struct EchoArguments {
    /// The text to return.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct PreviewArguments {
    subject: String,
}

#[derive(Deserialize, JsonSchema)]
struct ReportArguments {
    /// What the report is about.
    topic: String,
    /// Seconds each half of the work takes (default 1).
    seconds: Option<u64>,
}

/// Where a flow is, sealed into its `requestState`.
#[derive(Serialize, Deserialize)]
struct Stage {
    stage: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    color: Option<String>,
}

#[derive(Clone)]
struct Peer {
    codec: Arc<RequestStateCodec>,
    tasks: TaskManager,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Peer {
    fn new(secret: &[u8]) -> Result<Self, String> {
        let codec = RequestStateCodec::try_new(secret.to_vec()).map_err(|e| e.to_string())?;
        Ok(Peer {
            codec: Arc::new(codec),
            tasks: TaskManager::new(),
            tool_router: Self::tool_router(),
        })
    }

    #[tool(description = "Returns the text it is given.")]
    async fn echo(
        &self,
        Parameters(arguments): Parameters<EchoArguments>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            arguments.text,
        )]))
    }

    #[tool(description = "Writes a short report on a topic, as a task that asks one question")]
    async fn report(
        &self,
        Parameters(arguments): Parameters<ReportArguments>,
    ) -> Result<CallToolResponse, ErrorData> {
        let half = Duration::from_secs(arguments.seconds.unwrap_or(1));
        let topic = arguments.topic;
        let requested_schema = serde_json::from_str(DETAIL_SCHEMA)
            .map_err(|e| ErrorData::internal_error(format!("form schema: {e}"), None))?;
        let options = TaskOptions::new()
            .with_ttl_ms(TASK_TTL_MS)
            .with_poll_interval_ms(TASK_POLL_MS);
        let task = self.tasks.spawn(options, move |task| {
            Box::pin(async move {
                tokio::time::sleep(half).await;
                let question = InputRequest::Elicitation(ElicitRequest::new(
                    ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: "Include the detailed figures in the report?".to_owned(),
                        requested_schema,
                    },
                ));
                let answer = task.request_input("detail", question).await?;
                let detailed =
                    answer["action"] == "accept" && answer["content"]["detailed"] == true;
                tokio::time::sleep(half).await;
                let more = if detailed {
                    "Detailed figures included."
                } else {
                    "Summary only."
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Report on {topic}: three sources read. {more}"
                ))]))
            })
        });
        Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
    }

    #[tool(description = "Preview display preferences: asks for a color, then a style")]
    async fn preference_preview(
        &self,
        Parameters(arguments): Parameters<PreviewArguments>,
        RequestState(state): RequestState,
        InputResponses(responses): InputResponses,
    ) -> Result<CallToolResponse, ErrorData> {
        let binding = format!("tools/call:preference_preview:{}", arguments.subject);
        let Some(sealed) = state else {
            return self.ask(
                "color",
                "Choose a color for a read-only preview",
                COLOR_SCHEMA,
                &Stage {
                    stage: "color".into(),
                    color: None,
                },
                &binding,
            );
        };
        let stage: Stage = self
            .codec
            .open_json_with(&sealed, binding.as_bytes())
            .map_err(|_| ErrorData::invalid_params("invalid requestState", None))?;
        let answer = |key: &str| {
            let response = responses.as_ref().and_then(|r| r.get(key))?;
            if response["action"] != "accept" {
                return None;
            }
            response["content"][key].as_str().map(str::to_owned)
        };
        match (stage.stage.as_str(), stage.color) {
            ("color", _) => {
                let color = answer("color")
                    .ok_or_else(|| ErrorData::invalid_params("color: answer missing", None))?;
                self.ask(
                    "style",
                    "Choose a style for a read-only preview",
                    STYLE_SCHEMA,
                    &Stage {
                        stage: "style".into(),
                        color: Some(color),
                    },
                    &binding,
                )
            }
            ("style", Some(color)) => {
                let style = answer("style")
                    .ok_or_else(|| ErrorData::invalid_params("style: answer missing", None))?;
                let text = json!({"color": color, "style": style, "status": "preview"});
                // The example's member order: color, style, status.
                let text = format!(
                    r#"{{"color":{},"style":{},"status":{}}}"#,
                    text["color"], text["style"], text["status"]
                );
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            _ => Err(ErrorData::invalid_params("invalid requestState", None)),
        }
    }
}

impl Peer {
    /// An `input_required` result asking one form under `key`, with `stage` sealed.
    fn ask(
        &self,
        key: &str,
        message: &str,
        schema: &str,
        stage: &Stage,
        binding: &str,
    ) -> Result<CallToolResponse, ErrorData> {
        let requested_schema = serde_json::from_str(schema)
            .map_err(|e| ErrorData::internal_error(format!("form schema: {e}"), None))?;
        let mut requests = InputRequests::new();
        requests.insert(
            key.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(
                ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: message.to_owned(),
                    requested_schema,
                },
            )),
        );
        let options = SealOptions::new()
            .associated_data(binding.as_bytes())
            .ttl(STATE_TTL);
        let sealed = self
            .codec
            .seal_json_with(stage, &options)
            .map_err(|e| ErrorData::internal_error(format!("seal: {e}"), None))?;
        Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.tasks
            .get_task(&request.task_id)
            .map(GetTaskResult::new)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel_task(&request.task_id)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] | ["--stdio"] => None,
        ["--http", addr] => Some(addr.to_owned()),
        _ => {
            eprintln!("usage: rmcp_peer [--stdio | --http ADDR]");
            return ExitCode::from(2);
        }
    };
    match run(http.as_deref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rmcp_peer: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves on stdio, or over HTTP on `http` when given.
fn run(http: Option<&str>) -> Result<(), String> {
    let http = http
        .map(|addr| {
            addr.parse::<SocketAddr>()
                .map_err(|e| format!("{addr}: {e}"))
        })
        .transpose()?;
    // A fresh secret per process, as the example uses by default (fit for a benchmark only).
    let secret: Vec<u8> = format!("{:?}{:?}", std::time::SystemTime::now(), std::process::id())
        .bytes()
        .cycle()
        .take(32)
        .collect();
    let peer = Peer::new(&secret).map_err(|e| format!("key: {e}"))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    match http {
        None => runtime.block_on(serve_stdio(peer)),
        Some(addr) => runtime.block_on(serve_http(peer, addr)),
    }
}

async fn serve_stdio(peer: Peer) -> Result<(), String> {
    let running = peer
        .serve(rmcp::transport::io::stdio())
        .await
        .map_err(|e| format!("stdio: {e}"))?;
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("stdio: {e}"))
}

async fn serve_http(peer: Peer, addr: SocketAddr) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("bind {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let config = StreamableHttpServerConfig::default()
        .with_sse_keep_alive(None)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    println!("http://{local}/mcp");
    loop {
        let (stream, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
