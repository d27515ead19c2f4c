//! One request as an operator sees it: a `tracing` span and the metrics it moves.

use std::time::Instant;

use snodo_core::protocol::{Method, PROTOCOL_VERSION};
use snodo_core::rpc::Incoming;
use tracing::Span;
use tracing::field::Empty;

use super::metrics::Metrics;
use super::outcome::Outcome;

/// Longest target name recorded in a span.
const MAX_NAME_LEN: usize = 128;

/// A request from arrival to answer. The span `mcp.request` carries `method`, `name` (the
/// tool, prompt or resource URI), `era` (the protocol revision), `outcome` and
/// `latency_ms`; never arguments, answers, tokens or principals. Dropped unfinished (the
/// client went away), it counts as cancelled.
pub(crate) struct Observation {
    span: Span,
    started: Instant,
    metrics: Option<Metrics>,
    method: &'static str,
    done: bool,
}

impl Observation {
    pub(crate) fn start(metrics: Option<&Metrics>) -> Self {
        let span = tracing::debug_span!(
            "mcp.request",
            method = Empty,
            name = Empty,
            era = PROTOCOL_VERSION,
            outcome = Empty,
            latency_ms = Empty,
        );
        if let Some(metrics) = metrics {
            metrics.started();
        }
        Observation {
            span,
            started: Instant::now(),
            metrics: metrics.cloned(),
            method: "unknown",
            done: false,
        }
    }

    /// The request's span, for its work to run in.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Names what the parsed body asks for.
    pub(crate) fn target<E>(&mut self, incoming: &Result<Incoming<'_>, E>) {
        self.method = match incoming {
            Ok(Incoming::Request(request)) => {
                Method::from_name(request.method).map_or("other", Method::name)
            }
            Ok(Incoming::Notification(_)) => "notification",
            Ok(Incoming::Response(_)) => "response",
            Err(_) => "invalid",
        };
        if self.span.is_disabled() {
            return;
        }
        self.span.record("method", self.method);
        if let Ok(Incoming::Request(request)) = incoming {
            let name = request
                .params
                .and_then(|p| p.get("name").or_else(|| p.get("uri")))
                .and_then(|v| v.as_str());
            if let Some(name) = name {
                let raw = name.raw();
                let cut = &raw[..raw.len().min(MAX_NAME_LEN)];
                self.span
                    .record("name", String::from_utf8_lossy(cut).as_ref());
            }
        }
    }

    /// Records how the request ended (`reply` classifies itself only when someone looks).
    pub(crate) fn finish(&mut self, outcome: impl FnOnce() -> Outcome) {
        if self.done {
            return;
        }
        self.done = true;
        if self.metrics.is_none() && self.span.is_disabled() {
            return;
        }
        let outcome = outcome();
        let took = self.started.elapsed();
        if let Some(metrics) = &self.metrics {
            metrics.finished(self.method, outcome, took);
        }
        if !self.span.is_disabled() {
            self.span.record("outcome", outcome.label());
            self.span.record("latency_ms", took.as_secs_f64() * 1000.0);
            tracing::debug!(parent: &self.span, "answered");
        }
    }
}

impl Drop for Observation {
    fn drop(&mut self) {
        self.finish(|| Outcome::Cancelled);
    }
}
