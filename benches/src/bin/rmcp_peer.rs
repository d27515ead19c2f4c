//! The reference server of the side-by-side harness: the `echo` tool and the 3-leg
//! `preference_preview` form flow of the `preferences` example, on the official Rust SDK
//! (`rmcp`), over stdio or stateless Streamable HTTP with JSON responses.
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
    CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitRequestParams, ErrorData,
    InputRequest, InputRequests, InputRequiredResult, ProtocolVersion, RequestStateCodec,
    SealOptions, ServerCapabilities, ServerConfig,
};
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

#[derive(Deserialize, JsonSchema)]
struct EchoArguments {
    /// The text to return.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct PreviewArguments {
    subject: String,
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
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Peer {
    fn new(secret: &[u8]) -> Result<Self, String> {
        let codec = RequestStateCodec::try_new(secret.to_vec()).map_err(|e| e.to_string())?;
        Ok(Peer {
            codec: Arc::new(codec),
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
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
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
