//! What the legacy bridge loop needs of the device: the modern round of each lifted request
//! ([`DeviceRounds`]), and the answer to a legacy host's `initialize` from the device's own
//! `server/discover` ([`Known`]).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{Session, write_initialize_result};
use snodo_core::rpc::{self, ErrorCode, Id};
use snodo_core::server::{Config, Notifier, Principal, ServerCapabilities, ServerInfo};

use super::device::{Answer, Device, DeviceError};
use super::replies::{error_reply, failure_reply};
use crate::legacy::backend::Backend;
use crate::legacy::round::Rounds;

/// The device as the backend of legacy HTTP sessions: `initialize` answered from its
/// discovery, and each lifted request run on it.
///
/// The discovery is fixed for a boot of the device, so it is asked once and kept until the
/// device restarts or its port is opened again ([`Device::generation`]): one answer, no
/// larger than the device's largest message.
#[derive(Clone, Debug)]
pub(crate) struct DeviceBackend {
    device: Device,
    /// The device's discovery and the generation it was asked in (shared by the clones each
    /// POST takes).
    known: Arc<Mutex<Option<(u64, Known)>>>,
}

impl DeviceBackend {
    pub(crate) fn new(device: Device) -> Self {
        DeviceBackend {
            device,
            known: Arc::default(),
        }
    }
}

impl Backend for DeviceBackend {
    type Rounds<'b> = DeviceRounds<'b>;

    fn served(&self) -> ServerCapabilities {
        lock(&self.known)
            .as_ref()
            .map(|(_, known)| known.capabilities)
            .unwrap_or_default()
    }

    fn rounds<'b>(&'b self, _principal: Principal<'b>) -> DeviceRounds<'b> {
        DeviceRounds {
            device: &self.device,
        }
    }

    async fn initialize(&self, id: Id<'_>, session: &Session) -> Result<Bytes, String> {
        let generation = self.device.generation();
        let cached = lock(&self.known)
            .as_ref()
            .filter(|(asked_in, _)| *asked_in == generation)
            .map(|(_, known)| known.initialize_reply(id, session));
        if let Some(reply) = cached {
            return Ok(Bytes::from(reply));
        }
        let known = Known::ask(&self.device).await?;
        let reply = known.initialize_reply(id, session);
        *lock(&self.known) = Some((generation, known));
        Ok(Bytes::from(reply))
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The device runs each lifted request: the bridge loop's modern round, across the link.
pub(crate) struct DeviceRounds<'d> {
    pub(crate) device: &'d Device,
}

impl Rounds for DeviceRounds<'_> {
    fn limits(&self) -> Limits {
        Limits::HOST
    }

    async fn run(
        &self,
        request: &[u8],
        out: &mut [u8],
        notifier: &mut (dyn Notifier + Send),
    ) -> usize {
        let mut answers = self.device.send(request.to_vec());
        let reply = loop {
            match answers.recv().await {
                Some(Answer::Notification(m)) => notifier.notify(&m),
                Some(Answer::Reply(m)) => break m,
                Some(Answer::Failed(e)) => {
                    tracing::error!("{e}");
                    break failure_reply(request, &e).unwrap_or_default();
                }
                Some(Answer::Sent) | None => {
                    break error_reply(request, ErrorCode::INTERNAL_ERROR, "the bridge stopped");
                }
            }
        };
        match out.get_mut(..reply.len()) {
            Some(room) => {
                room.copy_from_slice(&reply);
                reply.len()
            }
            None => {
                let mut w = Writer::new(out);
                let id = rpc::parse(request, &Limits::HOST)
                    .ok()
                    .and_then(|m| match m {
                        rpc::Incoming::Request(r) => Some(r.id),
                        _ => None,
                    });
                rpc::write_error(
                    &mut w,
                    id,
                    ErrorCode::INTERNAL_ERROR,
                    "The device's reply exceeds the bridge's buffer",
                    None,
                );
                w.finish().unwrap_or(0)
            }
        }
    }
}

/// What the device says about itself in `server/discover` (its `serverInfo` in `_meta`, its
/// capabilities and instructions), as a legacy host's
/// `initialize` result needs it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Known {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    website_url: Option<String>,
    instructions: Option<String>,
    /// The device's capabilities as served to a legacy host: no list changes and no
    /// resource subscriptions, since the bridge relays no notifications outside a request.
    pub(crate) capabilities: ServerCapabilities,
}

/// The request the bridge asks the device with.
const DISCOVER: &[u8] = snodo_core::envelope!(
    request: r#""snodo-bridge/discover""#,
    "server/discover",
    r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#
);

impl Known {
    /// Asks the device its `server/discover`.
    pub(crate) async fn ask(device: &Device) -> Result<Known, String> {
        tracing::debug!("asking the device its server/discover");
        let mut answers = device.send(DISCOVER.to_vec());
        loop {
            match answers.recv().await {
                Some(Answer::Notification(_)) => {}
                Some(Answer::Reply(reply)) => return Known::read(&reply),
                Some(Answer::Failed(e)) => return Err(e.to_string()),
                Some(Answer::Sent) | None => {
                    return Err(DeviceError::Garbage("no discovery result".into()).to_string());
                }
            }
        }
    }

    /// Reads a `server/discover` reply.
    fn read(reply: &[u8]) -> Result<Known, String> {
        let reply: serde_json::Value =
            serde_json::from_slice(reply).map_err(|e| format!("discovery unreadable: {e}"))?;
        if let Some(error) = reply.get("error") {
            return Err(format!("the device refused discovery: {error}"));
        }
        let result = &reply["result"];
        let info = &result["_meta"]["io.modelcontextprotocol/serverInfo"];
        let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
        let (Some(name), Some(version)) = (text(&info["name"]), text(&info["version"])) else {
            return Err(format!("the device's discovery names no server: {reply}"));
        };
        let has = |key: &str| result["capabilities"].get(key).is_some();
        Ok(Known {
            name,
            version,
            title: text(&info["title"]),
            description: text(&info["description"]),
            website_url: text(&info["websiteUrl"]),
            instructions: text(&result["instructions"]),
            capabilities: ServerCapabilities {
                tools: has("tools"),
                resources: has("resources"),
                prompts: has("prompts"),
                completions: has("completions"),
                logging: has("logging"),
                ..ServerCapabilities::default()
            },
        })
    }

    /// The `initialize` result for request `id` of `session`.
    pub(crate) fn initialize_reply(&self, id: Id<'_>, session: &Session) -> Vec<u8> {
        let mut out = vec![0; 4096];
        let len = loop {
            let mut w = Writer::new(&mut out);
            self.write_initialize(&mut w, id, session);
            match w.finish() {
                Ok(len) => break len,
                Err(short) => out.resize(short.required, 0),
            }
        };
        out.truncate(len);
        out
    }

    /// Writes the `initialize` result for request `id` of `session`.
    fn write_initialize(&self, w: &mut Writer<'_>, id: Id<'_>, session: &Session) {
        let mut config = Config::new(self.name.as_str(), self.version.as_str());
        config.info = ServerInfo {
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            website_url: self.website_url.as_deref(),
            ..config.info
        };
        config.instructions = self.instructions.as_deref();
        write_initialize_result(w, id, session, &config, self.capabilities);
    }
}
