//! A [`TaskStore`] in PostgreSQL (feature `postgres`), for servers that share their tasks:
//! any of them answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another
//! runs.
//!
//! - Every change is one statement that writes the row only if its `version` is the one
//!   read (compare and set), so two servers never both finish, or resume, one task.
//! - Creation counts the live tasks under a transaction-scoped advisory lock, so the bounds
//!   hold across servers, and commits before the `CreateTaskResult` is written.
//! - Each change also `NOTIFY`s the channel `snodo_tasks`; every server `LISTEN`s on its own
//!   connection (reconnecting after an outage), and its host looks at its running tasks now
//!   and then as well, in case a notification was missed.
//! - A running task holds a lease its server renews; any server ends `failed` a task whose
//!   lease ran out (its server stopped).
//!
//! The schema is created or migrated by [`PostgresTaskStore::connect`], from the files in
//! `migrations/postgres/` (recorded in `snodo_migrations`). Each statement, and the wait
//! for a pooled connection, gives up after [`PostgresConfig::timeout_ms`]: a database out of
//! reach is an error the client can retry, never a hang.

use std::fmt;
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use snodo_core::tasks::Status;
use tokio::sync::broadcast;
use tokio_postgres::{AsyncMessage, NoTls, Row};

use super::store::{
    Answers, StoreError, StoreFull, StoreFuture, StoreResult, Submitted, TaskRecord,
};
use super::{STOPPED, TaskLimits, TaskStore};

/// The migrations, in order: (version, SQL).
const MIGRATIONS: &[(i32, &str)] = &[(1, include_str!("../../migrations/postgres/0001_tasks.sql"))];

/// The channel changes are announced on (payload: the writer's node, a space, the task id).
const CHANNEL: &str = "snodo_tasks";

/// Advisory lock keys: one for migrating, one for creating within the bounds.
const MIGRATE_LOCK: i64 = 0x736e_6f64_6f00_0001;
const CREATE_LOCK: i64 = 0x736e_6f64_6f00_0002;

/// How often a change is tried again when another server changed the task in between.
const CAS_ATTEMPTS: usize = 8;

/// The changes other servers made that a store's host may miss before it reads them.
const CHANGES_CAPACITY: usize = 1024;

/// A live task's row, in the column order [`record`] reads (a constant: no text is made
/// per read).
const READ: &str = "SELECT task_id, principal, status, status_message, created_at_ms, \
    updated_at_ms, ttl_ms, poll_interval_ms, payload, pending, answer_keys, answer_values, \
    version FROM snodo_tasks WHERE task_id = $1 AND expires_at_ms > $2";

/// Where the database is and how this server uses it.
#[derive(Clone)]
pub struct PostgresConfig {
    url: String,
    /// This server's name in the leases it holds and the changes it announces: distinct for
    /// each server sharing the database (default: a random one; a stable one per server
    /// makes the logs easier to read).
    pub node: String,
    /// How long a running task's lease lasts without renewal (default 15 s): a task whose
    /// server stopped ends `failed` this long after its last renewal, at most.
    pub lease_ms: u64,
    /// Connections in the pool (default 16), besides the one that listens.
    pub pool_size: usize,
    /// How long a statement, or the wait for a pooled connection, may take (default 5 s).
    pub timeout_ms: u64,
}

impl fmt::Debug for PostgresConfig {
    /// Leaves the URL out: it may hold the password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresConfig")
            .field("node", &self.node)
            .field("lease_ms", &self.lease_ms)
            .field("pool_size", &self.pool_size)
            .field("timeout_ms", &self.timeout_ms)
            .finish_non_exhaustive()
    }
}

/// The environment variable that holds the database's URL.
pub const DATABASE_URL_ENV: &str = "SNODO_TASKS_DATABASE_URL";
/// The environment variable that names a file holding the URL (a mounted secret).
pub const DATABASE_URL_FILE_ENV: &str = "SNODO_TASKS_DATABASE_URL_FILE";

impl PostgresConfig {
    /// The database at `url` (`postgres://user:password@host:port/database`, or the
    /// `key=value` form), with the defaults.
    pub fn new(url: impl Into<String>) -> Self {
        PostgresConfig {
            url: url.into(),
            node: random_node(),
            lease_ms: 15_000,
            pool_size: 16,
            timeout_ms: 5_000,
        }
    }

