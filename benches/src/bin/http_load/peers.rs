//! Side by side: the same loads against two servers in one run, each row measured on one
//! server right after the other, so both see the same machine; prints both servers'
//! figures and their ratio (first server over second).
//!
//! Rows: HTTP `echo` and the 3-leg flow with 16 and 64 clients (rate, p99, peak RSS and the
//! peak of its private part, `RssAnon`: the rest is mapped code; then, from `smaps` at the
//! end of the row, the server's own code, the C libraries both map alike, and private pages);
//! stdio `echo` with every request written at once (rate, peak RSS), once per backlog size;
//! the stdio 3-leg flow (flows per second, peak RSS); HTTP tasks of the Tasks extension
//! (`report` tasks created per second with their creation latency, and `tasks/get` of one
//! task per client), both servers keeping every task in memory (ours started with bounds
//! past the run's, so that no call falls back to answering in its request).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::client::{Plan, Scenario, Target};
use crate::{Measured, measure, server, stdio};

/// What to run.
#[derive(Debug)]
pub struct Peers<'p> {
    pub ours: &'p Path,
    pub theirs: &'p Path,
    pub warmup: Duration,
    pub duration: Duration,
    pub timeout: Duration,
    pub threads: usize,
    /// Backlogs of the stdio `echo` rows (requests written at once).
    pub backlogs: Vec<u64>,
    /// Flows of the stdio flow row (every first leg written at once).
    pub flows: u64,
}

/// One server's figures for a row.
#[derive(Clone, Copy, Debug, Default)]
struct Figures {
    per_s: f64,
    p99_ms: Option<f64>,
    rss_kib: Option<u64>,
    /// The peak of `RssAnon`, the private part of the RSS (HTTP rows).
    anon_kib: Option<u64>,
    /// Where the resident pages were at the end of the row (HTTP rows).
    residency: Option<server::Residency>,
    errors: u64,
}

impl Figures {
    fn show(&self) -> String {
        let mut s = format!("{:>9.0}/s", self.per_s);
        if let Some(p99) = self.p99_ms {
            s += &format!(" p99 {p99:>5.2} ms");
        }
        if let Some(kib) = self.rss_kib {
            s += &format!(" {:>5.1} MiB", kib as f64 / 1024.0);
        }
        if let Some(kib) = self.anon_kib {
            s += &format!(" ({:.1} anon)", kib as f64 / 1024.0);
        }
        if self.errors > 0 {
            s += &format!(" ({} errors)", self.errors);
        }
        s
    }

    fn json(&self) -> Value {
        let resident = self.residency.map(|r| {
            json!({"own_code_kib": r.own_code_kib, "libraries_kib": r.libraries_kib, "private_kib": r.private_kib})
        });
        json!({"per_s": self.per_s.round(), "p99_ms": self.p99_ms, "peak_rss_kib": self.rss_kib, "peak_rss_anon_kib": self.anon_kib, "resident_at_end": resident, "errors": self.errors})
    }

    /// Where the resident pages were, e.g. `own code 2.6 + C libraries 2.2 + private 0.7 MiB`.
    fn show_residency(&self) -> Option<String> {
        let r = self.residency?;
        let mib = |kib: u64| kib as f64 / 1024.0;
        Some(format!(
            "own code {:.1} + C libraries {:.1} + private {:.1} MiB",
            mib(r.own_code_kib),
            mib(r.libraries_kib),
            mib(r.private_kib)
        ))
    }
}

