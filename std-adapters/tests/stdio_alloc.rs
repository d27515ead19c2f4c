//! The stdio adapter allocates nothing per request once warm: a counting global allocator
//! watches two whole sessions of ready-at-once `tools/call` requests, one three times as long
//! as the other, and the longer one may not allocate more than a handful of times beyond the
//! shorter (the runtime's own bookkeeping), far fewer than once per extra request.
//!
//! Everything the client writes is prepared before counting, and the client reads its
//! answers into a fixed buffer, so the counts are the adapter's (and tokio's).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use snodo_core::server::{
    Config, Done, Error, Handler, Registry, Server, Tool, ToolCall, ToolReply,
};
use snodo_std::stdio::{StdioConfig, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Counting;

static ENABLED: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; counting
// touches only atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ENABLED.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ENABLED.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ENABLED.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

struct Echo;

impl Registry for Echo {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("echo")];
        TOOLS
    }
}

impl Handler for Echo {
    fn call_tool<'o>(&self, _call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text("ok"))
    }
}

/// Serves `requests` calls written at once; returns the allocations counted while serving
/// and the answers read.
async fn session(requests: usize) -> (usize, usize) {
    let input: Vec<u8> = (1..=requests)
        .flat_map(|id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            )
            .into_bytes()
            .into_iter()
            .chain([b'\n'])
        })
        .collect();
    let server =
        Arc::new(Server::new(Config::new("alloc", "0.0.1"), Echo).expect("valid definitions"));
    let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
    let mut buf = vec![0u8; 1 << 16];
    ALLOCATIONS.store(0, Ordering::Relaxed);
    ENABLED.store(true, Ordering::Relaxed);
    let serving = serve(server, server_in, server_out, StdioConfig::default());
    let client = async {
        let write = async {
            client_in.write_all(&input).await.unwrap();
            client_in.shutdown().await.unwrap();
        };
        let read = async {
            let mut answers = 0;
            loop {
                let n = client_out.read(&mut buf).await.unwrap();
                if n == 0 {
                    return answers;
                }
                answers += buf[..n].iter().filter(|&&b| b == b'\n').count();
            }
        };
        tokio::join!(write, read).1
    };
    let (served, answers) = tokio::join!(serving, client);
    ENABLED.store(false, Ordering::Relaxed);
    served.unwrap();
    (ALLOCATIONS.load(Ordering::Relaxed), answers)
}

#[test]
fn serving_more_requests_allocates_nothing_more_per_request() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (short, answered) = runtime.block_on(session(2_000));
    assert_eq!(answered, 2_000);
    let (long, answered) = runtime.block_on(session(6_000));
    assert_eq!(answered, 6_000);
    let extra = long.saturating_sub(short);
    assert!(
        extra < 40,
        "4 000 more requests cost {extra} more allocations ({short} for 2 000, {long} for 6 000)"
    );
}
