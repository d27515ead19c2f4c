//! The endpoint's Prometheus metrics (OpenMetrics text), kept with `prometheus-client`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use super::outcome::Outcome;

type MethodOutcome = [(&'static str, &'static str); 2];
type MethodOnly = [(&'static str, &'static str); 1];

/// Metrics of the MCP endpoint, for [`McpService::with_metrics`](crate::http::McpService::with_metrics)
/// and the [`OpsServer`](super::OpsServer) that shows them. Cheap to clone; clones share
/// the values. Every label has a bounded set of values (method names outside the MCP
/// method table count as `other`; no tool names, arguments or principals).
///
/// | metric | type | labels |
/// |---|---|---|
/// | `mcp_requests_total` | counter | `method`, `outcome` |
/// | `mcp_request_duration_seconds` | histogram (0.25 ms to 8 s) | `method` |
/// | `mcp_requests_in_flight` | gauge | |
/// | `mcp_input_required_total` | counter | |
/// | `mcp_state_open_failures_total` | counter | |
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Registry,
    requests: Family<MethodOutcome, Counter>,
    duration: Family<MethodOnly, Histogram, fn() -> Histogram>,
    in_flight: Gauge,
    input_required: Counter,
    state_failures: Counter,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

fn latency_histogram() -> Histogram {
    // 0.25 ms doubling to 8.2 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    /// Zeroed metrics.
    pub fn new() -> Self {
        let requests = Family::<MethodOutcome, Counter>::default();
        let duration = Family::<MethodOnly, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram,
        );
        let in_flight = Gauge::default();
        let input_required = Counter::default();
        let state_failures = Counter::default();
        let mut registry = Registry::default();
        registry.register(
            "mcp_requests",
            "MCP requests answered, by method and outcome",
            requests.clone(),
        );
        registry.register(
            "mcp_request_duration_seconds",
            "Time from a request's arrival to its answer, by method",
            duration.clone(),
        );
        registry.register(
            "mcp_requests_in_flight",
            "MCP requests being handled now",
            in_flight.clone(),
        );
        registry.register(
            "mcp_input_required",
            "Rounds that ended input_required (the client is to retry with answers)",
            input_required.clone(),
        );
        registry.register(
            "mcp_state_open_failures",
            "Retries whose request state token did not open (any reason)",
            state_failures.clone(),
        );
        Metrics {
            inner: Arc::new(Inner {
                registry,
                requests,
                duration,
                in_flight,
                input_required,
                state_failures,
            }),
        }
    }

    /// The metrics in the OpenMetrics text format (which Prometheus reads).
    pub fn encode(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut text, &self.inner.registry);
        text
    }

    pub(crate) fn started(&self) {
        self.inner.in_flight.inc();
    }

    pub(crate) fn finished(&self, method: &'static str, outcome: Outcome, took: Duration) {
        let inner = &*self.inner;
        inner.in_flight.dec();
        inner
            .requests
            .get_or_create(&[("method", method), ("outcome", outcome.label())])
            .inc();
        inner
            .duration
            .get_or_create(&[("method", method)])
            .observe(took.as_secs_f64());
        match outcome {
            Outcome::InputRequired => {
                inner.input_required.inc();
            }
            Outcome::Error { state: true, .. } => {
                inner.state_failures.inc();
            }
            _ => {}
        }
    }
}
