//! What an operator sees of the endpoint: a `tracing` span per request, Prometheus metrics
//! ([`Metrics`], given to [`McpService::with_metrics`](super::McpService::with_metrics)),
//! and an [`OpsServer`] that shows them with liveness and readiness ([`Health`]) on an
//! address of its own.
//!
//! Every request runs in a `debug` span `mcp.request` (the level tower-http's traces use:
//! at the usual `info`, a request costs no span at all) with `method`, `name` (the tool,
//! prompt or resource URI named), `era` (the protocol revision, `2026-07-28`), `outcome`
//! and `latency_ms`, and ends with a `debug` event `answered`. Argument values, answers,
//! bearer tokens and principals are never recorded.

mod endpoint;
mod metrics;
mod observation;
mod outcome;

pub use endpoint::{Health, OpsServer};
pub use metrics::Metrics;
pub(crate) use observation::Observation;
pub(crate) use outcome::Outcome;
