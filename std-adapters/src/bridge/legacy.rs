//! A legacy host (one that opens with `initialize`) on the bridge's stdio side, with the
//! device unchanged: it keeps speaking 2026-07-28, and the bridge keeps the legacy session.
//!
//! The era gate, the session and the answer waits are the stdio server's own
//! ([`crate::stdio::legacy::Legacy`]); `initialize` is answered from the device's
//! `server/discover` ([`Known`](super::rounds::Known), asked once for the session); each request the session hands
//! to the modern path runs through the bridge loop ([`crate::legacy::round::bridge`]) with
//! the device as its round ([`DeviceRounds`]), so `input_required` reaches the host as
//! `elicitation/create`, `sampling/createMessage` or `roots/list`, and the retry goes to the
//! device with the answers.
//!
//! The reader takes answers, cancellations and the session's own requests (`ping`,
//! `logging/setLevel`) at once; requests for the device wait in a bounded queue
//! ([`QUEUE`]) and run one at a time (the device serves one at a time), so a request waiting
//! for the host's answers never blocks the reading of those answers. A cancellation of a
//! request still in the queue drops it there: the device never sees it and the host gets no
//! reply, as the MCP cancellation rules ask.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{BridgeId, RequestHandle, Session};
use snodo_core::rpc::{self, ErrorCode, Id};
use snodo_core::server::Notifier;
use tokio::sync::{mpsc, oneshot};

use super::device::Device;
use super::rounds::{DeviceBackend, DeviceRounds, lock};
use crate::buffers::BufferPool;
use crate::in_flight::RequestKey;
use crate::legacy::backend::Backend;
use crate::legacy::round::{
    Answer, BridgeBuffers, BridgeConfig, Bridged, Link, LinkClosed, WaitsFull,
};
use crate::stdio::legacy::{Legacy, Read};

/// Requests of a legacy host that may wait for the device; more are refused (-32603).
pub(crate) const QUEUE: usize = 64;

/// The largest reply of the device the bridge lowers for a legacy host.
const MAX_REPLY: usize = 1 << 20;

/// The legacy side of one stdio connection.
pub(crate) struct Host<'d> {
    pub(crate) legacy: Legacy,
    device: &'d Device,
    bridge: BridgeConfig,
    /// `initialize` answered from the device's discovery (asked once per boot of the device).
    backend: DeviceBackend,
    /// The request running on the device and how to stop it.
    running: Mutex<Option<(RequestKey, oneshot::Sender<()>)>>,
    /// The requests in the queue, in order, each with whether the host cancelled it (at
    /// most [`QUEUE`]: one entry per queued request, taken when the runner takes it).
    waiting: Mutex<VecDeque<(RequestKey, bool)>>,
}

/// A request for the device, waiting for its turn: its line, and the request in it.
pub(crate) struct Queued(Vec<u8>, RequestHandle);

/// What [`Host::take`] did with a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    /// The line is the modern path's: relay it.
    Modern,
    /// Taken by the legacy session.
    Taken,
}

impl<'d> Host<'d> {
    pub(crate) fn new(device: &'d Device, legacy: Legacy, bridge: BridgeConfig) -> Self {
        Host {
            legacy,
            device,
            bridge,
            backend: DeviceBackend::new(device.clone()),
            running: Mutex::new(None),
            waiting: Mutex::new(VecDeque::with_capacity(QUEUE)),
        }
    }

