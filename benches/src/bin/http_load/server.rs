//! The server under load as a child process, and what `/proc` says about a process.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long the server may take to print its URL.
const START_PATIENCE: Duration = Duration::from_secs(20);

/// A server started as `PATH --http 127.0.0.1:0`; killed when dropped.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// The endpoint URL the server printed as its first line.
    pub url: String,
}

impl Server {
    /// Starts `path` on a free loopback port and waits for the URL on its first stdout line.
    /// Its log goes to our standard error, filtered by `RUST_LOG` (`warn` unless set).
    ///
    /// The server's tokio runtime gets `TOKIO_WORKER_THREADS` = [`server_threads`] unless the
    /// caller's environment sets it.
    pub fn start(path: &Path, generator_threads: usize) -> Result<Server, String> {
        Self::start_with(path, generator_threads, &[])
    }

    /// [`Server::start`] with the options `extra` after `--http 127.0.0.1:0`.
    pub fn start_with(
        path: &Path,
        generator_threads: usize,
        extra: &[&str],
    ) -> Result<Server, String> {
        let threads = std::env::var("TOKIO_WORKER_THREADS")
            .unwrap_or_else(|_| server_threads(generator_threads).to_string());
        let args: Vec<&str> = ["--http", "127.0.0.1:0"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let mut child = spawn_with(
            path,
            &args,
            Stdio::null(),
            &[("TOKIO_WORKER_THREADS", &threads)],
        )?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        // Read the first line on a thread so a silent server cannot hang us, then keep
        // draining so the server never writes into a closed pipe.
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let read = reader.read_line(&mut line).map(|_| line);
            let _ = tx.send(read);
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let mut server = Server {
            child,
            url: String::new(),
        };
        match rx.recv_timeout(START_PATIENCE) {
            Ok(Ok(line)) if !line.trim().is_empty() => {
                server.url = line.trim().to_owned();
                Ok(server)
            }
            Ok(Ok(_)) => Err(format!("{} exited without a URL", path.display())),
            Ok(Err(e)) => Err(format!("reading the server's URL: {e}")),
            Err(_) => Err(format!(
                "{} printed no URL within {START_PATIENCE:?}",
                path.display()
            )),
        }
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Starts `path` with `args`, its stdout piped and its log on our standard error, filtered by
/// `RUST_LOG` (`warn` unless set).
pub fn spawn(path: &Path, args: &[&str], stdin: Stdio) -> Result<Child, String> {
    spawn_with(path, args, stdin, &[])
}

/// [`spawn`] with `env` added to the child's environment.
fn spawn_with(
    path: &Path,
    args: &[&str],
    stdin: Stdio,
    env: &[(&str, &str)],
) -> Result<Child, String> {
    Command::new(path)
        .args(args)
        .envs(env.iter().copied())
        .env(
            "RUST_LOG",
            std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".to_owned()),
        )
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {} {}: {e}", path.display(), args.join(" ")))
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Resident memory of a process, in KiB, from `/proc/<pid>/status`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Memory {
    /// `VmRSS`: resident now.
    pub rss_kib: u64,
    /// `VmHWM`: the most ever resident (the peak since the process started).
    pub hwm_kib: u64,
    /// `RssAnon`: resident now and private to the process (heap, stacks, written data); the
    /// rest of `VmRSS` is mapped files, code above all, which other processes share.
    pub anon_kib: u64,
}

/// The memory of process `pid` (`self` for this one), if `/proc` tells.
pub fn memory(pid: &str) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some(Memory {
        rss_kib: field("VmRSS:")?,
        hwm_kib: field("VmHWM:")?,
        anon_kib: field("RssAnon:")?,
    })
}

/// Where a process's resident memory is, in KiB, from `/proc/<pid>/smaps`: what separates the
/// code a server brings (its own binary) from what every dynamically linked server maps alike
/// (the C libraries) and from what it wrote (private pages).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Residency {
    /// File pages of the executable's own mappings (code, read-only data).
    pub own_code_kib: u64,
    /// File pages of every other mapped file: glibc, libm, the dynamic loader, libgcc_s.
    pub libraries_kib: u64,
    /// Private (`Anonymous`) pages of every mapping: heap, stacks, relocated data.
    pub private_kib: u64,
}

/// The [`Residency`] of process `pid` (`self` for this one), if `/proc` tells.
pub fn residency(pid: &str) -> Option<Residency> {
    let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).ok()?;
    Some(residency_of(&smaps, &exe.to_string_lossy()))
}

/// [`residency`] of an `smaps` text whose executable is at `exe`.
fn residency_of(smaps: &str, exe: &str) -> Residency {
    // Where the mapping being read comes from: its own binary, another file, or none.
    #[derive(Clone, Copy)]
    enum Source {
        Own,
        File,
        Anonymous,
    }
    let mut residency = Residency::default();
    let mut source = Source::Anonymous;
    let mut rss = 0;
    let settle = |source: Source, rss: u64, private: u64, r: &mut Residency| {
        let file = rss.saturating_sub(private);
        match source {
            Source::Own => r.own_code_kib += file,
            Source::File => r.libraries_kib += file,
            Source::Anonymous => {}
        }
        r.private_kib += private;
    };
    let kib = |rest: &str| {
        rest.trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .unwrap_or(0)
    };
    for line in smaps.lines() {
        if let Some(rest) = line.strip_prefix("Rss:") {
            rss = kib(rest);
        } else if let Some(rest) = line.strip_prefix("Anonymous:") {
            // `Anonymous` follows `Rss` in each mapping's block: the block is complete.
            settle(source, rss, kib(rest), &mut residency);
            rss = 0;
        } else if let Some(path) = mapping_path(line) {
            source = if path == exe {
                Source::Own
            } else if path.starts_with('/') {
                Source::File
            } else {
                Source::Anonymous
            };
        }
    }
    residency
}

/// The path of the mapping whose header `line` is (range, permissions, offset, device,
/// inode, then the path, empty for anonymous memory); `None` for the other lines of `smaps`.
fn mapping_path(line: &str) -> Option<&str> {
    let (range, rest) = line.split_once(' ')?;
    let (start, end) = range.split_once('-')?;
    u64::from_str_radix(start, 16).ok()?;
    u64::from_str_radix(end, 16).ok()?;
    Some(rest.splitn(5, ' ').nth(4).unwrap_or("").trim())
}

/// User plus system CPU time of process `pid` (`self` for this one) so far, from
/// `/proc/<pid>/stat` (in clock ticks of 1/100 s, the value on Linux builds for x86 and
/// ARM).
pub fn cpu_time(pid: &str) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 (utime) and 15 (stime) of the whole line are 12 and 13 after the name.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// CPU time the whole machine spent busy so far (every CPU added up: user, nice, system,
/// interrupts and steal), from the first line of `/proc/stat`.
pub fn machine_busy() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let busy: u64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| ticks.get(i))
        .sum();
    Some(Duration::from_millis(busy * 10))
}

