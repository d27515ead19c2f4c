//! A load generator for the Streamable HTTP listener (issue 5's benchmark).
//!
//! Starts the `preferences` example (release build) as a child process on a free loopback
//! port, or loads a server already running on loopback, with N concurrent keep-alive
//! HTTP/1.1 clients (64 by default), one scenario after the other:
//!
//! - `echo`: `tools/call` of `echo`, a simple tool; requests per second and p50/p99 latency;
//! - `flow`: the three legs of `preference_preview` (ask a color, ask a style, complete),
//!   each leg a separate request that echoes the sealed `requestState` and adds the answer;
//!   flows per second and p50/p99 latency of each leg.
//!
//! Each scenario runs a warm-up (not counted), then a measured window; it stops by itself.
//! Clients run a closed loop (the next request leaves when the previous answer is read), so
//! latency is the time the server and the loopback take under that much concurrency. Also
//! reported: the server's resident memory (`VmRSS` idle, its peak sampled every 20 ms in each
//! scenario, and `VmHWM` at the end) and the CPU time the server and this generator used,
//! in cores, since on a small machine they share the CPUs.
//!
//! ```text
//! cargo build --release -p snodo-std --example preferences
//! cargo run --release -p snodo-benches --bin http_load -- [options]
//! scripts/bench-http.sh [options]
//! ```
//!
//! Prints a table, then one JSON line (starting `{"bench":"http_load"`) for machines.

mod client;
mod legacy;
mod peers;
mod server;
mod stats;
mod stdio;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use client::{Outcome, Plan, Scenario, Target};
use stats::{Summary, micros, millis};

