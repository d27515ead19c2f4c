//! The core's legacy round ([`drive`]) over a scripted link: the real server runs every leg,
//! the script plays the client.

use core::future::Future;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use std::collections::VecDeque;
use std::string::String;
use std::vec::Vec;

use super::end_to_end::{CALL, Host, open_session};
use super::message;
use crate::json::Limits;
use crate::legacy::*;
use crate::rpc::Incoming;

/// The client as a script: the answers it gives, in order, and what it was sent.
struct Scripted<'h> {
    host: &'h Host,
    session: Session,
    answers: VecDeque<Next<Vec<u8>>>,
    sent: Vec<String>,
    expected: Vec<BridgeId>,
    runs: usize,
}

/// The script's answers are bytes the round reads itself.
impl ClientAnswer for Vec<u8> {
    fn response(&self, limits: &Limits) -> Result<ClientResponse<'_>, MalformedResponse> {
        parse_response(self, limits)
    }
}

impl Link for Scripted<'_> {
    type Answer = Vec<u8>;

    fn session(&self) -> Session {
        self.session
    }

    fn update_session<R>(&mut self, change: impl FnOnce(&mut Session) -> R) -> R {
        change(&mut self.session)
    }

    async fn run(&mut self, request: &[u8], out: &mut [u8]) -> Option<usize> {
        self.runs += 1;
        let reply = self.host.run(request);
        out[..reply.len()].copy_from_slice(&reply);
        Some(reply.len())
    }

    fn expect(&mut self, ids: &[BridgeId]) -> Result<(), WaitsFull> {
        self.expected = ids.to_vec();
        Ok(())
    }

    async fn send(&mut self, message: &[u8]) -> Result<(), LinkClosed> {
        self.sent
            .push(String::from_utf8(message.to_vec()).expect("ASCII"));
        Ok(())
    }

    async fn next_answer(&mut self) -> Next<Vec<u8>> {
        self.answers.pop_front().unwrap_or(Next::Gone)
    }
}

/// Buffers that start empty and grow, or stay fixed; lean ones also start with no reply and
/// no store, take the modern buffer only when lent it and give back what `keep` says.
struct Buffers {
    requests: [Vec<u8>; 2],
    modern: Vec<u8>,
    reply: Vec<u8>,
    store: Vec<u8>,
    grows: bool,
    lean: bool,
    /// What `lend` and `keep` were told, in order.
    told: Vec<(&'static str, Part, usize)>,
}

/// The size of the modern buffer a lean scratch borrows.
const MODERN_LEN: usize = 8192;

impl Buffers {
    fn new(grows: bool) -> Self {
        Buffers {
            requests: [Vec::new(), Vec::new()],
            modern: std::vec![0; MODERN_LEN],
            reply: std::vec![0; 8192],
            store: std::vec![0; 1024],
            grows,
            lean: false,
            told: Vec::new(),
        }
    }

    fn lean() -> Self {
        Buffers {
            modern: Vec::new(),
            reply: Vec::new(),
            store: Vec::new(),
            lean: true,
            ..Buffers::new(true)
        }
    }
}

impl Scratch for Buffers {
    fn parts(&mut self) -> Parts<'_> {
        let [a, b] = &mut self.requests;
        Parts {
            requests: [a, b],
            modern: &mut self.modern,
            reply: &mut self.reply,
            store: &mut self.store,
        }
    }

    fn grow(&mut self, part: Part, required: usize) -> bool {
        let buffer = match part {
            Part::Request(i) => &mut self.requests[i],
            Part::Reply => &mut self.reply,
            Part::Store => &mut self.store,
            Part::Modern => return false,
        };
        if self.grows {
            buffer.resize(required, 0);
        }
        self.grows
    }

    fn lend(&mut self, part: Part) {
        self.told.push(("lend", part, 0));
        if self.lean && part == Part::Modern {
            self.modern.resize(MODERN_LEN, 0);
        }
    }

    fn keep(&mut self, part: Part, len: usize) {
        self.told.push(("keep", part, len));
        if self.lean {
            let buffer = match part {
                Part::Modern => &mut self.modern,
                Part::Reply => &mut self.reply,
                _ => return,
            };
            buffer.truncate(len);
        }
    }
}

/// Polls `future` once: the scripted link never waits.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the scripted link never waits"),
    }
}