    /// The device behind the bridge.
    pub(crate) fn device(&self) -> &'d Device {
        self.device
    }

    /// Takes one line of the legacy session, parsed once ([`Legacy::read`]): what is
    /// answered at once goes to `output`, a request for the device to `queue` (as a handle
    /// into its own copy of the line). `Err` when the output is gone.
    pub(crate) async fn take(
        &self,
        line: &[u8],
        output: &mpsc::Sender<Vec<u8>>,
        queue: &mpsc::Sender<Queued>,
    ) -> Result<Taken, LinkClosed> {
        let mut out = Vec::new();
        let served = || self.backend.served();
        let read = self
            .legacy
            .read(line, &Limits::HOST, served, &mut out, |key| self.stop(key));
        match read {
            Read::Modern => return Ok(Taken::Modern),
            Read::Taken => {}
            Read::Reply(len) => {
                out.truncate(len);
                send(output, out).await?;
            }
            Read::Initialize(request) => {
                let (answer, _) = self.legacy.open(&request, &self.backend).await;
                send(output, answer.to_vec()).await?;
            }
            Read::Request(request) => {
                let queued = {
                    // Listed before it is queued, under the lock: the runner finds it there.
                    let mut waiting = lock(&self.waiting);
                    waiting.push_back((RequestKey::from(request.id), false));
                    let queued = RequestHandle::of(line, &request)
                        .is_some_and(|h| queue.try_send(Queued(line.to_vec(), h)).is_ok());
                    if !queued {
                        waiting.pop_back();
                    }
                    queued
                };
                if !queued {
                    let busy = error(request.id, "Too many requests wait for the device");
                    send(output, busy).await?;
                }
            }
        }
        Ok(Taken::Taken)
    }

    /// Stops the running request if it is `key`, or drops it from the queue if it waits
    /// there (the earliest such one not yet cancelled).
    fn stop(&self, key: &RequestKey) -> bool {
        let mut running = lock(&self.running);
        if running.as_ref().is_some_and(|(k, _)| k == key) {
            return running
                .take()
                .is_some_and(|(_, stop)| stop.send(()).is_ok());
        }
        // Still under the running lock: the runner moves a request from one to the other under it.
        let mut waiting = lock(&self.waiting);
        match waiting
            .iter_mut()
            .find(|(k, cancelled)| k == key && !cancelled)
        {
            Some((_, cancelled)) => {
                *cancelled = true;
                true
            }
            None => false,
        }
    }

    /// Runs the queued requests on the device, one at a time, until the queue closes.
    pub(crate) async fn run(
        &self,
        mut queue: mpsc::Receiver<Queued>,
        output: mpsc::Sender<Vec<u8>>,
    ) {
        // One request at a time: one borrowed buffer, kept idle between rounds.
        let pool = Arc::new(BufferPool::new(MAX_REPLY, 1));
        let mut buffers = BridgeBuffers::new(pool, &self.bridge);
        while let Some(Queued(line, handle)) = queue.recv().await {
            // Viewed again in the line the reader read it from, without a scan.
            let (Some(request), Some(session)) = (handle.view(&line), self.legacy.session()) else {
                lock(&self.waiting).pop_front();
                continue;
            };
            let key = RequestKey::from(request.id);
            let stopped = {
                // Taken off the waiting list (its front: both are in the reader's order) under
                // the running lock, so a cancellation finds it in one place or the other.
                let mut running = lock(&self.running);
                let cancelled = lock(&self.waiting)
                    .pop_front()
                    .is_some_and(|(_, cancelled)| cancelled);
                if cancelled {
                    None
                } else {
                    let (stop, stopped) = oneshot::channel();
                    *running = Some((key.clone(), stop));
                    Some(stopped)
                }
            };
            let Some(stopped) = stopped else {
                tracing::debug!(request = ?key, "a queued legacy request was cancelled");
                continue;
            };
            let cancelled = async {
                if stopped.await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            let mut link = DeviceLink {
                host: self,
                session,
                output: &output,
            };
            let rounds = DeviceRounds {
                device: self.device,
            };
            let bridged = crate::legacy::round::bridge(
                &rounds,
                &mut link,
                &self.bridge,
                &request,
                &mut buffers,
                cancelled,
            )
            .await;
            lock(&self.running).take();
            match bridged {
                Bridged::Reply(len) => {
                    if send(&output, buffers.reply(len).to_vec()).await.is_err() {
                        return;
                    }
                }
                Bridged::Cancelled => tracing::debug!("a legacy request was cancelled"),
                Bridged::Closed => return,
            }
        }
    }
}

/// The bridge loop's view of the host: the session, its waits, and the output.
struct DeviceLink<'h> {
    host: &'h Host<'h>,
    /// The session when the request started.
    session: Session,
    output: &'h mpsc::Sender<Vec<u8>>,
}

impl Link for DeviceLink<'_> {
    fn session(&self) -> Session {
        self.host.legacy.session().unwrap_or(self.session)
    }

    fn update_session<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R {
        self.host.legacy.update_session(self.session, change)
    }

    fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Answer>, WaitsFull> {
        self.host.legacy.answers().wait_for(id)
    }

    async fn send(&mut self, message: &[u8]) -> Result<(), LinkClosed> {
        send(self.output, message.to_vec()).await
    }

    fn notifier(&mut self) -> &mut (dyn Notifier + Send) {
        self
    }
}

impl Notifier for DeviceLink<'_> {
    fn notify(&mut self, message: &[u8]) {
        // Advisory, as on the stdio server: dropped rather than blocking when far behind.
        if self.output.try_send(message.to_vec()).is_err() {
            tracing::debug!("notification dropped: the output queue is full");
        }
    }
}

async fn send(output: &mpsc::Sender<Vec<u8>>, message: Vec<u8>) -> Result<(), LinkClosed> {
    output.send(message).await.map_err(|_| LinkClosed)
}

fn error(id: Id<'_>, text: &str) -> Vec<u8> {
    let mut out = vec![0; 512];
    let mut w = Writer::new(&mut out);
    rpc::write_error(&mut w, Some(id), ErrorCode::INTERNAL_ERROR, text, None);
    let len = w.finish().unwrap_or(0);
    out.truncate(len);
    out
}