const USAGE: &str = "\
usage: http_load [--server PATH | --url URL [--pid PID]] [options]

  --server PATH    start PATH --http 127.0.0.1:0 and load it (default: the preferences
                   example next to this binary, target/release/examples/preferences)
  --url URL        load a server already listening on loopback (http://127.0.0.1:PORT/mcp)
  --pid PID        with --url: the server's process id, for its memory and CPU
  --clients N      concurrent keep-alive connections (default 64)
  --duration SECS  measured window of each scenario (default 10)
  --warmup SECS    load before each window, not counted (default 2)
  --threads N      this generator's runtime threads (default 1); an HTTP server it starts
                   gets the CPUs left (at least 1) as TOKIO_WORKER_THREADS, unless set
  --scenario S     echo, flow, both (default) or tasks (report tasks created, then one
                   task's tasks/get, from a client that takes tasks; HTTP only), or one of
                   those two alone: task-create, task-get
  --timeout SECS   longest wait for one response (default 10)
  --label TEXT     what is being measured, echoed in the JSON line (default: the server)
  --stdio          flood PATH --stdio instead: every request written at once
  --requests N     with --stdio: echo requests (default 400000)
  --flows N        with --stdio or --peer: 3-leg flows (default 100000)
  --legacy         with --stdio: each scenario again in a legacy (initialize) session, the
                   flow's questions bridged as elicitation/create (32 flows open at once);
                   over HTTP (with --scenario echo): each client opens a legacy session
  --peer PATH      side by side: every HTTP row (echo and flow, 16 and 64 clients; legacy
                   echo, 16 clients) and stdio row against the server (--server) and then
                   PATH, with ratios
  --backlogs LIST  with --peer: stdio echo rows, requests written at once
                   (default 100000,400000,1000000)
";

#[derive(Debug)]
struct Options {
    server: Option<PathBuf>,
    url: Option<String>,
    pid: Option<u32>,
    clients: usize,
    duration: Duration,
    warmup: Duration,
    threads: usize,
    scenarios: Vec<Scenario>,
    timeout: Duration,
    label: Option<String>,
    /// Flood the server over stdio instead of loading it over HTTP.
    stdio: bool,
    /// With `stdio`: each scenario again in a legacy session.
    legacy: bool,
    requests: u64,
    flows: u64,
    /// The second server of a side-by-side run.
    peer: Option<PathBuf>,
    backlogs: Vec<u64>,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        server: None,
        url: None,
        pid: None,
        clients: 64,
        duration: Duration::from_secs(10),
        warmup: Duration::from_secs(2),
        threads: 1,
        scenarios: vec![Scenario::Echo, Scenario::Flow],
        timeout: Duration::from_secs(10),
        label: None,
        stdio: false,
        legacy: false,
        requests: 400_000,
        flows: 100_000,
        peer: None,
        backlogs: vec![100_000, 400_000, 1_000_000],
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(None);
        }
        if arg == "--stdio" {
            options.stdio = true;
            continue;
        }
        if arg == "--legacy" {
            options.legacy = true;
            continue;
        }
        let value = args.next().ok_or(format!("{arg} needs a value"))?;
        let number = |v: &str| v.parse::<u64>().map_err(|e| format!("{arg} {v}: {e}"));
        let seconds = |v: &str| {
            v.parse::<f64>()
                .ok()
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or(format!("{arg} {v}: not a number of seconds"))
        };
        match arg.as_str() {
            "--server" => options.server = Some(PathBuf::from(value)),
            "--url" => options.url = Some(value),
            "--pid" => options.pid = Some(number(&value)? as u32),
            "--clients" => options.clients = number(&value)?.max(1) as usize,
            "--duration" => options.duration = seconds(&value)?,
            "--warmup" => options.warmup = seconds(&value)?,
            "--threads" => options.threads = number(&value)?.max(1) as usize,
            "--timeout" => options.timeout = seconds(&value)?,
            "--label" => options.label = Some(value),
            "--requests" => options.requests = number(&value)?.max(1),
            "--flows" => options.flows = number(&value)?.max(1),
            "--peer" => options.peer = Some(PathBuf::from(value)),
            "--backlogs" => {
                options.backlogs = value
                    .split(',')
                    .map(|n| number(n.trim()).map(|n| n.max(1)))
                    .collect::<Result<_, _>>()?;
            }
            "--scenario" => {
                options.scenarios = match value.as_str() {
                    "echo" => vec![Scenario::Echo],
                    "flow" => vec![Scenario::Flow],
                    "both" => vec![Scenario::Echo, Scenario::Flow],
                    "tasks" => vec![Scenario::TaskCreate, Scenario::TaskPoll],
                    "task-create" => vec![Scenario::TaskCreate],
                    "task-get" => vec![Scenario::TaskPoll],
                    other => return Err(format!("unknown scenario `{other}`")),
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if options.server.is_some() && options.url.is_some() {
        return Err("give --server or --url, not both".to_owned());
    }
    if options.pid.is_some() && options.url.is_none() {
        return Err("--pid goes with --url".to_owned());
    }
    let http = !options.stdio && options.peer.is_none();
    if http && options.legacy && options.scenarios.contains(&Scenario::Flow) {
        return Err("--legacy over HTTP runs echo only: add --scenario echo".to_owned());
    }
    if (options.stdio || options.peer.is_some()) && options.url.is_some() {
        return Err("--stdio starts the server itself: give --server, not --url".to_owned());
    }
    Ok(Some(options))
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("http_load: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(options) {
        Ok(clean) if clean => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(problem) => {
            eprintln!("http_load: {problem}");
            ExitCode::FAILURE
        }
    }
}

/// What one scenario measured, with the machine's side of it.
#[derive(Debug)]
struct Measured {
    scenario: Scenario,
    outcome: Outcome,
    /// Latency of each leg (one for `echo`, three for the flow).
    summaries: Vec<Summary>,
    /// Requests completed in the window, all legs together.
    requests: u64,
    /// The server's largest `VmRSS` seen while it ran, KiB.
    peak_rss_kib: Option<u64>,
    /// The server's largest `RssAnon` (its private part) seen while it ran, KiB.
    peak_anon_kib: Option<u64>,
    /// CPU the server used, in cores (CPU seconds per second), warm-up included.
    server_cores: Option<f64>,
    /// CPU this generator used, in cores.
    client_cores: Option<f64>,
    /// CPU the rest of the machine used meanwhile (other processes, interrupts), in cores:
    /// what disturbed the run.
    other_cores: Option<f64>,
}

/// Runs every scenario; `Ok(false)` when a request failed.
fn run(options: Options) -> Result<bool, String> {
    if let Some(peer) = &options.peer {
        let ours = match &options.server {
            Some(path) => path.clone(),
            None => default_server()?,
        };
        return peers::run(&peers::Peers {
            ours: &ours,
            theirs: peer,
            warmup: options.warmup,
            duration: options.duration,
            timeout: options.timeout,
            threads: options.threads,
            backlogs: options.backlogs.clone(),
            flows: options.flows,
        });
    }
    if options.stdio {
        return run_stdio(&options);
    }
    let (child, url, pid) = match &options.url {
        Some(url) => (None, url.clone(), options.pid),
        None => {
            let path = match &options.server {
                Some(path) => path.clone(),
                None => default_server()?,
            };
            let child = server::Server::start(&path, options.threads)?;
            let url = child.url.clone();
            let pid = child.pid();
            (Some(child), url, Some(pid))
        }
    };
    let target = Arc::new(Target::parse(&url)?);
    let pid = pid.map(|p| p.to_string());
    let label = options.label.clone().unwrap_or_else(|| match &options.url {
        Some(url) => url.clone(),
        None => options
            .server
            .as_ref()
            .map_or("preferences example".to_owned(), |p| {
                p.display().to_string()
            }),
    });

    let runtime = runtime(options.threads)?;

    let load_before = server::load_average();
    let idle = pid.as_deref().and_then(server::memory);
    let plan = Plan {
        clients: options.clients,
        warmup: options.warmup,
        duration: options.duration,
        timeout: options.timeout,
        legacy: options.legacy,
    };
    eprintln!(
        "http_load: {url}: {} clients, {:?} warm-up + {:?} per scenario, load average {load_before}",
        plan.clients, plan.warmup, plan.duration
    );
    let mut results = Vec::new();
    for &scenario in &options.scenarios {
        let measured = runtime.block_on(measure(target.clone(), scenario, plan, pid.clone()));
        results.push(measured);
    }
    let end = pid.as_deref().and_then(server::memory);
    let load_after = server::load_average();
    drop(child);

    print_table(
        &options,
        &url,
        &results,
        idle,
        end,
        &load_before,
        &load_after,
    );
    let line = json_line(
        &options,
        &label,
        &results,
        idle,
        end,
        &load_before,
        &load_after,
    );
    println!("{line}");
    let mut clean = true;
    for m in &results {
        if let Some(problem) = &m.outcome.first_error {
            eprintln!(
                "http_load: {} failed requests in {}; the first: {problem}",
                m.outcome.errors,
                name(m.scenario)
            );
            clean = false;
        }
    }
    Ok(clean)
}

/// Floods the server over stdio with each scenario; `Ok(false)` when an answer was wrong.
fn run_stdio(options: &Options) -> Result<bool, String> {
    let path = match &options.server {
        Some(path) => path.clone(),
        None => default_server()?,
    };
    let label = options
        .label
        .clone()
        .unwrap_or_else(|| path.display().to_string());
    println!(
        "stdio flood: {label}: every request written at once, {} CPUs, load average {}",
        server::cpus(),
        server::load_average()
    );
    println!(
        "{:<32} {:>9} {:>10} {:>10} {:>7} {:>7} {:>10}",
        "scenario", "done", "per s", "req per s", "errors", "srv cpu", "peak RSS"
    );
    let mut clean = true;
    let mut line = json!({"bench": "stdio_load", "label": label, "cpus": server::cpus()});
    let eras: &[bool] = if options.legacy {
        &[false, true]
    } else {
        &[false]
    };
    let runs = options
        .scenarios
        .iter()
        .flat_map(|&scenario| eras.iter().map(move |&legacy| (scenario, legacy)));
    for (scenario, legacy) in runs {
        let units = match scenario {
            Scenario::Flow => options.flows,
            _ => options.requests,
        };
        let f = if legacy {
            legacy::flood(&path, scenario, units)?
        } else {
            stdio::flood(&path, scenario, units)?
        };
        let seconds = f.elapsed.as_secs_f64();
        let era = if legacy { "legacy " } else { "" };
        println!(
            "{:<32} {:>9} {:>10.0} {:>10.0} {:>7} {:>7} {:>10}",
            format!("{era}{}", name(scenario)),
            f.completed,
            f.completed as f64 / seconds,
            f.requests as f64 / seconds,
            f.errors,
            or_dash(f.server_cores.map(|c| format!("{c:.2}"))),
            or_dash(f.peak_rss_kib.map(mib)),
        );
        let key = match (scenario, legacy) {
            (Scenario::Flow, false) => "flow",
            (Scenario::Flow, true) => "legacy_flow",
            (_, false) => "echo",
            (_, true) => "legacy_echo",
        };
        line[key] = json!({
            "units": units,
            "completed": f.completed,
            "requests": f.requests,
            "seconds": seconds,
            "per_s": (f.completed as f64 / seconds).round(),
            "requests_per_s": (f.requests as f64 / seconds).round(),
            "errors": f.errors,
            "server_cpu_cores": f.server_cores.map(|c| (c * 100.0).round() / 100.0),
            "server_peak_rss_kib": f.peak_rss_kib,
        });
        if let Some(problem) = &f.first_error {
            eprintln!(
                "http_load: {} wrong answers in {}; the first: {problem}",
                f.errors,
                name(scenario)
            );
            clean = false;
        }
    }
    println!("{line}");
    Ok(clean)
}

/// The generator's runtime: with one thread, a current-thread runtime, which runs the woken
/// clients in the order they were woken (a multi-thread runtime runs the last one woken
/// first, from its LIFO slot, and keeps its clients on a worker while the caller's thread
/// waits).
fn runtime(threads: usize) -> Result<tokio::runtime::Runtime, String> {
    if threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
    .map_err(|e| format!("runtime: {e}"))
}

/// `target/release/examples/preferences` beside this binary (`target/release/http_load`).
fn default_server() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("where am I: {e}"))?;
    let path = me
        .parent()
        .map(|dir| dir.join("examples").join("preferences"))
        .ok_or("no directory")?;
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: build it with `cargo build --release -p snodo-std --example \
             preferences`, or give --server or --url",
            path.display()
        ))
    }
}

