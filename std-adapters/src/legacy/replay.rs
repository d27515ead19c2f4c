//! The event streams of a legacy session's POSTs, kept for resumption (2025-11-25, SEP-1699):
//! each event gets an id `<stream>-<sequence>`, and a client whose connection dropped comes
//! back with `GET` and `Last-Event-ID` to get what it missed and the rest.
//!
//! The session keeps the newest events of all its streams in one ring bounded in bytes
//! (always at least the newest event, so one large reply is never lost to its own size); an
//! older event may be gone by the time a client resumes, and then the resumed stream goes on
//! from what is left.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use bytes::{BufMut, Bytes, BytesMut};
use tokio::sync::Notify;

/// One message of a stream, as its consumer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Event {
    /// Its position in the stream, from 1.
    pub(crate) seq: u64,
    /// The JSON-RPC message.
    pub(crate) message: Bytes,
    /// Whether it is the stream's last (the request's response).
    pub(crate) last: bool,
}

impl Event {
    /// The event as an SSE frame with its id.
    pub(crate) fn frame(&self, stream: u64) -> Bytes {
        let head = format!("id: {stream}-{}\nevent: message\ndata: ", self.seq);
        let mut frame = BytesMut::with_capacity(head.len() + self.message.len() + 2);
        frame.put_slice(head.as_bytes());
        let start = frame.len();
        frame.put_slice(&self.message);
        // Valid JSON has raw line breaks only as whitespace: a space is an exact substitute.
        for b in &mut frame[start..] {
            if matches!(*b, b'\r' | b'\n') {
                *b = b' ';
            }
        }
        frame.put_slice(b"\n\n");
        frame.freeze()
    }
}

/// The priming event that opens a stream: its id, the reconnection delay, empty data.
pub(crate) fn priming(stream: u64, retry_ms: u64) -> Bytes {
    Bytes::from(format!("id: {stream}-0\nretry: {retry_ms}\ndata: \n\n"))
}