/// The 1, 5 and 15 minute load averages.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Worker threads for a server under HTTP load: the CPUs the generator leaves, at least one.
///
/// A tokio server with a worker per CPU next to a generator thread on the same CPUs is
/// time-sliced: a preempted worker holds the connections it has woken until the scheduler
/// runs it again, milliseconds later, and that is the p99 (on 2 CPUs with 64 clients the
/// example's p99 went from 0.95 ms with one worker to 4.2 ms with two, at 2/3 the rate).
/// Both servers of a side-by-side run get the same count.
pub fn server_threads(generator_threads: usize) -> usize {
    cpus().saturating_sub(generator_threads).max(1)
}

/// How many CPUs this process may run on.
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_residency_by_where_pages_come_from() {
        let smaps = "\
55e0c0000000-55e0c0010000 r-xp 00001000 fe:00 12 /srv/server
Rss:                  48 kB
Anonymous:             0 kB
55e0c0010000-55e0c0012000 rw-p 00011000 fe:00 12 /srv/server
Rss:                   8 kB
Anonymous:             8 kB
7f0000000000-7f0000100000 r-xp 00026000 fe:00 34 /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                1024 kB
Anonymous:             4 kB
7f0000200000-7f0000300000 rw-p 00000000 00:00 0 
Rss:                 300 kB
Anonymous:           300 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  24 kB
Anonymous:            24 kB
";
        assert_eq!(
            residency_of(smaps, "/srv/server"),
            Residency {
                own_code_kib: 48,
                libraries_kib: 1020,
                private_kib: 336,
            }
        );
    }

    #[test]
    fn reads_our_own_residency() {
        let ours = residency("self").expect("/proc/self/smaps");
        assert!(ours.own_code_kib > 0, "{ours:?}");
        assert!(ours.private_kib > 0, "{ours:?}");
    }

    #[test]
    fn reads_our_own_memory_and_cpu() {
        let memory = memory("self").expect("/proc/self/status");
        assert!(memory.rss_kib > 0);
        assert!(memory.hwm_kib >= memory.rss_kib);
        assert!(memory.anon_kib > 0 && memory.anon_kib <= memory.rss_kib);
        assert!(cpu_time("self").is_some());
        assert!(machine_busy().is_some());
    }
}
