//! The framing and the serve loop over in-memory links: split reads, corruption, oversize.

use std::string::String;
use std::vec::Vec;

use super::*;
use crate::server::{Config, Done, Error, Handler, Registry, Server, Tool, ToolCall, ToolReply};

/// A link whose reads return the input in chunks of at most `chunk` bytes, and whose writes
/// are collected.
struct Mock<'a> {
    input: &'a [u8],
    chunk: usize,
    output: Vec<u8>,
    flushes: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MockError;

impl core::fmt::Display for MockError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("mock link failed")
    }
}

impl core::error::Error for MockError {}

impl embedded_io::Error for MockError {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Other
    }
}

impl embedded_io::ErrorType for Mock<'_> {
    type Error = MockError;
}

impl embedded_io::Read for Mock<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, MockError> {
        let n = self.chunk.min(buf.len()).min(self.input.len());
        buf[..n].copy_from_slice(&self.input[..n]);
        self.input = &self.input[n..];
        Ok(n)
    }
}

impl embedded_io::Write for Mock<'_> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, MockError> {
        // Accept at most 7 bytes a call, so `write_all` must loop.
        let n = buf.len().min(7);
        self.output.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> Result<(), MockError> {
        self.flushes += 1;
        Ok(())
    }
}

fn mock(input: &[u8], chunk: usize) -> Mock<'_> {
    Mock {
        input,
        chunk,
        output: Vec::new(),
        flushes: 0,
    }
}

fn cobs_frame(message: &[u8]) -> Vec<u8> {
    let mut out = mock(b"", 1);
    write_frame(&mut out, Framing::Cobs, message).unwrap();
    out.output
}

/// Every frame of `bytes`, as `Ok(message)` or `Err(what)`.
fn frames<const N: usize>(
    framing: Framing,
    bytes: &[u8],
    chunk: usize,
) -> Vec<Result<Vec<u8>, &'static str>> {
    let mut link = mock(bytes, chunk);
    let mut reader = FrameReader::<N>::new(framing);
    let mut out = Vec::new();
    loop {
        match reader.next(&mut link).unwrap() {
            Frame::Message(m) => out.push(Ok(m.to_vec())),
            Frame::TooLong => out.push(Err("too long")),
            Frame::Corrupt => out.push(Err("corrupt")),
            Frame::End => return out,
        }
    }
}

#[test]
fn lines_survive_any_chunking() {
    let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}\nlast";
    for chunk in 1..=input.len() {
        assert_eq!(
            frames::<16>(Framing::Line, input, chunk),
            [
                Ok(b"{\"a\":1}".to_vec()),
                Ok(b"".to_vec()),
                Ok(b"{\"b\":2}".to_vec()),
                Ok(b"last".to_vec()),
            ],
            "chunk {chunk}"
        );
    }
}

/// Found by the `frames` fuzz target: the tail of an overlong last frame, left in the
/// buffer at the end of input, came out as a message of its own.
#[test]
fn an_overlong_last_frame_is_one_frame_whatever_its_length() {
    for framing in [Framing::Line, Framing::Cobs] {
        for len in 8..=20 {
            let input = std::vec![b'x'; len];
            for chunk in [1, 3, 64] {
                assert_eq!(
                    frames::<8>(framing, &input, chunk),
                    [Err("too long")],
                    "{framing:?}, {len} bytes, chunk {chunk}"
                );
            }
        }
    }
}

#[test]
fn an_overlong_line_is_skipped_once_and_reading_goes_on() {
    let mut input = Vec::new();
    input.extend_from_slice(b"ok\n");
    input.extend_from_slice(&[b'x'; 40]);
    input.extend_from_slice(b"\nafter\n");
    input.extend_from_slice(&[b'y'; 40]);
    for chunk in [1, 3, 7, 64] {
        assert_eq!(
            frames::<8>(Framing::Line, &input, chunk),
            [
                Ok(b"ok".to_vec()),
                Err("too long"),
                Ok(b"after".to_vec()),
                Err("too long")
            ],
            "chunk {chunk}"
        );
    }
}

#[test]
fn cobs_frames_survive_any_chunking_and_empty_frames_are_skipped() {
    let mut input = Vec::from([0u8, 0]);
    input.extend(cobs_frame(b"{\"a\":1}"));
    input.push(0);
    let with_zeros: Vec<u8> = (0..600u32).map(|i| (i % 7) as u8).collect();
    input.extend(cobs_frame(&with_zeros));
    input.extend(cobs_frame(b""));
    for chunk in [1, 2, 5, 254, 255, 1000] {
        assert_eq!(
            frames::<700>(Framing::Cobs, &input, chunk),
            [
                Ok(b"{\"a\":1}".to_vec()),
                Ok(with_zeros.clone()),
                Ok(Vec::new())
            ],
            "chunk {chunk}"
        );
    }
}