/// Runs one scenario while sampling the server's memory and both processes' CPU time.
async fn measure(
    target: Arc<Target>,
    scenario: Scenario,
    plan: Plan,
    pid: Option<String>,
) -> Measured {
    // The largest VmRSS and RssAnon seen.
    let peak = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let note = |peak: &[AtomicU64; 2], m: server::Memory| {
        peak[0].fetch_max(m.rss_kib, Ordering::Relaxed);
        peak[1].fetch_max(m.anon_kib, Ordering::Relaxed);
    };
    let sampler = pid.clone().map(|pid| {
        let peak = peak.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(20));
            loop {
                tick.tick().await;
                if let Some(m) = server::memory(&pid) {
                    note(&peak, m);
                }
            }
        })
    });
    let server_cpu = pid.as_deref().and_then(server::cpu_time);
    let client_cpu = server::cpu_time("self");
    let machine_cpu = server::machine_busy();
    let started = Instant::now();
    let mut outcome = client::run(target, scenario, plan).await;
    let elapsed = started.elapsed().as_secs_f64();
    let cores = |before: Option<Duration>, after: Option<Duration>| match (before, after) {
        (Some(b), Some(a)) => Some(a.saturating_sub(b).as_secs_f64() / elapsed),
        _ => None,
    };
    let server_cores = cores(server_cpu, pid.as_deref().and_then(server::cpu_time));
    let client_cores = cores(client_cpu, server::cpu_time("self"));
    let machine_cores = cores(machine_cpu, server::machine_busy());
    let other_cores = match (machine_cores, server_cores, client_cores) {
        (Some(all), Some(s), Some(c)) => Some((all - s - c).max(0.0)),
        _ => None,
    };
    if let Some(sampler) = sampler {
        sampler.abort();
    }
    // One last reading, so a short run still has one.
    if let Some(m) = pid.as_deref().and_then(server::memory) {
        note(&peak, m);
    }
    let [peak, peak_anon] = [0, 1].map(|i| peak[i].load(Ordering::Relaxed));
    let requests = outcome.requests();
    let summaries = std::mem::take(&mut outcome.legs)
        .into_iter()
        .map(stats::Samples::summary)
        .collect();
    Measured {
        scenario,
        outcome,
        summaries,
        requests,
        peak_rss_kib: (peak > 0).then_some(peak),
        peak_anon_kib: (peak_anon > 0).then_some(peak_anon),
        server_cores,
        client_cores,
        other_cores,
    }
}