    /// The database the environment names: [`DATABASE_URL_ENV`], or the first line of the
    /// file [`DATABASE_URL_FILE_ENV`] names. `Ok(None)` when neither is set (the bounded
    /// memory store is then the default).
    pub fn from_env() -> io::Result<Option<Self>> {
        if let Some(url) = std::env::var_os(DATABASE_URL_ENV) {
            let url = url.into_string().map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{DATABASE_URL_ENV} is not UTF-8"),
                )
            })?;
            return Ok(Some(PostgresConfig::new(url)));
        }
        let Some(path) = std::env::var_os(DATABASE_URL_FILE_ENV) else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{DATABASE_URL_FILE_ENV} ({}): {e}", path.to_string_lossy()),
            )
        })?;
        let url = text.lines().next().unwrap_or("").trim();
        Ok(Some(PostgresConfig::new(url)))
    }

    /// The same, with this node name.
    pub fn with_node(mut self, node: impl Into<String>) -> Self {
        self.node = node.into();
        self
    }

    /// The same, with this lease.
    pub fn with_lease_ms(mut self, lease_ms: u64) -> Self {
        self.lease_ms = lease_ms;
        self
    }

    /// The same, with this timeout.
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = timeout_ms;
        self
    }

    fn parsed(&self) -> io::Result<tokio_postgres::Config> {
        // The driver's own message names what does not parse, never the password.
        let mut config: tokio_postgres::Config = self.url.parse().map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the task database's URL: {e}"),
            )
        })?;
        config.connect_timeout(Duration::from_millis(self.timeout_ms));
        if config.get_application_name().is_none() {
            config.application_name("snodo");
        }
        Ok(config)
    }
}

/// Tasks in a PostgreSQL database that several servers share.
pub struct PostgresTaskStore {
    pool: Pool,
    node: Arc<str>,
    lease_ms: u64,
    timeout: Duration,
    max_tasks: i64,
    max_per_principal: i64,
    changes: broadcast::Sender<Arc<str>>,
    listener: tokio::task::AbortHandle,
}

impl fmt::Debug for PostgresTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresTaskStore")
            .field("node", &self.node)
            .field("lease_ms", &self.lease_ms)
            .finish_non_exhaustive()
    }
}

