//! The bridge's stdio side: newline-delimited JSON from an MCP client on stdin, the device's
//! answers on stdout, one request at a time (the device serves one at a time anyway).

use std::io;

use snodo_core::json::{Limits, Writer};
use snodo_core::rpc::{self, ErrorCode, Incoming};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::device::{Answer, Device, DeviceError};

/// Longest line read from the client; longer ones are answered -32600 without being kept.
const MAX_LINE: usize = 1 << 20;

/// Relays `input` to the device and its answers to `output` until the end of input.
pub async fn serve<R, W>(device: &Device, input: R, mut output: W) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if read == 0 {
            return Ok(());
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            skip_line(&mut input).await?;
            let reply = error_reply(&[], ErrorCode::INVALID_REQUEST, "Message too large");
            write_line(&mut output, &reply).await?;
            continue;
        }
        let message = trim(&line);
        if message.is_empty() {
            continue;
        }
        let mut answers = device.send(message.to_vec());
        while let Some(answer) = answers.recv().await {
            match answer {
                Answer::Notification(m) | Answer::Reply(m) => write_line(&mut output, &m).await?,
                Answer::Sent => {}
                Answer::Failed(e) => {
                    tracing::error!("{e}");
                    if let Some(reply) = failure_reply(message, &e) {
                        write_line(&mut output, &reply).await?;
                    }
                }
            }
        }
    }
}

async fn skip_line<R: AsyncBufReadExt + Unpin>(input: &mut R) -> io::Result<()> {
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        &[]
    } else {
        line
    }
}

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, message: &[u8]) -> io::Result<()> {
    output.write_all(message).await?;
    output.write_all(b"\n").await?;
    output.flush().await
}

/// The JSON-RPC error for a request the device could not answer (`None` for a
/// notification, which gets no answer even when it could not be delivered).
pub(crate) fn failure_reply(message: &[u8], error: &DeviceError) -> Option<Vec<u8>> {
    let code = match error {
        DeviceError::TooLarge { .. } => ErrorCode::INVALID_REQUEST,
        _ => ErrorCode::INTERNAL_ERROR,
    };
    match rpc::parse(message, &Limits::HOST) {
        Ok(Incoming::Notification(_) | Incoming::Response) => None,
        _ => Some(error_reply(message, code, &error.to_string())),
    }
}

/// An error reply with the id of `message` (null when it has none that can be read).
pub(crate) fn error_reply(message: &[u8], code: ErrorCode, text: &str) -> Vec<u8> {
    let id = match rpc::parse(message, &Limits::HOST) {
        Ok(Incoming::Request(request)) => Some(request.id),
        Ok(_) => None,
        Err(rejected) => rejected.id,
    };
    let mut buf = vec![0; 512 + text.len() * 6];
    let mut w = Writer::new(&mut buf);
    rpc::write_error(&mut w, id, code, text, None);
    match w.finish() {
        Ok(n) => {
            buf.truncate(n);
            buf
        }
        Err(_) => {
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
                .to_vec()
        }
    }
}