fn name(scenario: Scenario) -> &'static str {
    match scenario {
        Scenario::Echo => "tools/call echo",
        Scenario::Flow => "preference_preview flow",
        Scenario::TaskCreate => "tools/call report (task created)",
        Scenario::TaskPoll => "tasks/get of one task",
    }
}

const LEG_NAMES: [&str; 3] = [
    "leg 1 (asks color)",
    "leg 2 (color; asks style)",
    "leg 3 (style; complete)",
];

fn per_second(n: u64, window: Duration) -> f64 {
    n as f64 / window.as_secs_f64()
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".to_owned())
}

#[allow(clippy::too_many_arguments)]
fn print_table(
    options: &Options,
    url: &str,
    results: &[Measured],
    idle: Option<server::Memory>,
    end: Option<server::Memory>,
    load_before: &str,
    load_after: &str,
) {
    println!(
        "http_load: {url}, {} clients (keep-alive HTTP/1.1, loopback), {:.1} s measured after \
         {:.1} s warm-up per scenario, generator on {} thread(s), {} CPUs; load average {load_before} \
         before, {load_after} after",
        options.clients,
        options.duration.as_secs_f64(),
        options.warmup.as_secs_f64(),
        options.threads,
        server::cpus(),
    );
    println!();
    println!(
        "{:<28} {:>9} {:>10} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7} {:>7} {:>10}",
        "scenario",
        "done",
        "per s",
        "p50 ms",
        "p99 ms",
        "max ms",
        "errors",
        "srv cpu",
        "gen cpu",
        "oth cpu",
        "peak RSS"
    );
    let row = |label: &str, done: String, rate: String, s: Option<&Summary>| {
        let (p50, p99, max) = s.map_or(("-".into(), "-".into(), "-".into()), |s| {
            (millis(s.p50), millis(s.p99), millis(s.max))
        });
        format!("{label:<28} {done:>9} {rate:>10} {p50:>9} {p99:>9} {max:>9}")
    };
    for m in results {
        let o = &m.outcome;
        let summaries = &m.summaries;
        let rate = format!("{:.0}", per_second(o.completed, options.duration));
        let whole = if m.scenario == Scenario::Echo {
            summaries.first()
        } else {
            None
        };
        println!(
            "{} {:>7} {:>7} {:>7} {:>7} {:>10}",
            row(
                if options.legacy {
                    "legacy tools/call echo"
                } else {
                    name(m.scenario)
                },
                o.completed.to_string(),
                rate,
                whole
            ),
            o.errors,
            or_dash(m.server_cores.map(|c| format!("{c:.2}"))),
            or_dash(m.client_cores.map(|c| format!("{c:.2}"))),
            or_dash(m.other_cores.map(|c| format!("{c:.2}"))),
            or_dash(m.peak_rss_kib.map(mib)),
        );
        if m.scenario == Scenario::Flow {
            for (leg, s) in summaries.iter().enumerate() {
                let rate = format!("{:.0}", per_second(s.count as u64, options.duration));
                println!(
                    "{}",
                    row(
                        &format!("  {}", LEG_NAMES[leg]),
                        s.count.to_string(),
                        rate,
                        Some(s)
                    )
                );
            }
            println!(
                "{}",
                row(
                    "  requests, all legs",
                    m.requests.to_string(),
                    format!("{:.0}", per_second(m.requests, options.duration)),
                    None
                )
            );
        }
    }
    println!();
    match (idle, end) {
        (Some(idle), Some(end)) => println!(
            "server memory: VmRSS {} idle before the load, {} at the end; peak (VmHWM) {}",
            mib(idle.rss_kib),
            mib(end.rss_kib),
            mib(end.hwm_kib)
        ),
        _ => println!("server memory: unknown (no --pid)"),
    }
    println!(
        "(srv / gen / oth cpu: CPU seconds per second used by the server / this generator / \
         everything else on the machine; done and latencies count requests that completed \
         inside the window)"
    );
    println!();
}