impl Drop for PostgresTaskStore {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

impl PostgresTaskStore {
    /// Connects (inside a tokio runtime), creates or migrates the schema, and starts
    /// listening for other servers' changes. The bounds on live tasks are `limits`'.
    pub async fn connect(config: PostgresConfig, limits: &TaskLimits) -> io::Result<Self> {
        let pg = config.parsed()?;
        let timeout = Duration::from_millis(config.timeout_ms);
        let manager = Manager::from_config(
            pg.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(config.pool_size.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(timeout))
            .create_timeout(Some(timeout))
            .recycle_timeout(Some(timeout))
            .build()
            .map_err(io::Error::other)?;
        let mut client = pool
            .get()
            .await
            .map_err(|e| io::Error::other(format!("the task database: {e}")))?;
        migrate(&mut client)
            .await
            .map_err(|e| io::Error::other(format!("migrating the task database: {e}")))?;
        drop(client);
        let node: Arc<str> = config.node.as_str().into();
        let changes = broadcast::channel(CHANGES_CAPACITY).0;
        let listener = tokio::spawn(listen(pg, Arc::clone(&node), changes.clone()));
        tracing::info!(node = %node, "tasks kept in PostgreSQL");
        Ok(PostgresTaskStore {
            pool,
            node,
            lease_ms: config.lease_ms,
            timeout,
            max_tasks: to_db(limits.max_tasks as u64),
            max_per_principal: to_db(limits.max_per_principal as u64),
            changes,
            listener: listener.abort_handle(),
        })
    }

    /// Whether the database answers now.
    async fn answers_now(&self) -> bool {
        let Ok(client) = self.client().await else {
            return false;
        };
        self.timed(client.simple_query("SELECT 1")).await.is_ok()
    }

    async fn client(&self) -> StoreResult<Object> {
        self.pool.get().await.map_err(unavailable)
    }

    /// `step`, given up after the timeout.
    async fn timed<T>(
        &self,
        step: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> StoreResult<T> {
        match tokio::time::timeout(self.timeout, step).await {
            Ok(done) => done.map_err(unavailable),
            Err(_) => Err(unavailable("a statement timed out")),
        }
    }

    /// The live task `task_id` as it is now.
    async fn read(
        &self,
        client: &Object,
        task_id: &str,
        now_ms: u64,
    ) -> StoreResult<Option<TaskRecord>> {
        let statement = self.timed(client.prepare_cached(READ)).await?;
        let row = self
            .timed(client.query_opt(&statement, &[&task_id, &to_db(now_ms)]))
            .await?;
        row.map(|row| record(&row).ok_or_else(|| unavailable("a task row does not read")))
            .transpose()
    }

    /// Writes `task` if its row still has version `read`, announcing the change; whether it
    /// was written.
    async fn write(&self, client: &Object, task: &TaskRecord, read: u64) -> StoreResult<bool> {
        let statement = self
            .timed(client.prepare_cached(
                "WITH changed AS (UPDATE snodo_tasks SET status = $3, status_message = $4, \
                 updated_at_ms = $5, payload = $6, pending = $7, answer_keys = $8, \
                 answer_values = $9, version = $10 WHERE task_id = $1 AND version = $2 \
                 RETURNING task_id) \
                 SELECT pg_notify('snodo_tasks', $11::text || ' ' || task_id) FROM changed",
            ))
            .await?;
        let (keys, values): (Vec<&str>, Vec<&str>) = task
            .answers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .unzip();
        let rows = self
            .timed(client.query(
                &statement,
                &[
                    &task.task_id,
                    &to_db(read),
                    &task.status.name(),
                    &task.status_message,
                    &to_db(task.updated_at_ms),
                    &task.payload,
                    &task.pending,
                    &keys,
                    &values,
                    &to_db(task.version),
                    &&*self.node,
                ],
            ))
            .await?;
        Ok(!rows.is_empty())
    }

    /// Applies `apply` to the live task `task_id` (of `principal`, when given) and writes it
    /// back if it changed, trying again when another server changed it in between.
    async fn change<T>(
        &self,
        task_id: &str,
        principal: Option<Option<&str>>,
        now_ms: u64,
        mut apply: impl FnMut(&mut TaskRecord) -> T + Send,
    ) -> StoreResult<Option<T>>
    where
        T: Send,
    {
        let client = self.client().await?;
        for _ in 0..CAS_ATTEMPTS {
            let Some(mut task) = self.read(&client, task_id, now_ms).await? else {
                return Ok(None);
            };
            if principal.is_some_and(|p| !task.belongs_to(p)) {
                return Ok(None);
            }
            let read = task.version;
            let out = apply(&mut task);
            if task.version == read || self.write(&client, &task, read).await? {
                return Ok(Some(out));
            }
        }
        Err(unavailable(
            "a task changed under every attempt to change it",
        ))
    }

    async fn create_task(&self, task: TaskRecord) -> StoreResult<()> {
        let mut client = self.client().await?;
        let tx = self.timed(client.transaction()).await?;
        let now = to_db(task.created_at_ms);
        self.timed(tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CREATE_LOCK]))
            .await?;
        let counted = self
            .timed(tx.query_one(
                "SELECT count(*), count(*) FILTER (WHERE principal IS NOT DISTINCT FROM $2) \
                 FROM snodo_tasks WHERE expires_at_ms > $1",
                &[&now, &task.principal],
            ))
            .await?;
        let (all, mine): (i64, i64) = (counted.get(0), counted.get(1));
        if all >= self.max_tasks {
            return Err(StoreFull::Server.into());
        }
        if mine >= self.max_per_principal {
            return Err(StoreFull::Principal.into());
        }
        let lease_until = task.created_at_ms.saturating_add(self.lease_ms);
        self.timed(tx.execute(
            "INSERT INTO snodo_tasks (task_id, principal, status, status_message, created_at_ms, \
             updated_at_ms, ttl_ms, expires_at_ms, poll_interval_ms, version, node, \
             lease_until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            &[
                &task.task_id,
                &task.principal,
                &task.status.name(),
                &task.status_message,
                &now,
                &to_db(task.updated_at_ms),
                &to_db(task.ttl_ms),
                &to_db(task.created_at_ms.saturating_add(task.ttl_ms)),
                &to_db(task.poll_interval_ms),
                &to_db(task.version),
                &&*self.node,
                &to_db(lease_until),
            ],
        ))
        .await?;
        self.timed(tx.commit()).await
    }

    async fn renew_leases(&self, task_ids: &[Arc<str>], until_ms: u64) -> StoreResult<()> {
        if task_ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = task_ids.iter().map(|id| &**id).collect();
        let client = self.client().await?;
        self.timed(client.execute(
            "UPDATE snodo_tasks SET lease_until_ms = $3 WHERE node = $1 AND task_id = ANY($2) \
             AND status IN ('working', 'input_required')",
            &[&&*self.node, &ids, &to_db(until_ms)],
        ))
        .await
        .map(drop)
    }