/// Runs every row; `Ok(false)` when a request failed anywhere.
pub fn run(peers: &Peers<'_>) -> Result<bool, String> {
    let runtime = crate::runtime(peers.threads)?;
    println!(
        "peers: {} against {}, {} CPUs, load average {}; HTTP rows {:.1} s after {:.1} s \
         warm-up, generator on {} thread(s), HTTP servers on {} worker(s)",
        peers.ours.display(),
        peers.theirs.display(),
        server::cpus(),
        server::load_average(),
        peers.duration.as_secs_f64(),
        peers.warmup.as_secs_f64(),
        peers.threads,
        std::env::var("TOKIO_WORKER_THREADS")
            .unwrap_or_else(|_| server::server_threads(peers.threads).to_string()),
    );
    println!(
        "{:<36} {:<48} {:<48} ratio (snodo / rmcp)",
        "work", "snodo", "rmcp"
    );
    let plan = |clients, legacy| Plan {
        clients,
        warmup: peers.warmup,
        duration: peers.duration,
        timeout: peers.timeout,
        legacy,
    };
    let mut rows = Vec::new();
    for (scenario, clients, legacy) in [
        (Scenario::Echo, 16, false),
        (Scenario::Echo, 64, false),
        (Scenario::Flow, 16, false),
        (Scenario::Flow, 64, false),
        (Scenario::Echo, 16, true),
        (Scenario::TaskCreate, 16, false),
        (Scenario::TaskPoll, 16, false),
    ] {
        let what = match (scenario, legacy) {
            (Scenario::Echo, false) => format!("HTTP echo, {clients} clients"),
            (Scenario::Flow, _) => format!("HTTP 3-leg flow, {clients} clients"),
            (Scenario::Echo, true) => format!("HTTP legacy echo, {clients} clients"),
            (Scenario::TaskCreate, _) => format!("HTTP task created, {clients} clients"),
            (Scenario::TaskPoll, _) => format!("HTTP tasks/get, {clients} clients"),
        };
        let tasks = matches!(scenario, Scenario::TaskCreate | Scenario::TaskPoll);
        let mut both = [Figures::default(); 2];
        for (figures, path) in both.iter_mut().zip([peers.ours, peers.theirs]) {
            let plan = plan(clients, legacy);
            let extra = if tasks && path == peers.ours {
                UNBOUNDED_TASKS
            } else {
                &[]
            };
            *figures = http(&runtime, path, extra, peers.threads, scenario, plan)?;
        }
        rows.push(row(&what, both));
    }
    for &backlog in &peers.backlogs {
        let what = format!("stdio echo, {backlog} at once");
        let mut both = [Figures::default(); 2];
        for (figures, path) in both.iter_mut().zip([peers.ours, peers.theirs]) {
            *figures = stdio_row(path, Scenario::Echo, backlog)?;
        }
        rows.push(row(&what, both));
    }
    let what = format!("stdio 3-leg flow, {} flows", peers.flows);
    let mut both = [Figures::default(); 2];
    for (figures, path) in both.iter_mut().zip([peers.ours, peers.theirs]) {
        *figures = stdio_row(path, Scenario::Flow, peers.flows)?;
    }
    rows.push(row(&what, both));
    let clean = rows
        .iter()
        .all(|r| r["snodo"]["errors"] == 0 && r["rmcp"]["errors"] == 0);
    println!(
        "{}",
        json!({"bench": "peers", "cpus": server::cpus(), "loadavg": server::load_average(), "rows": rows})
    );
    Ok(clean)
}

/// Prints a row and returns it for the JSON line.
fn row(what: &str, [ours, theirs]: [Figures; 2]) -> Value {
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}x", a / b)
        } else {
            "-".into()
        }
    };
    let mut ratios = vec![format!("rate {}", ratio(ours.per_s, theirs.per_s))];
    if let (Some(a), Some(b)) = (ours.p99_ms, theirs.p99_ms) {
        ratios.push(format!("p99 {}", ratio(a, b)));
    }
    if let (Some(a), Some(b)) = (ours.rss_kib, theirs.rss_kib) {
        ratios.push(format!("RSS {}", ratio(a as f64, b as f64)));
    }
    if let (Some(a), Some(b)) = (ours.anon_kib, theirs.anon_kib) {
        ratios.push(format!("anon {}", ratio(a as f64, b as f64)));
    }
    println!(
        "{what:<36} {:<48} {:<48} {}",
        ours.show(),
        theirs.show(),
        ratios.join(", ")
    );
    // What RSS is made of: code the kernel keeps mapped (the C libraries the same for both)
    // against what each server wrote.
    if let (Some(a), Some(b)) = (ours.show_residency(), theirs.show_residency()) {
        println!("{:<36} {a:<48} {b:<48}", "  resident at the end of the row");
    }
    json!({"work": what, "snodo": ours.json(), "rmcp": theirs.json()})
}

/// The example's task bounds for the task rows: past what a run creates, as rmcp's
/// `TaskManager` has none, so every call becomes a task on both servers.
const UNBOUNDED_TASKS: &[&str] = &[
    "--tasks-max",
    "100000000",
    "--tasks-per-caller",
    "100000000",
    "--tasks-running",
    "100000000",
];

/// One HTTP scenario against `path`, started for it with the options `extra`.
fn http(
    runtime: &tokio::runtime::Runtime,
    path: &Path,
    extra: &[&str],
    generator_threads: usize,
    scenario: Scenario,
    plan: Plan,
) -> Result<Figures, String> {
    let child = server::Server::start_with(path, generator_threads, extra)?;
    let target = Arc::new(Target::parse(&child.url)?);
    let pid = Some(child.pid().to_string());
    let m: Measured = runtime.block_on(measure(target, scenario, plan, pid.clone()));
    let residency = pid.as_deref().and_then(server::residency);
    drop(child);
    let p99 = m.summaries.iter().map(|s| s.p99).max();
    Ok(Figures {
        per_s: m.outcome.completed as f64 / plan.duration.as_secs_f64(),
        p99_ms: p99.map(|d| d.as_secs_f64() * 1000.0),
        rss_kib: m.peak_rss_kib,
        anon_kib: m.peak_anon_kib,
        residency,
        errors: m.outcome.errors,
    })
}

fn stdio_row(path: &Path, scenario: Scenario, units: u64) -> Result<Figures, String> {
    let f = stdio::flood(path, scenario, units)?;
    Ok(Figures {
        per_s: f.completed as f64 / f.elapsed.as_secs_f64(),
        p99_ms: None,
        rss_kib: f.peak_rss_kib,
        anon_kib: None,
        residency: None,
        errors: f.errors + (units - f.completed),
    })
}
