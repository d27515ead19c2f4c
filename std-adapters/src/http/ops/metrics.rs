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
type StatusOnly = [(&'static str, &'static str); 1];
type OperationOnly = [(&'static str, &'static str); 1];

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
/// | `mcp_tasks` | gauge (live tasks in the store, counted every second) | `status` |
/// | `mcp_task_store_duration_seconds` | histogram (0.25 ms to 8 s) | `operation` |
/// | `mcp_task_lease_expiries_total` | counter (tasks this node ended for a lease run out) | |
///
/// The task metrics count once [`McpService::with_tasks`](crate::http::McpService::with_tasks)
/// and `with_metrics` are both given; with a shared store, `mcp_tasks` is the whole
/// cluster's.
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
    tasks: Family<StatusOnly, Gauge>,
    store_duration: Family<OperationOnly, Histogram, fn() -> Histogram>,
    lease_expiries: Counter,
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
        let tasks = Family::<StatusOnly, Gauge>::default();
        let store_duration =
            Family::<OperationOnly, Histogram, fn() -> Histogram>::new_with_constructor(
                latency_histogram,
            );
        let lease_expiries = Counter::default();
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
        registry.register(
            "mcp_tasks",
            "Live tasks in the task store, by status",
            tasks.clone(),
        );
        registry.register(
            "mcp_task_store_duration_seconds",
            "Time the task store took for one operation, by operation",
            store_duration.clone(),
        );
        registry.register(
            "mcp_task_lease_expiries",
            "Tasks this node ended failed because their lease ran out",
            lease_expiries.clone(),
        );
        Metrics {
            inner: Arc::new(Inner {
                registry,
                requests,
                duration,
                in_flight,
                input_required,
                state_failures,
                tasks,
                store_duration,
                lease_expiries,
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

    /// Sets the live task count of `status` (a status name).
    pub(crate) fn set_tasks(&self, status: &'static str, count: u64) {
        let count = i64::try_from(count).unwrap_or(i64::MAX);
        self.inner
            .tasks
            .get_or_create(&[("status", status)])
            .set(count);
    }

    /// Counts one task store operation (`operation`: the method's name) and how long it took.
    pub(crate) fn store_took(&self, operation: &'static str, took: Duration) {
        let histogram = self
            .inner
            .store_duration
            .get_or_create(&[("operation", operation)]);
        histogram.observe(took.as_secs_f64());
    }

    /// Counts tasks ended for a lease that ran out.
    pub(crate) fn leases_expired(&self, count: usize) {
        self.inner.lease_expiries.inc_by(count as u64);
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
