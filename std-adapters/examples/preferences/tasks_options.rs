//! The bounds of the example's tasks, from the command line (both transports): how many it
//! keeps, per caller, running at once, and for how long. The rest of `TaskLimits` keeps its
//! defaults (see the limits table of docs/deploy.md). Over HTTP, the tasks are kept in the
//! PostgreSQL database `SNODO_TASKS_DATABASE_URL` (or the file `SNODO_TASKS_DATABASE_URL_FILE`)
//! names, when the example is built with the feature `postgres`; in memory otherwise.

use std::io;

use snodo_std::tasks::{TaskHost, TaskLimits};

/// How long a draining server's running tasks may go on once it takes no more requests,
/// with tasks in a shared database; those left then end `failed`.
pub const DRAIN_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// The task host of an HTTP server: in the database the environment names, if any
/// (this node's leases under `node`), else in memory.
pub async fn host(limits: TaskLimits, node: Option<String>) -> io::Result<TaskHost> {
    #[cfg(feature = "postgres")]
    if let Some(config) = snodo_std::tasks::PostgresConfig::from_env()? {
        let config = match node {
            Some(node) => config.with_node(node),
            None => config,
        };
        let store = snodo_std::tasks::PostgresTaskStore::connect(config, &limits).await?;
        return Ok(TaskHost::new(std::sync::Arc::new(store), limits));
    }
    #[cfg(not(feature = "postgres"))]
    {
        let _ = node;
        let named = ["SNODO_TASKS_DATABASE_URL", "SNODO_TASKS_DATABASE_URL_FILE"];
        if let Some(name) = named.iter().find(|name| std::env::var_os(name).is_some()) {
            let why = format!("{name} is set, but this build has no `postgres` feature");
            return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
        }
    }
    Ok(TaskHost::in_memory(limits))
}

/// The usage lines of the task options.
pub const USAGE: &str = "\
  --tasks-max N         keep at most N tasks (default 1024)
  --tasks-per-caller N  ... at most N of one caller (default 64)
  --tasks-running N     ... whose work runs at once at most N (default 64)
  --tasks-ttl-secs N    ... each for N seconds after its creation (default 600)
  (with --http, a build with the feature `postgres` keeps them in the PostgreSQL database
  SNODO_TASKS_DATABASE_URL, or the file SNODO_TASKS_DATABASE_URL_FILE, names)
";

/// Takes the task options out of `args`: the limits, and the rest for the other options.
pub fn take_args(
    args: impl IntoIterator<Item = String>,
) -> Result<(TaskLimits, Vec<String>), String> {
    let mut limits = TaskLimits::default();
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let field = match arg.as_str() {
            "--tasks-max" => &mut limits.max_tasks,
            "--tasks-per-caller" => &mut limits.max_per_principal,
            "--tasks-running" => &mut limits.max_running,
            "--tasks-ttl-secs" => {
                let secs = count(&arg, args.next())?;
                limits.ttl_ms = u64::try_from(secs).unwrap_or(u64::MAX).saturating_mul(1000);
                continue;
            }
            _ => {
                rest.push(arg);
                continue;
            }
        };
        *field = count(&arg, args.next())?;
    }
    Ok((limits, rest))
}

/// The positive count `value` given for `flag`.
fn count(flag: &str, value: Option<String>) -> Result<usize, String> {
    let value = value.ok_or(format!("{flag} needs a number"))?;
    match value.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} needs a positive number, not `{value}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_flags_set_their_bounds_and_leave_the_rest() {
        let given = args(&[
            "--stdio",
            "--tasks-per-caller",
            "2",
            "--tasks-ttl-secs",
            "5",
        ]);
        let (limits, rest) = take_args(given).unwrap();
        assert_eq!(limits.max_per_principal, 2);
        assert_eq!(limits.ttl_ms, 5_000);
        assert_eq!(limits.max_tasks, TaskLimits::default().max_tasks);
        assert_eq!(rest, ["--stdio"]);
    }

    #[test]
    fn a_missing_zero_or_foreign_count_is_refused() {
        for bad in [
            &["--tasks-max"][..],
            &["--tasks-max", "0"],
            &["--tasks-running", "x"],
        ] {
            assert!(take_args(args(bad)).is_err(), "{bad:?}");
        }
    }
}
