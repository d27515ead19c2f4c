//! A PostgreSQL server of the test's own: a database cluster made by `initdb` in a
//! temporary directory and served on a free loopback port, never the system's cluster.
//! Debian's `postgresql` package provides the programs (`scripts/test-all.sh` installs it);
//! as root they run as the `postgres` user the package creates.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A running cluster, stopped and deleted when dropped.
pub struct TempPostgres {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
}

impl TempPostgres {
    /// Makes and starts a cluster with a `snodo` database, trusting loopback connections.
    pub fn start() -> Self {
        let bin = programs();
        let dir = std::env::temp_dir().join(format!(
            "snodo-pg-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("after 1970")
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        if running_as_root() {
            let chown = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status()
                .expect("chown runs");
            assert!(chown.success(), "the cluster's directory goes to postgres");
        }
        let port = free_port();
        let pg = TempPostgres { dir, bin, port };
        pg.run(
            "initdb",
            &[
                "-D",
                &pg.data(),
                "-U",
                "snodo",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        pg.start_again();
        pg.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                "snodo",
                "snodo",
            ],
        );
        pg
    }

    /// The connection URL of its `snodo` database (with a password the server ignores, so
    /// that a log holding it would be seen).
    pub fn url(&self) -> String {
        format!(
            "postgres://snodo:never-logged@127.0.0.1:{}/snodo",
            self.port
        )
    }

    /// Stops it at once (connections dropped, as a crash would).
    pub fn stop(&self) {
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Starts it (again), waiting until it accepts connections.
    pub fn start_again(&self) {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories='{}' -c fsync=off",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("log").display().to_string();
        self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-l",
                &log,
                "-o",
                &options,
                "-w",
                "start",
            ],
        );
    }

    /// What `psql` prints for `sql` on the `snodo` database (unaligned, tuples only).
    pub fn query(&self, sql: &str) -> String {
        let port = self.port.to_string();
        let args = [
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            "snodo",
            "-tA",
            "-c",
            sql,
            "snodo",
        ];
        let out = Command::new(self.bin.join("psql"))
            .args(args)
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "{sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    fn run(&self, program: &str, args: &[&str]) {
        let program = self.bin.join(program);
        let mut command = as_owner(&program);
        let out = command.args(args).current_dir(&self.dir).output();
        let out = out.unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
        assert!(
            out.status.success(),
            "{} {args:?} failed: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A command running `program` as the cluster's owner: `postgres` when the test runs as
/// root (the server refuses to run as root), else the test's own user.
fn as_owner(program: &Path) -> Command {
    if running_as_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

impl Drop for TempPostgres {
    fn drop(&mut self) {
        let data = self.data();
        let args = ["-D", data.as_str(), "-m", "immediate", "stop"];
        // Stopped already is fine; the directory goes either way.
        let _ = as_owner(&self.bin.join("pg_ctl")).args(args).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest PostgreSQL's programs (`/usr/lib/postgresql/<version>/bin`).
fn programs() -> PathBuf {
    let root = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .unwrap_or_else(|e| {
            panic!(
                "PostgreSQL is not installed ({e}): `apt-get install postgresql`, as .ci/run does"
            )
        })
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let version = path.file_name()?.to_str()?.parse().ok()?;
            let bin = path.join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .expect("a PostgreSQL with initdb under /usr/lib/postgresql")
}

fn running_as_root() -> bool {
    let id = Command::new("id").arg("-u").output().expect("id runs");
    String::from_utf8_lossy(&id.stdout).trim() == "0"
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
