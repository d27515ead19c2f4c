//! The device as an async service: one request on the link at a time, its notifications and
//! reply matched back to it, and every failure of the link turned into a clear error.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use snodo_core::io::BOOT_METHOD;
use snodo_core::json::{self, Limits, Value};
use snodo_core::rpc::{self, Id, Incoming};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::serial::{self, FromPort, Running, SerialConfig};

/// Why the bridge could not get an answer from the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// The port is gone (the device was unplugged or closed its end) and could not be
    /// opened again.
    Disconnected(String),
    /// No reply within the timeout; `reset` says whether the device announced a restart
    /// meanwhile (the request may have been lost with it).
    Timeout {
        /// The timeout.
        after: Duration,
        /// Whether the device restarted while the request was in flight.
        reset: bool,
    },
    /// The device answered something that is not a reply: a corrupt frame, bytes that are
    /// not JSON-RPC, a frame larger than the bridge takes. The request may have run.
    Garbage(String),
    /// The message is larger than the device accepts.
    TooLarge {
        /// The device's limit in bytes.
        limit: usize,
    },
    /// Too many requests are waiting for the device.
    Busy,
}

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceError::Disconnected(why) => write!(f, "the device is disconnected: {why}"),
            DeviceError::Timeout { after, reset } => {
                write!(
                    f,
                    "the device did not answer within {} ms",
                    after.as_millis()
                )?;
                if *reset {
                    f.write_str(" (it restarted while the request was in flight)")?;
                }
                Ok(())
            }
            DeviceError::Garbage(what) => write!(
                f,
                "the device answered garbage ({what}); the request may or may not have run"
            ),
            DeviceError::TooLarge { limit } => {
                write!(
                    f,
                    "the message is larger than the device accepts ({limit} bytes)"
                )
            }
            DeviceError::Busy => f.write_str("too many requests are waiting for the device"),
        }
    }
}

impl std::error::Error for DeviceError {}

/// What the device produced for one message, in order.
#[derive(Debug)]
pub enum Answer {
    /// A notification about the request (progress, a log message), before its reply.
    Notification(Vec<u8>),
    /// The reply (the last answer).
    Reply(Vec<u8>),
    /// The message was a notification: it was sent, and nothing comes back (the last answer).
    Sent,
    /// No reply (the last answer).
    Failed(DeviceError),
}

/// How the bridge treats the device.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// Where the device is.
    pub serial: SerialConfig,
    /// How long a request may wait for its reply once it is on the link.
    pub timeout: Duration,
    /// The largest message the device accepts (2048 for the example firmware).
    pub max_message: usize,
    /// Requests that may wait for the link.
    pub queue: usize,
}

impl DeviceConfig {
    /// Defaults for the device at `serial`: 10 s timeout, 2 KiB messages, 64 waiting.
    pub fn new(serial: SerialConfig) -> Self {
        DeviceConfig {
            serial,
            timeout: Duration::from_secs(10),
            max_message: snodo_core::io::DEVICE_MAX_MESSAGE,
            queue: 64,
        }
    }
}

struct Job {
    message: Vec<u8>,
    answers: mpsc::Sender<Answer>,
}

/// A handle on the device; clones share one link.
#[derive(Clone, Debug)]
pub struct Device {
    jobs: mpsc::Sender<Job>,
    max_message: usize,
    /// Counts the device's boots and the port's reopenings: what the bridge learnt of the
    /// device before a change may no longer hold.
    generation: Arc<AtomicU64>,
}

impl fmt::Debug for Job {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Job")
            .field("len", &self.message.len())
            .finish()
    }
}

impl Device {
    /// Opens the port and starts the task that serves it. Fails when the port cannot be
    /// opened now; later disconnections are retried on the next message.
    pub fn open(config: DeviceConfig) -> std::io::Result<Device> {
        let file = serial::open(&config.serial.path, config.serial.baud)?;
        let (incoming_tx, incoming) = mpsc::channel(64);
        let running = serial::start(file, config.serial.framing, incoming_tx)?;
        let (jobs, queue) = mpsc::channel(config.queue.max(1));
        let max_message = config.max_message;
        let generation = Arc::new(AtomicU64::new(0));
        tokio::spawn(
            Link {
                config,
                running: Some(running),
                incoming,
                resets: 0,
                generation: Arc::clone(&generation),
            }
            .run(queue),
        );
        Ok(Device {
            jobs,
            max_message,
            generation,
        })
    }