    async fn expire(&self, now_ms: u64) -> StoreResult<Vec<Arc<str>>> {
        let client = self.client().await?;
        let error = serde_json::json!({"code": -32603, "message": STOPPED}).to_string();
        let rows = self
            .timed(client.query(
                "WITH expired AS (UPDATE snodo_tasks SET status = 'failed', \
                 status_message = $2, payload = $3, pending = '{}', answer_keys = '{}', \
                 answer_values = '{}', updated_at_ms = $1, version = version + 1 \
                 WHERE status IN ('working', 'input_required') AND lease_until_ms < $1 \
                 AND expires_at_ms > $1 RETURNING task_id) \
                 SELECT task_id, pg_notify('snodo_tasks', $4::text || ' ' || task_id) FROM expired",
                &[&to_db(now_ms), &STOPPED, &error, &&*self.node],
            ))
            .await?;
        Ok(rows
            .iter()
            .filter_map(|row| row.try_get::<_, &str>(0).ok().map(Arc::from))
            .collect())
    }
}

impl TaskStore for PostgresTaskStore {
    fn create(&self, task: TaskRecord) -> StoreFuture<'_, StoreResult<()>> {
        Box::pin(self.create_task(task))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<TaskRecord>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let task = self.read(&client, task_id, now_ms).await?;
            Ok(task.filter(|t| t.belongs_to(principal)))
        })
    }

    fn submit<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        responses: Vec<(String, String)>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Submitted>>> {
        Box::pin(self.change(task_id, Some(principal), now_ms, move |task| {
            task.submit(responses.clone(), now_ms)
        }))
    }

    fn cancel<'a>(
        &'a self,
        task_id: &'a str,
        principal: Option<&'a str>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Status>>> {
        Box::pin(self.change(task_id, Some(principal), now_ms, move |task| {
            task.cancel(now_ms);
            task.status
        }))
    }

    fn park<'a>(
        &'a self,
        task_id: &'a str,
        input_requests: String,
        keys: Vec<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let parked = self.change(task_id, None, now_ms, move |task| {
            task.park(input_requests.clone(), keys.clone(), now_ms)
        });
        Box::pin(async move { Ok(parked.await?.unwrap_or(false)) })
    }

    fn resume<'a>(
        &'a self,
        task_id: &'a str,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<Option<Answers>>> {
        let resumed = self.change(task_id, None, now_ms, move |task| task.resume(now_ms));
        Box::pin(async move { Ok(resumed.await?.flatten()) })
    }

    fn finish<'a>(
        &'a self,
        task_id: &'a str,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let finished = self.change(task_id, None, now_ms, move |task| {
            task.finish(status, payload.clone(), message.clone(), now_ms)
        });
        Box::pin(async move { Ok(finished.await?.unwrap_or(false)) })
    }

    fn set_message<'a>(
        &'a self,
        task_id: &'a str,
        message: String,
        now_ms: u64,
    ) -> StoreFuture<'a, StoreResult<bool>> {
        let kept = self.change(task_id, None, now_ms, move |task| {
            task.set_message(message.clone(), now_ms)
        });
        Box::pin(async move { Ok(kept.await?.unwrap_or(false)) })
    }

    fn sweep(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<usize>> {
        Box::pin(async move {
            let client = self.client().await?;
            let deleted = self
                .timed(client.execute(
                    "DELETE FROM snodo_tasks WHERE expires_at_ms <= $1",
                    &[&to_db(now_ms)],
                ))
                .await?;
            Ok(usize::try_from(deleted).unwrap_or(usize::MAX))
        })
    }

    fn count_by_status(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<(Status, u64)>>> {
        Box::pin(async move {
            let client = self.client().await?;
            let rows = self
                .timed(client.query(
                    "SELECT status, count(*) FROM snodo_tasks WHERE expires_at_ms > $1 \
                     GROUP BY status",
                    &[&to_db(now_ms)],
                ))
                .await?;
            let counted = rows.iter().filter_map(|row| {
                let status = Status::from_name(row.try_get(0).ok()?)?;
                let count: i64 = row.try_get(1).ok()?;
                Some((status, u64::try_from(count).unwrap_or(0)))
            });
            Ok(counted.collect())
        })
    }

    fn healthy(&self) -> StoreFuture<'_, bool> {
        Box::pin(self.answers_now())
    }

    fn changes(&self) -> Option<broadcast::Receiver<Arc<str>>> {
        Some(self.changes.subscribe())
    }

    fn lease_ms(&self) -> Option<u64> {
        Some(self.lease_ms)
    }

    fn renew<'a>(
        &'a self,
        task_ids: &'a [Arc<str>],
        until_ms: u64,
    ) -> StoreFuture<'a, StoreResult<()>> {
        Box::pin(self.renew_leases(task_ids, until_ms))
    }

    fn expire_leases(&self, now_ms: u64) -> StoreFuture<'_, StoreResult<Vec<Arc<str>>>> {
        Box::pin(self.expire(now_ms))
    }
}