/// Drives the legacy `tools/call` [`CALL`] with `answers` and `buffers`: the reply's text
/// and the link afterwards.
fn drive_call<'h>(
    host: &'h Host,
    answers: Vec<Next<Vec<u8>>>,
    buffers: &mut Buffers,
) -> (Option<String>, Scripted<'h>) {
    let mut link = Scripted {
        host,
        session: open_session(r#"{"elicitation":{}}"#),
        answers: answers.into(),
        sent: Vec::new(),
        expected: Vec::new(),
        runs: 0,
    };
    let Incoming::Request(request) = message(CALL) else {
        panic!("a request")
    };
    let bridged = ready(drive(&mut link, buffers, &BridgeLimits::HOST, &request));
    let reply = match bridged {
        Bridged::Reply(len) => Some(String::from_utf8(buffers.reply[..len].to_vec()).unwrap()),
        Bridged::Cancelled | Bridged::Closed => None,
    };
    (reply, link)
}

const ELICIT: &str = r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"form","message":"Choose a color","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}"#;

#[test]
fn the_driver_bridges_a_legacy_request_to_its_final_reply() {
    let host = Host::new();
    let teal = br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#;
    let mut buffers = Buffers::new(true);
    let (reply, link) = drive_call(&host, std::vec![Next::Answer(teal.to_vec())], &mut buffers);
    assert_eq!(link.sent, [ELICIT]);
    assert_eq!(link.expected, [BridgeId(1)]);
    // The lifted request, then the retry with the answer.
    assert_eq!(link.runs, 2);
    assert_eq!(
        reply.as_deref(),
        Some(
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"color teal at step 1"}]}}"#
        )
    );
}

#[test]
fn a_wait_that_times_out_ends_the_request_and_cancels_the_bridged_one() {
    let host = Host::new();
    let mut buffers = Buffers::new(true);
    let (reply, link) = drive_call(&host, std::vec![Next::TimedOut], &mut buffers);
    let reply = reply.expect("an error reply");
    assert!(
        reply.starts_with(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603"#),
        "{reply}"
    );
    assert_eq!(link.sent.len(), 2);
    assert!(link.sent[1].contains(r#""method":"notifications/cancelled""#));
    assert!(link.sent[1].contains(r#""requestId":"snodo-bridge-1""#));
    assert_eq!(link.runs, 1);
}

#[test]
fn a_cancelled_wait_sends_nothing_for_the_request() {
    let host = Host::new();
    let mut buffers = Buffers::new(true);
    let (reply, link) = drive_call(&host, std::vec![Next::Cancelled], &mut buffers);
    assert_eq!(reply, None);
    assert_eq!(link.sent.len(), 2, "the elicitation and its cancellation");
}

#[test]
fn buffers_too_small_for_the_lifted_request_end_it_with_an_error() {
    let host = Host::new();
    let mut buffers = Buffers::new(false);
    let (reply, link) = drive_call(&host, Vec::new(), &mut buffers);
    assert_eq!(
        reply.as_deref(),
        Some(
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"The request exceeds the server's buffers"}}"#
        )
    );
    assert_eq!(link.runs, 0);
}

#[test]
fn a_waiting_request_keeps_only_what_its_retry_reads_and_borrows_the_rest_per_round() {
    let host = Host::new();
    let teal = br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#;
    let mut fixed = Buffers::new(true);
    let (expected, _) = drive_call(&host, std::vec![Next::Answer(teal.to_vec())], &mut fixed);
    let mut lean = Buffers::lean();
    let (reply, link) = drive_call(&host, std::vec![Next::Answer(teal.to_vec())], &mut lean);
    assert_eq!(
        reply, expected,
        "the same reply from buffers that start empty"
    );
    assert_eq!(link.sent, [ELICIT]);
    let told: Vec<_> = lean
        .told
        .iter()
        .map(|&(what, part, _)| (what, part))
        .collect();
    assert_eq!(
        told,
        [
            ("lend", Part::Modern),
            ("keep", Part::Modern),
            ("keep", Part::Reply),
            ("lend", Part::Modern),
        ],
        "lent for each round, kept short while the answer is awaited"
    );
    let kept = lean.told[1].2;
    assert!(
        kept > 0 && kept < 1024,
        "the input_required result only: {kept} bytes"
    );
    assert_eq!(lean.told[2].2, 0, "nothing of the sent request is kept");
    assert!(!lean.store.is_empty(), "the store grew to hold the answer");
}

#[test]
fn an_answer_larger_than_the_store_may_grow_ends_the_request() {
    let host = Host::new();
    let teal = br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#;
    let mut buffers = Buffers::new(false);
    buffers.store = Vec::new();
    buffers.requests = [std::vec![0; 8192], std::vec![0; 8192]];
    let (reply, _) = drive_call(&host, std::vec![Next::Answer(teal.to_vec())], &mut buffers);
    let reply = reply.expect("an error reply");
    assert!(reply.contains("larger than the server accepts"), "{reply}");
}