    /// Changes when the device restarts or its port is opened again.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Sends `message` to the device; the answers arrive on the returned receiver, ending
    /// with a reply, [`Answer::Sent`] or [`Answer::Failed`].
    pub fn send(&self, message: Vec<u8>) -> mpsc::Receiver<Answer> {
        let (answers, received) = mpsc::channel(16);
        if message.len() > self.max_message {
            let _ = answers.try_send(Answer::Failed(DeviceError::TooLarge {
                limit: self.max_message,
            }));
            return received;
        }
        let job = Job { message, answers };
        if let Err(e) = self.jobs.try_send(job) {
            let job = match e {
                mpsc::error::TrySendError::Full(job) | mpsc::error::TrySendError::Closed(job) => {
                    job
                }
            };
            let _ = job.answers.try_send(Answer::Failed(DeviceError::Busy));
        }
        received
    }
}

/// A request id, comparable across the client's text and the device's.
#[derive(Clone, Debug, PartialEq, Eq)]
enum IdKey {
    Num(i64),
    Str(String),
    Null,
}

impl IdKey {
    fn of(id: Option<Id<'_>>) -> IdKey {
        match id {
            Some(Id::Num(n)) => IdKey::Num(n),
            Some(Id::Str(s)) => IdKey::Str(s.chars().collect()),
            None => IdKey::Null,
        }
    }

    fn of_value(v: Value<'_>) -> Option<IdKey> {
        if v.is_null() {
            return Some(IdKey::Null);
        }
        Id::from_value(v).map(|id| IdKey::of(Some(id)))
    }
}

/// What a frame from the device is.
enum Said {
    Boot,
    Notification,
    Reply(IdKey),
    Garbage(&'static str),
}

fn classify(message: &[u8]) -> Said {
    let Ok(value) = json::parse(message, &Limits::HOST) else {
        return Said::Garbage("not JSON");
    };
    let method = value.get("method").and_then(|m| m.as_str());
    match (value.get("id"), method) {
        (None, Some(method)) if method.eq_str(BOOT_METHOD) => Said::Boot,
        (None, Some(_)) => Said::Notification,
        (Some(id), None) if value.get("result").is_some() || value.get("error").is_some() => {
            match IdKey::of_value(id) {
                Some(key) => Said::Reply(key),
                None => Said::Garbage("a reply with an invalid id"),
            }
        }
        (Some(_), Some(_)) => Said::Garbage("a request from the device"),
        _ => Said::Garbage("not a JSON-RPC message"),
    }
}

/// What a message to the device expects back.
enum Expect {
    Reply(IdKey),
    Nothing,
    /// A client's response to a server request: the device never sends requests.
    Drop,
}

fn expect(message: &[u8]) -> Expect {
    match rpc::parse(message, &Limits::HOST) {
        Ok(Incoming::Request(request)) => Expect::Reply(IdKey::of(Some(request.id))),
        Ok(Incoming::Notification(_)) => Expect::Nothing,
        Ok(Incoming::Response(_)) => Expect::Drop,
        // The device answers an invalid message with an error, its id or null.
        Err(rejected) => Expect::Reply(IdKey::of(rejected.id)),
    }
}

/// The task that owns the link.
struct Link {
    config: DeviceConfig,
    running: Option<Running>,
    incoming: mpsc::Receiver<FromPort>,
    resets: u64,
    generation: Arc<AtomicU64>,
}

impl Link {
    async fn run(mut self, mut jobs: mpsc::Receiver<Job>) {
        loop {
            tokio::select! {
                job = jobs.recv() => match job {
                    Some(job) => self.serve(job).await,
                    None => return,
                },
                seen = self.incoming.recv(), if self.running.is_some() => match seen {
                    Some(seen) => self.unsolicited(seen),
                    None => self.running = None,
                },
            }
        }
    }

    /// Something the device said while no request was waiting.
    fn unsolicited(&mut self, seen: FromPort) {
        match seen {
            FromPort::Message(m) => match classify(&m) {
                Said::Boot => self.booted(),
                Said::Notification => tracing::debug!("device notification outside a request"),
                Said::Reply(id) => tracing::warn!(?id, "a reply nobody waits for (a late answer?)"),
                Said::Garbage(what) => {
                    tracing::warn!(what, len = m.len(), "the device sent garbage")
                }
            },
            FromPort::Corrupt => tracing::warn!("the device sent a corrupt frame"),
            FromPort::TooLong => tracing::warn!("the device sent an overlong frame"),
            FromPort::Closed(why) => self.closed(&why),
        }
    }

    fn booted(&mut self) {
        self.resets += 1;
        self.generation.fetch_add(1, Ordering::AcqRel);
        tracing::warn!(
            path = %self.config.serial.path.display(),
            "the device (re)started: state tokens it issued before no longer open"
        );
    }