#[test]
fn a_corrupt_cobs_frame_is_reported_and_the_next_one_read() {
    let good = cobs_frame(b"{\"jsonrpc\":\"2.0\"}");
    // Every single-bit flip of every byte but the delimiter is caught: either the encoding
    // breaks, or the CRC differs, or a zero appears and splits the frame (then the pieces are
    // corrupt or empty).
    for at in 0..good.len() - 1 {
        for bit in 0..8 {
            let mut input = good.clone();
            input[at] ^= 1 << bit;
            input.extend_from_slice(&good);
            let got = frames::<64>(Framing::Cobs, &input, 3);
            assert_eq!(
                got.last(),
                Some(&Ok(b"{\"jsonrpc\":\"2.0\"}".to_vec())),
                "flip {at}:{bit}"
            );
            assert!(
                got[..got.len() - 1].iter().all(|f| f == &Err("corrupt")),
                "flip {at}:{bit}: {got:?}"
            );
            assert!(got.len() >= 2, "flip {at}:{bit}: {got:?}");
        }
    }
    // Bytes lost in the middle, and line noise before a frame.
    let mut input = good[..5].to_vec();
    input.extend_from_slice(&good[9..]);
    input.extend_from_slice(b"\xFF\x13noise");
    input.push(0);
    input.extend_from_slice(&good);
    assert_eq!(
        frames::<64>(Framing::Cobs, &input, 4),
        [
            Err("corrupt"),
            Err("corrupt"),
            Ok(b"{\"jsonrpc\":\"2.0\"}".to_vec())
        ]
    );
}

#[test]
fn an_oversized_cobs_frame_is_skipped() {
    let mut input = cobs_frame(&[b'x'; 100]);
    input.extend(cobs_frame(b"ok"));
    for chunk in [1, 9, 64, 500] {
        assert_eq!(
            frames::<32>(Framing::Cobs, &input, chunk),
            [Err("too long"), Ok(b"ok".to_vec())],
            "chunk {chunk}"
        );
    }
}

#[test]
fn a_message_of_the_capacity_fits_in_both_framings() {
    const M: usize = 600;
    let message: Vec<u8> = (0..M).map(|i| b'a' + (i % 26) as u8).collect();
    let mut line = message.clone();
    line.extend_from_slice(b"\r\n");
    assert_eq!(
        frames::<{ input_capacity(M) }>(Framing::Line, &line, 64),
        [Ok(message.clone())]
    );
    assert_eq!(
        frames::<{ input_capacity(M) }>(Framing::Cobs, &cobs_frame(&message), 64),
        [Ok(message.clone())]
    );
    assert_eq!(input_capacity(2048), 2060);
}

// ---------------------------------------------------------------------------------------------
// The serve loop

struct Echo;

const TOOLS: &[Tool<'static>] = &[Tool::new("echo").input_schema(
    r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
)];

impl Registry for Echo {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl Handler for Echo {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let text = call
            .argument("text")
            .and_then(|v| v.as_str())
            .and_then(|s| s.as_plain())
            .ok_or(Error::invalid_params("text"))?;
        reply.progress(1.0, Some(1.0), None).ok();
        Ok(reply.text(text))
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}"#;

fn echo(id: u32, text: &str) -> String {
    std::format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
    )
}

/// Serves `input` and returns the messages written, decoded.
fn serve(framing: Framing, input: &[u8], chunk: usize) -> Vec<serde_json::Value> {
    let server = Server::new(Config::new("echo", "1"), Echo).expect("valid definitions");
    let mut link = mock(input, chunk);
    let mut serial = Serial::<{ input_capacity(256) }, { output_capacity(512) }>::new(framing);
    let mut clock = 0;
    serial
        .serve(&server, &mut link, || {
            clock += 1;
            clock
        })
        .unwrap();
    assert!(link.flushes > 0);
    let written = link.output;
    let frames: Vec<Vec<u8>> = match framing {
        Framing::Line => written
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
        Framing::Cobs => {
            let mut reader = FrameReader::<2048>::new(Framing::Cobs);
            let mut link = mock(&written, 1000);
            let mut out = Vec::new();
            while let Frame::Message(m) = reader.next(&mut link).unwrap() {
                out.push(m.to_vec());
            }
            out
        }
    };
    frames
        .iter()
        .map(|f| serde_json::from_slice(f).unwrap())
        .collect()
}

fn summary(messages: &[serde_json::Value]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            if let Some(method) = m["method"].as_str() {
                std::format!("notify {method}")
            } else if let Some(code) = m["error"]["code"].as_i64() {
                std::format!("error {} {code}", m["id"])
            } else {
                std::format!("result {} {}", m["id"], m["result"]["content"][0]["text"])
            }
        })
        .collect()
}

