//! The client side of stdio: a server process spawned with piped standard streams, one
//! JSON-RPC message per line each way, responses matched to requests by id.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Semaphore, oneshot};

use snodo_core::json::{Limits, parse};

use super::handlers::Handlers;
use super::server_requests::{self, MAX_CONCURRENT_SERVER_REQUESTS};
use super::{ClientError, Notify};

type Pending = Arc<Mutex<HashMap<i64, oneshot::Sender<Vec<u8>>>>>;
type Stdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// Answers the requests a server of the `initialize` era sends, once the session is one.
struct Responder {
    handlers: Handlers,
    legacy: Arc<AtomicBool>,
    stdin: Stdin,
    permits: Arc<Semaphore>,
    limits: Limits,
}

/// A running server process.
pub(crate) struct StdioTransport {
    stdin: Stdin,
    legacy: Arc<AtomicBool>,
    child: tokio::sync::Mutex<Option<Child>>,
    pending: Pending,
    reader: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for StdioTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdioTransport").finish_non_exhaustive()
    }
}

impl StdioTransport {
    /// Spawns `command` with piped stdin and stdout (stderr as the command says; inherited
    /// unless set). On a legacy session, `handlers` answer the server's requests.
    pub(crate) fn spawn(
        mut command: Command,
        limits: Limits,
        notify: Option<Notify>,
        handlers: Handlers,
    ) -> Result<Self, ClientError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|e| ClientError::Transport(format!("cannot start the server: {e}")))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ClientError::transport("the server's stdout is not piped"))?;
        let pending: Pending = Arc::default();
        let stdin: Stdin = Arc::new(tokio::sync::Mutex::new(stdin));
        let legacy = Arc::new(AtomicBool::new(false));
        let responder = Responder {
            handlers,
            legacy: Arc::clone(&legacy),
            stdin: Arc::clone(&stdin),
            permits: Arc::new(Semaphore::new(MAX_CONCURRENT_SERVER_REQUESTS)),
            limits,
        };
        let reader = tokio::spawn(read_responses(
            stdout,
            Arc::clone(&pending),
            limits,
            notify,
            responder,
        ));
        Ok(StdioTransport {
            stdin,
            legacy,
            child: tokio::sync::Mutex::new(Some(child)),
            pending,
            reader,
        })
    }

    /// Sends `request` (id `id`) and waits for its response line.
    pub(crate) async fn round_trip(
        &self,
        id: i64,
        request: &[u8],
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>, ClientError> {
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let mut guard = Cancel {
            transport: self,
            id,
            armed: true,
        };
        self.send_line(request).await?;
        let response = match timeout {
            Some(limit) => tokio::time::timeout(limit, rx)
                .await
                .map_err(|_| ClientError::Timeout)?,
            None => rx.await,
        };
        let response = response.map_err(|_| ClientError::Closed)?;
        guard.armed = false;
        Ok(response)
    }

    /// From now on the session is of the `initialize` era: the server's requests are
    /// answered.
    pub(crate) fn set_legacy(&self) {
        self.legacy.store(true, Ordering::Release);
    }

    /// Sends one message that expects no response (a notification).
    pub(crate) async fn send_line(&self, message: &[u8]) -> Result<(), ClientError> {
        write_line(&self.stdin, message).await
    }

    /// Closes the server's input, waits up to `grace` for it to exit, then kills it.
    pub(crate) async fn close(&self, grace: Duration) {
        drop(self.stdin.lock().await.take());
        if let Some(mut child) = self.child.lock().await.take() {
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
        self.reader.abort();
        lock(&self.pending).clear();
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Sends `notifications/cancelled` for a request whose caller stopped waiting.
struct Cancel<'t> {
    transport: &'t StdioTransport,
    id: i64,
    armed: bool,
}

impl Drop for Cancel<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let removed = lock(&self.transport.pending).remove(&self.id);
        if removed.is_none() {
            return; // answered already
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut line = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client stopped waiting"}
        })
        .to_string()
        .into_bytes();
        line.push(b'\n');
        let stdin = Arc::clone(&self.transport.stdin);
        runtime.spawn(async move {
            if let Some(pipe) = stdin.lock().await.as_mut() {
                let _ = pipe.write_all(&line).await;
                let _ = pipe.flush().await;
            }
        });
    }
}

/// Writes `message` and a newline to the server's input.
async fn write_line(stdin: &Stdin, message: &[u8]) -> Result<(), ClientError> {
    let mut stdin = stdin.lock().await;
    let pipe = stdin.as_mut().ok_or(ClientError::Closed)?;
    let mut line = Vec::with_capacity(message.len() + 1);
    line.extend_from_slice(message);
    line.push(b'\n');
    let written = async {
        pipe.write_all(&line).await?;
        pipe.flush().await
    };
    written.await.map_err(|_| ClientError::Closed)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads the server's stdout line by line: responses go to whoever waits for their id,
/// notifications to `notify`. At the end of output every waiter learns the stream closed.
async fn read_responses(
    stdout: ChildStdout,
    pending: Pending,
    limits: Limits,
    notify: Option<Notify>,
    responder: Responder,
) {
    let mut lines = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        let text = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&line);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if responder.legacy.load(Ordering::Acquire) && is_request(text, &limits) {
            responder.answer(text.to_vec()).await;
            continue;
        }
        route(text, &pending, &limits, notify.as_ref());
    }
    lock(&pending).clear();
}

/// Whether `message` is a request (a method and an id of any kind).
fn is_request(message: &[u8], limits: &Limits) -> bool {
    parse(message, limits).is_ok_and(|v| v.get("method").is_some() && v.get("id").is_some())
}

impl Responder {
    /// Answers the server's request `message` in a task of its own, at most
    /// [`MAX_CONCURRENT_SERVER_REQUESTS`] at a time (the reader waits for a place).
    async fn answer(&self, message: Vec<u8>) {
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return;
        };
        let handlers = self.handlers.clone();
        let stdin = Arc::clone(&self.stdin);
        let limits = self.limits;
        tokio::spawn(async move {
            if let Some(response) = server_requests::answer(&handlers, &message, &limits).await {
                let _ = write_line(&stdin, &response).await;
            }
            drop(permit);
        });
    }
}

/// Hands one message to its waiter or to the notification callback.
pub(crate) fn route(message: &[u8], pending: &Pending, limits: &Limits, notify: Option<&Notify>) {
    let Ok(value) = parse(message, limits) else {
        tracing::warn!("the server wrote a line that is not JSON; ignored");
        return;
    };
    let has_id = value.get("id").is_some_and(|id| !id.is_null());
    let id = value.get("id").and_then(|id| id.as_i64());
    match (value.get("method"), id) {
        (Some(_), _) if has_id => {
            tracing::warn!("the server sent a request, which 2026-07-28 forbids; ignored");
        }
        (Some(_), _) => {
            if let Some(notify) = notify {
                notify(super::handlers::json_of(message));
            }
        }
        (None, Some(id)) => {
            if let Some(waiter) = lock(pending).remove(&id) {
                let _ = waiter.send(message.to_vec());
            }
        }
        (None, None) => {
            // An error the server could not tie to a request: nobody to give it to.
            tracing::warn!("the server sent a response without a usable id; ignored");
        }
    }
}
