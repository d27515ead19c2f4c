//! The bridge's stdio side: newline-delimited JSON from an MCP client on stdin, the device's
//! answers on stdout, one request at a time (the device serves one at a time anyway).
//!
//! A 2026-07-28 client's messages are relayed as they are. A client that opens with
//! `initialize` is a legacy host: the bridge keeps its session and bridges the device's
//! `input_required` results to it ([`super::legacy`]).

use std::io;

use snodo_core::legacy::EraSupport;
use snodo_core::rpc::ErrorCode;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::device::{Answer, Device};
use super::legacy::{Host, QUEUE, Queued, Taken};
use super::replies::{error_reply, failure_reply};
use crate::legacy::round::{BridgeConfig, LinkClosed};
use crate::stdio::legacy::Legacy;
use crate::stdio::lines::{Line, Lines};

/// Longest line read from the client; longer ones are answered -32600 without being kept.
const MAX_LINE: usize = 1 << 20;

/// Messages waiting for stdout.
const OUTPUT_QUEUE: usize = 64;

/// Relays `input` to the device and its answers to `output` until the end of input.
pub async fn serve<R, W>(device: &Device, input: R, output: W) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let bridge = BridgeConfig::DEFAULT;
    let legacy = Legacy::new(EraSupport::Both, bridge, 0);
    let host = Host::new(device, legacy, bridge);
    let (lines, outgoing) = mpsc::channel(OUTPUT_QUEUE);
    let (queue, queued) = mpsc::channel(QUEUE);
    let reader = read(&host, input, lines.clone(), queue);
    let runner = host.run(queued, lines);
    let (read, (), written) = tokio::join!(reader, runner, write_lines(outgoing, output));
    read.and(written)
}

/// Reads the client's lines: the modern ones relayed at once, the legacy ones taken by the
/// host. Ends at the end of input (or when the output is gone).
async fn read<R: AsyncRead + Unpin>(
    host: &Host<'_>,
    input: R,
    output: mpsc::Sender<Vec<u8>>,
    queue: mpsc::Sender<Queued>,
) -> io::Result<()> {
    let gone = |LinkClosed| io::Error::from(io::ErrorKind::BrokenPipe);
    // The stdio transport's own line reader: the same bound, BOM and `\r` handling, blank
    // lines skipped, an overlong line dropped as it arrives.
    let mut lines = Lines::new(input, MAX_LINE);
    let result = loop {
        let Some(line) = lines.next().await? else {
            break Ok(());
        };
        if let Line::TooLong { len } = line {
            tracing::warn!(len, "a line over the limit was refused");
            let reply = error_reply(&[], ErrorCode::INVALID_REQUEST, "Message too large");
            output.send(reply).await.map_err(|_| gone(LinkClosed))?;
            continue;
        }
        let message = lines.current();
        let taken = match host.take(message, &output, &queue).await {
            Ok(Taken::Modern) => relay(host.device(), message, &output).await,
            Ok(Taken::Taken) => Ok(()),
            Err(closed) => Err(closed),
        };
        lines.discard();
        if let Err(closed) = taken {
            break Err(gone(closed));
        }
    };
    // No answer to a bridged request can come any more.
    host.legacy.end_of_input();
    result
}

/// Relays a modern message to the device and its answers to `output`.
async fn relay(
    device: &Device,
    message: &[u8],
    output: &mpsc::Sender<Vec<u8>>,
) -> Result<(), LinkClosed> {
    let mut answers = device.send(message.to_vec());
    while let Some(answer) = answers.recv().await {
        let line = match answer {
            Answer::Notification(m) | Answer::Reply(m) => Some(m),
            Answer::Sent => None,
            Answer::Failed(e) => {
                tracing::error!("{e}");
                failure_reply(message, &e)
            }
        };
        if let Some(line) = line {
            output.send(line).await.map_err(|_| LinkClosed)?;
        }
    }
    Ok(())
}

/// Writes the queued messages to `output`, a line each, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut lines: mpsc::Receiver<Vec<u8>>,
    mut output: W,
) -> io::Result<()> {
    while let Some(message) = lines.recv().await {
        write_line(&mut output, &message).await?;
    }
    Ok(())
}

async fn write_line<W: AsyncWrite + Unpin>(output: &mut W, message: &[u8]) -> io::Result<()> {
    output.write_all(message).await?;
    output.write_all(b"\n").await?;
    output.flush().await
}
