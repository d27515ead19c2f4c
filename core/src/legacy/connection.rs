//! One connection of the legacy dialect, sans-IO: the era gate and the session of a
//! connection that carries one client (a stdio process, a serial link, the bridge's stdio
//! side), fed one parsed message at a time.
//!
//! [`Connection::read`] decides what each message is, in the order they arrive, and writes
//! what the dialect answers itself; the transport acts on the [`Action`]: serve it the
//! 2026-07-28 way, answer `initialize` and [`open`](Connection::open) the session, or act on
//! the session's [`Step`] (send the reply, run a request through the bridge loop, route an
//! answer, stop a cancelled request, change a subscription). It keeps no clock, buffer or
//! task: waits are the transport's ([`super::drive`](mod@super::drive) asks for them).

use super::dispatch::Step;
use super::era::{Era, EraGate, EraMismatch, EraSupport, Signal, signal};
use super::session::Session;
use crate::json::Writer;
use crate::rpc::{ErrorCode, Incoming, Request, write_error};
use crate::server::ServerCapabilities;

/// The era and, once `initialize` opened it, the session of one connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connection {
    support: EraSupport,
    gate: EraGate,
    session: Option<Session>,
}

/// What the transport does with one message ([`Connection::read`]).
#[derive(Clone, Copy, Debug)]
pub enum Action<'m> {
    /// Serve it on the 2026-07-28 path, exactly as a modern-only server does (which also
    /// answers a message that does not parse, and `initialize` where no session can open,
    /// in its own words).
    Modern,
    /// `initialize` on a connection without a session: answer it
    /// ([`super::write_initialize_result`]) and [`open`](Connection::open) the session.
    Initialize(Request<'m>),
    /// What the dialect made of it: a reply written ([`Step::Replied`]), nothing to send, a
    /// cancellation, a subscription change, a request for the modern handler path, or the
    /// client's answer to a bridged request.
    Session(Step<'m>),
}

impl Connection {
    /// A new connection of a server that answers `support`.
    pub const fn new(support: EraSupport) -> Self {
        Connection {
            support,
            gate: EraGate::new(support),
            session: None,
        }
    }

    /// The era decided so far.
    pub fn era(&self) -> Option<Era> {
        self.gate.era()
    }

    /// The session, once `initialize` opened it.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The session to change (a leg of the bridge takes its ids), once opened.
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        self.session.as_mut()
    }

    /// Opens the session `initialize` was answered with. Messages are read in order, so no
    /// other `initialize` opened one first; a second `initialize` is refused by the session.
    pub fn open(&mut self, session: Session) {
        if self.session.is_none() {
            self.session = Some(session);
        }
    }

    /// Reads one `message` of the connection. `served` is what the server advertised; what
    /// the dialect answers itself (a refused era mix, a request before `initialize`, `ping`,
    /// `logging/setLevel`, ...) is written in `w` and is [`Step::Replied`].
    pub fn read<'m>(
        &mut self,
        message: &Incoming<'m>,
        served: ServerCapabilities,
        w: &mut Writer<'_>,
    ) -> Action<'m> {
        if self.era() == Some(Era::Legacy) {
            match message {
                Incoming::Request(_) => {}
                Incoming::Response(response) => return Action::Session(Step::Answer(*response)),
                Incoming::Notification(_) => {
                    // A notification of the other era is dropped; one before the session
                    // changes nothing.
                    if self.gate.admit(message).is_err() {
                        return Action::Session(Step::Quiet);
                    }
                    let Some(session) = &mut self.session else {
                        return Action::Session(Step::Quiet);
                    };
                    return Action::Session(session.step(message, served, w));
                }
            }
        }
        match self.gate.admit(message) {
            Ok(Era::Modern)
            | Err(EraMismatch::NotServed(Era::Legacy) | EraMismatch::InitializeOnModern) => {
                return Action::Modern;
            }
            Ok(Era::Legacy) => {}
            Err(mismatch) => {
                if let Incoming::Request(request) = message {
                    mismatch.write_error(w, Some(request.id), self.support);
                    return Action::Session(Step::Replied);
                }
                return Action::Session(Step::Quiet);
            }
        }
        let Incoming::Request(request) = message else {
            return Action::Session(Step::Quiet);
        };
        match &mut self.session {
            Some(session) => Action::Session(session.step(message, served, w)),
            None if signal(message) == Signal::Initialize => Action::Initialize(*request),
            None => {
                let why = "The session is not initialized: send initialize first";
                write_error(w, Some(request.id), ErrorCode::INVALID_REQUEST, why, None);
                Action::Session(Step::Replied)
            }
        }
    }
}
