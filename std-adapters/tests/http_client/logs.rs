//! Log output of the current thread, collected in memory at every level.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use tracing::Dispatch;
use tracing::subscriber::{DefaultGuard, NoSubscriber};

/// What was logged.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Collects every event (and every span as it closes) of this thread until the guard
/// drops. A `#[tokio::test]` runtime has one thread, so a server it runs logs here too.
pub fn capture() -> (Captured, DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    // With one dispatcher registered, a callsite first met on another test's thread takes
    // its interest from that thread's (absent) subscriber alone, for good. A second one,
    // kept for the life of the process, makes tracing ask every registered dispatcher.
    static SECOND: OnceLock<Dispatch> = OnceLock::new();
    SECOND.get_or_init(|| Dispatch::new(NoSubscriber::default()));
    let guard = tracing::subscriber::set_default(subscriber);
    tracing::callsite::rebuild_interest_cache();
    (captured, guard)
}