#[test]
fn the_loop_serves_line_framing_with_progress_and_oversize() {
    let mut input = std::format!("{}\n\n{}\r\n", echo(1, "one"), echo(2, "two")).into_bytes();
    input.extend_from_slice(&[b'x'; 300]);
    input.extend_from_slice(b"\n{\"jsonrpc\":\n");
    input.extend_from_slice(echo(3, "three").as_bytes());
    for chunk in [1, 5, 64, 4096] {
        assert_eq!(
            summary(&serve(Framing::Line, &input, chunk)),
            [
                "notify notifications/progress",
                "result 1 \"one\"",
                "notify notifications/progress",
                "result 2 \"two\"",
                "error null -32600",
                "error null -32700",
                "notify notifications/progress",
                "result 3 \"three\"",
            ],
            "chunk {chunk}"
        );
    }
}

#[test]
fn the_loop_serves_cobs_and_answers_corrupt_and_oversized_frames() {
    let mut input = cobs_frame(echo(1, "one").as_bytes());
    let mut bad = cobs_frame(echo(2, "two").as_bytes());
    bad[10] ^= 0x20;
    input.extend(bad);
    input.extend(cobs_frame(&[b'x'; 400]));
    input.extend(cobs_frame(echo(3, "three").as_bytes()));
    for chunk in [1, 3, 100, 4096] {
        assert_eq!(
            summary(&serve(Framing::Cobs, &input, chunk)),
            [
                "notify notifications/progress",
                "result 1 \"one\"",
                "error null -32700",
                "error null -32600",
                "notify notifications/progress",
                "result 3 \"three\"",
            ],
            "chunk {chunk}"
        );
    }
}

#[test]
fn a_reply_that_does_not_fit_is_an_error_not_a_truncation() {
    let server = Server::new(Config::new("echo", "1"), Echo).expect("valid definitions");
    let long = "y".repeat(200);
    let input = std::format!("{}\n", echo(1, &long));
    let mut link = mock(input.as_bytes(), 64);
    let mut serial = Serial::<{ input_capacity(512) }, 128>::new(Framing::Line);
    serial.serve(&server, &mut link, || 1).unwrap();
    let out: serde_json::Value =
        serde_json::from_slice(link.output.strip_suffix(b"\n").unwrap()).unwrap();
    assert_eq!(out["error"]["code"], -32603, "{out}");
    assert_eq!(out["id"], 1, "{out}");
}

#[test]
fn the_boot_announcement_is_one_frame() {
    let mut link = mock(b"", 1);
    let mut serial = Serial::<64, 64>::new(Framing::Cobs);
    serial.announce_boot(&mut link).unwrap();
    let mut reader = FrameReader::<128>::new(Framing::Cobs);
    let mut written = mock(&link.output, 1);
    assert_eq!(
        reader.next(&mut written).unwrap(),
        Frame::Message(BOOT_NOTIFICATION)
    );
    assert_eq!(reader.next(&mut written).unwrap(), Frame::End);
}

#[test]
fn a_failing_link_ends_the_loop_with_its_error() {
    struct Broken;
    impl embedded_io::ErrorType for Broken {
        type Error = MockError;
    }
    impl embedded_io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> Result<usize, MockError> {
            Err(MockError)
        }
    }
    impl embedded_io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> Result<usize, MockError> {
            Err(MockError)
        }
        fn flush(&mut self) -> Result<(), MockError> {
            Ok(())
        }
    }
    let server = Server::new(Config::new("echo", "1"), Echo).expect("valid definitions");
    let mut serial = Serial::<64, 64>::new(Framing::Line);
    assert_eq!(serial.serve(&server, &mut Broken, || 0), Err(MockError));
}

// ---------------------------------------------------------------------------------------------
// Any bytes

mod garbage {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever precedes it on the link, in whatever chunks it arrives, a good frame after
        /// a delimiter is read intact, and nothing panics on the way.
        #[test]
        fn a_good_frame_survives_any_garbage_before_it(
            garbage in proptest::collection::vec(any::<u8>(), 0..600),
            message in proptest::collection::vec(1u8..=255, 0..100),
            chunk in 1usize..300,
            cobs in any::<bool>(),
        ) {
            let framing = if cobs { Framing::Cobs } else { Framing::Line };
            let message: Vec<u8> = if cobs {
                message
            } else {
                message.into_iter().map(|b| if b == b'\n' || b == b'\r' { b'x' } else { b }).collect()
            };
            let mut input = garbage;
            let mut good = mock(b"", 1);
            match framing {
                Framing::Cobs => {
                    input.push(0);
                    write_frame(&mut good, framing, &message).unwrap();
                }
                Framing::Line => {
                    input.push(b'\n');
                    write_frame(&mut good, framing, &message).unwrap();
                }
            }
            input.extend_from_slice(&good.output);
            let frames = frames::<256>(framing, &input, chunk);
            let expected = Ok(message);
            prop_assert_eq!(frames.last(), Some(&expected));
        }
    }
}