fn latency_json(s: &Summary) -> Value {
    json!({
        "count": s.count,
        "p50_us": micros(s.p50),
        "p90_us": micros(s.p90),
        "p99_us": micros(s.p99),
        "max_us": micros(s.max),
        "mean_us": micros(s.mean),
    })
}

#[allow(clippy::too_many_arguments)]
fn json_line(
    options: &Options,
    label: &str,
    results: &[Measured],
    idle: Option<server::Memory>,
    end: Option<server::Memory>,
    load_before: &str,
    load_after: &str,
) -> Value {
    let mut line = json!({
        "bench": "http_load",
        "label": label,
        "clients": options.clients,
        "warmup_s": options.warmup.as_secs_f64(),
        "duration_s": options.duration.as_secs_f64(),
        "generator_threads": options.threads,
        "cpus": server::cpus(),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "server_rss_idle_kib": idle.map(|m| m.rss_kib),
        "server_rss_end_kib": end.map(|m| m.rss_kib),
        "server_vmhwm_kib": end.map(|m| m.hwm_kib),
    });
    for m in results {
        let o = &m.outcome;
        let summaries = &m.summaries;
        let mut entry = json!({
            "errors": o.errors,
            "requests": m.requests,
            "requests_per_s": per_second(m.requests, options.duration).round(),
            "server_cpu_cores": m.server_cores.map(|c| (c * 100.0).round() / 100.0),
            "generator_cpu_cores": m.client_cores.map(|c| (c * 100.0).round() / 100.0),
            "other_cpu_cores": m.other_cores.map(|c| (c * 100.0).round() / 100.0),
            "server_peak_rss_kib": m.peak_rss_kib,
        });
        match m.scenario {
            Scenario::Echo => {
                entry["latency"] = summaries.first().map_or(Value::Null, latency_json);
                line[if options.legacy {
                    "legacy_echo"
                } else {
                    "echo"
                }] = entry;
            }
            Scenario::Flow => {
                entry["flows"] = json!(o.completed);
                entry["flows_per_s"] = json!(per_second(o.completed, options.duration).round());
                entry["legs"] = summaries.iter().map(latency_json).collect();
                line["flow"] = entry;
            }
            Scenario::TaskCreate | Scenario::TaskPoll => {
                entry["latency"] = summaries.first().map_or(Value::Null, latency_json);
                let key = if m.scenario == Scenario::TaskCreate {
                    "task_create"
                } else {
                    "task_poll"
                };
                line[key] = entry;
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn defaults_and_options() {
        let o = parse_args(args("")).expect("parses").expect("options");
        assert_eq!(o.clients, 64);
        assert_eq!(o.scenarios, [Scenario::Echo, Scenario::Flow]);
        let o = parse_args(args(
            "--clients 8 --duration 0.5 --scenario flow --threads 2",
        ))
        .expect("parses")
        .expect("options");
        assert_eq!(o.clients, 8);
        assert_eq!(o.duration, Duration::from_millis(500));
        assert_eq!(o.scenarios, [Scenario::Flow]);
        assert_eq!(o.threads, 2);
        assert!(parse_args(args("--help")).expect("parses").is_none());
        assert!(parse_args(args("--url http://127.0.0.1:1/mcp --server x")).is_err());
        assert!(parse_args(args("--pid 1")).is_err());
        assert!(parse_args(args("--clients")).is_err());
        // A legacy HTTP client generates echo only (the flow's questions come on a stream).
        assert!(parse_args(args("--legacy")).is_err());
        assert!(parse_args(args("--legacy --scenario echo")).is_ok());
        assert!(parse_args(args("--legacy --stdio")).is_ok());
    }
}