    fn closed(&mut self, why: &str) {
        if self.running.take().is_some() {
            tracing::error!(path = %self.config.serial.path.display(), "device disconnected: {why}");
        }
    }

    /// Opens the port again after a disconnection.
    fn reopen(&mut self) -> Result<(), DeviceError> {
        let path = &self.config.serial.path;
        let file = serial::open(path, self.config.serial.baud).map_err(|e| {
            DeviceError::Disconnected(format!("{} cannot be opened: {e}", path.display()))
        })?;
        let (incoming_tx, incoming) = mpsc::channel(64);
        let running = serial::start(file, self.config.serial.framing, incoming_tx)
            .map_err(|e| DeviceError::Disconnected(format!("{e}")))?;
        tracing::info!(path = %path.display(), "device port opened again");
        self.incoming = incoming;
        self.running = Some(running);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    async fn serve(&mut self, job: Job) {
        let Job { message, answers } = job;
        let expected = expect(&message);
        if matches!(expected, Expect::Drop) {
            let _ = answers.send(Answer::Sent).await;
            return;
        }
        // Whatever arrived before this request belongs to no one.
        while let Ok(seen) = self.incoming.try_recv() {
            self.unsolicited(seen);
        }
        if self.running.is_none() {
            if let Err(e) = self.reopen() {
                let _ = answers.send(Answer::Failed(e)).await;
                return;
            }
        }
        let sent = self.running.as_ref().is_some_and(|r| r.send(message));
        if !sent {
            self.closed("the writer stopped");
            let error = DeviceError::Disconnected("the port's writer stopped".into());
            let _ = answers.send(Answer::Failed(error)).await;
            return;
        }
        let Expect::Reply(id) = expected else {
            let _ = answers.send(Answer::Sent).await;
            return;
        };
        let answer = self.await_reply(&id, &answers).await;
        let _ = answers.send(answer).await;
    }

    async fn await_reply(&mut self, id: &IdKey, answers: &mpsc::Sender<Answer>) -> Answer {
        let deadline = Instant::now() + self.config.timeout;
        let resets = self.resets;
        loop {
            let seen = match tokio::time::timeout_at(deadline, self.incoming.recv()).await {
                Err(_) => {
                    return Answer::Failed(DeviceError::Timeout {
                        after: self.config.timeout,
                        reset: self.resets != resets,
                    });
                }
                Ok(None) => FromPort::Closed("the reader stopped".into()),
                Ok(Some(seen)) => seen,
            };
            let message = match seen {
                FromPort::Message(m) => m,
                FromPort::Corrupt => {
                    return Answer::Failed(DeviceError::Garbage(
                        "a corrupt frame: bad COBS or CRC-16".into(),
                    ));
                }
                FromPort::TooLong => {
                    return Answer::Failed(DeviceError::Garbage("an overlong frame".into()));
                }
                FromPort::Closed(why) => {
                    self.closed(&why);
                    return Answer::Failed(DeviceError::Disconnected(why));
                }
            };
            match classify(&message) {
                Said::Reply(got) if got == *id || got == IdKey::Null => {
                    return Answer::Reply(message);
                }
                Said::Reply(got) => {
                    tracing::warn!(?got, expected = ?id, "a reply to another request; skipped");
                }
                Said::Notification => {
                    let _ = answers.send(Answer::Notification(message)).await;
                }
                // Keep waiting: the device may have restarted before it read the request, and
                // answer it now; if not, the timeout says it restarted.
                Said::Boot => self.booted(),
                Said::Garbage(what) => {
                    return Answer::Failed(DeviceError::Garbage(what.into()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_messages_are_classified() {
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/io.snodo/boot"}"#),
            Said::Boot
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#),
            Said::Notification
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":"a\u0062","result":{}}"#),
            Said::Reply(IdKey::Str(s)) if s == "ab"
        ));
        assert!(matches!(
            classify(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            Said::Reply(IdKey::Null)
        ));
        assert!(matches!(classify(b"boot v1.2"), Said::Garbage(_)));
        assert!(matches!(classify(br#"{"id":1}"#), Said::Garbage(_)));
    }

    #[test]
    fn what_a_message_expects() {
        assert!(matches!(
            expect(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#),
            Expect::Reply(IdKey::Num(7))
        ));
        assert!(matches!(
            expect(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#),
            Expect::Nothing
        ));
        assert!(matches!(
            expect(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Expect::Drop
        ));
        assert!(matches!(expect(b"{"), Expect::Reply(IdKey::Null)));
    }
}