/// Reads a `Last-Event-ID` this server wrote: the stream and the sequence seen last.
pub(crate) fn parse_event_id(text: &[u8]) -> Option<(u64, u64)> {
    let text = std::str::from_utf8(text).ok()?.trim();
    let (stream, seq) = text.split_once('-')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

/// The streams of one session.
#[derive(Debug)]
pub(crate) struct Streams {
    budget: usize,
    ring: Mutex<Ring>,
    /// Woken at every new event and when the session ends.
    changed: Notify,
}

#[derive(Debug, Default)]
struct Ring {
    next_stream: u64,
    /// (stream, event), oldest first.
    events: VecDeque<(u64, Event)>,
    bytes: usize,
    /// The next sequence number of each live stream.
    live: Vec<(u64, u64)>,
    closed: bool,
}

impl Streams {
    /// Streams whose kept events take at most `budget` bytes (beyond the newest one).
    pub(crate) fn new(budget: usize) -> Self {
        Streams {
            budget,
            ring: Mutex::new(Ring {
                next_stream: 1,
                ..Ring::default()
            }),
            changed: Notify::new(),
        }
    }

    /// Starts a stream; its number.
    pub(crate) fn open(&self) -> u64 {
        let mut ring = self.lock();
        let stream = ring.next_stream;
        ring.next_stream += 1;
        ring.live.push((stream, 1));
        stream
    }

    /// Appends `message` to `stream` (`last` ends it).
    pub(crate) fn push(&self, stream: u64, message: Bytes, last: bool) {
        let mut ring = self.lock();
        let Some(index) = ring.live.iter().position(|(s, _)| *s == stream) else {
            return;
        };
        let seq = ring.live[index].1;
        if last {
            ring.live.swap_remove(index);
        } else {
            ring.live[index].1 += 1;
        }
        ring.bytes += message.len();
        ring.events
            .push_back((stream, Event { seq, message, last }));
        while ring.bytes > self.budget && ring.events.len() > 1 {
            if let Some((_, old)) = ring.events.pop_front() {
                ring.bytes -= old.message.len();
            }
        }
        drop(ring);
        self.changed.notify_waiters();
    }

    /// Ends `stream` if it is still running (its request ended without a reply).
    pub(crate) fn end(&self, stream: u64) {
        self.lock().live.retain(|(s, _)| *s != stream);
        self.changed.notify_waiters();
    }

    /// Whether `stream` has events kept or is still running.
    pub(crate) fn known(&self, stream: u64) -> bool {
        let ring = self.lock();
        ring.live.iter().any(|(s, _)| *s == stream) || ring.events.iter().any(|(s, _)| *s == stream)
    }

    /// The next event of `stream` after sequence `after`, waiting for it; `None` when the
    /// stream has ended (or its rest was dropped from the ring) or the session has.
    pub(crate) async fn next(&self, stream: u64, after: u64) -> Option<Event> {
        loop {
            let changed = self.changed.notified();
            {
                let ring = self.lock();
                let found = ring
                    .events
                    .iter()
                    .find(|(s, e)| *s == stream && e.seq > after)
                    .map(|(_, e)| e.clone());
                if found.is_some() {
                    return found;
                }
                if ring.closed || !ring.live.iter().any(|(s, _)| *s == stream) {
                    return None;
                }
            }
            changed.await;
        }
    }

    /// Ends every wait: the session is over.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }

    fn lock(&self) -> MutexGuard<'_, Ring> {
        self.ring.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(event: &Option<Event>) -> Option<(&[u8], u64, bool)> {
        event.as_ref().map(|e| (&e.message[..], e.seq, e.last))
    }

    #[tokio::test]
    async fn a_stream_replays_after_an_id_and_ends_with_its_last_event() {
        let streams = Streams::new(1024);
        let a = streams.open();
        let b = streams.open();
        assert_ne!(a, b);
        streams.push(a, Bytes::from_static(b"one"), false);
        streams.push(b, Bytes::from_static(b"other"), true);
        streams.push(a, Bytes::from_static(b"two"), true);
        assert_eq!(
            text(&streams.next(a, 0).await),
            Some((&b"one"[..], 1, false))
        );
        assert_eq!(
            text(&streams.next(a, 1).await),
            Some((&b"two"[..], 2, true))
        );
        assert_eq!(streams.next(a, 2).await, None);
        assert_eq!(
            text(&streams.next(b, 0).await),
            Some((&b"other"[..], 1, true))
        );
        assert!(streams.known(a));
        assert!(!streams.known(99));
    }

    #[tokio::test]
    async fn a_waiting_reader_gets_the_next_event_or_the_end_of_the_session() {
        let streams = std::sync::Arc::new(Streams::new(1024));
        let a = streams.open();
        let reader = {
            let streams = std::sync::Arc::clone(&streams);
            tokio::spawn(async move { streams.next(a, 0).await })
        };
        tokio::task::yield_now().await;
        streams.push(a, Bytes::from_static(b"late"), false);
        assert_eq!(reader.await.unwrap().unwrap().message, "late");
        let waiting = {
            let streams = std::sync::Arc::clone(&streams);
            tokio::spawn(async move { streams.next(a, 1).await })
        };
        tokio::task::yield_now().await;
        streams.close();
        assert_eq!(waiting.await.unwrap(), None);
    }

    #[test]
    fn the_ring_keeps_its_budget_but_always_the_newest_event() {
        let streams = Streams::new(8);
        let a = streams.open();
        streams.push(a, Bytes::from_static(b"12345"), false);
        streams.push(a, Bytes::from_static(b"67890"), false);
        let ring = streams.lock();
        assert_eq!(ring.events.len(), 1);
        assert_eq!(ring.events[0].1.message, "67890");
        drop(ring);
        streams.push(a, Bytes::from(vec![b'x'; 100]), true);
        assert_eq!(streams.lock().events.len(), 1);
    }

    #[test]
    fn frames_and_ids() {
        let event = Event {
            seq: 3,
            message: Bytes::from_static(b"{\"a\":\n1}"),
            last: false,
        };
        assert_eq!(
            event.frame(7),
            "id: 7-3\nevent: message\ndata: {\"a\": 1}\n\n"
        );
        assert_eq!(priming(7, 1000), "id: 7-0\nretry: 1000\ndata: \n\n");
        assert_eq!(parse_event_id(b"7-3"), Some((7, 3)));
        assert_eq!(parse_event_id(b" 7-0 "), Some((7, 0)));
        for bad in [&b"7"[..], b"x-1", b"7-", b"-1", b"\xff"] {
            assert_eq!(parse_event_id(bad), None);
        }
    }
}