/// Applies the migrations not applied yet, one transaction for all, one server at a time.
async fn migrate(client: &mut Object) -> Result<(), tokio_postgres::Error> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS snodo_migrations (version integer PRIMARY KEY, \
         applied_at timestamptz NOT NULL DEFAULT now())",
    )
    .await?;
    let applied: Vec<i32> = tx
        .query("SELECT version FROM snodo_migrations", &[])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect();
    for (version, sql) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        tx.batch_execute(sql).await?;
        tx.execute(
            "INSERT INTO snodo_migrations (version) VALUES ($1)",
            &[version],
        )
        .await?;
        tracing::info!(version, "task database migrated");
    }
    tx.commit().await
}

/// Listens on [`CHANNEL`] for other servers' changes and passes their task ids on, on a
/// connection of its own; reconnects a second after it is lost.
async fn listen(
    config: tokio_postgres::Config,
    node: Arc<str>,
    changes: broadcast::Sender<Arc<str>>,
) {
    // Each outage is logged once, and its end.
    let (mut listened, mut outage_logged) = (false, false);
    loop {
        match config.connect(NoTls).await {
            Ok((client, mut connection)) => {
                if listened {
                    tracing::info!("listening to the task database again");
                }
                (listened, outage_logged) = (true, false);
                let drive = async {
                    while let Some(message) =
                        std::future::poll_fn(|cx| connection.poll_message(cx)).await
                    {
                        match message {
                            Ok(AsyncMessage::Notification(n)) => {
                                match n.payload().split_once(' ') {
                                    // No host listening is not an error.
                                    Some((from, task_id)) if from != &*node => {
                                        let _ = changes.send(task_id.into());
                                    }
                                    _ => {}
                                }
                            }
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(error = %e, "task database listener lost");
                                return;
                            }
                        }
                    }
                };
                let subscribe = async {
                    if let Err(e) = client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                        tracing::warn!(error = %e, "LISTEN failed");
                        return;
                    }
                    std::future::pending::<()>().await;
                };
                tokio::select! {
                    () = drive => {}
                    () = subscribe => {}
                }
            }
            Err(e) if !outage_logged => {
                tracing::warn!(error = %e, "the task database is out of reach; retrying");
                outage_logged = true;
            }
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A task row as a record (`None` for a row this version cannot read).
fn record(row: &Row) -> Option<TaskRecord> {
    let ms = |i: usize| {
        row.try_get::<_, i64>(i)
            .ok()
            .and_then(|v| u64::try_from(v).ok())
    };
    let keys: Vec<String> = row.try_get(10).ok()?;
    let values: Vec<String> = row.try_get(11).ok()?;
    Some(TaskRecord {
        task_id: row.try_get(0).ok()?,
        principal: row.try_get(1).ok()?,
        status: Status::from_name(row.try_get(2).ok()?)?,
        status_message: row.try_get(3).ok()?,
        created_at_ms: ms(4)?,
        updated_at_ms: ms(5)?,
        ttl_ms: ms(6)?,
        poll_interval_ms: ms(7)?,
        payload: row.try_get(8).ok()?,
        pending: row.try_get(9).ok()?,
        answers: keys.into_iter().zip(values).collect(),
        version: ms(12)?,
    })
}

/// A count of milliseconds (or a version) as a `bigint`.
fn to_db(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Logs why the store is out of reach (never a URL or password: the driver's and the
/// pool's messages hold neither) and says so.
fn unavailable(why: impl fmt::Display) -> StoreError {
    tracing::warn!(error = %why, "the task store is out of reach");
    StoreError::Unavailable
}

/// A node name for a server not given one: `node-` and 64 random bits in hex (the process
/// id and the time, should the OS random source fail: names must differ between servers).
fn random_node() -> String {
    let mut bytes = [0u8; 8];
    let bits = match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_be_bytes(bytes),
        Err(_) => u64::from(std::process::id()) << 32 ^ super::time::now_ms(),
    };
    format!("node-{bits:016x}")
}
