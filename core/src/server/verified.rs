//! A memo of tool input schemas already found to be valid JSON, so that a `tools/call` does
//! not scan its tool's schema again on every round.
//!
//! It holds no request data, only which definitions passed: per slot, the address of a
//! [`Tool`] whose `input_schema` parsed under the server's limits, and for the memo as a
//! whole the address it was itself at when those were recorded.
//!
//! Why an address can stand for the schema text: the server owns its registry and never
//! lends it mutably, and everything a registry hands out behind `&self` is either inside it,
//! or borrowed for longer than it lives, or leaked. So, in safe Rust, while the server stays
//! where it is, the `Tool` at an address it was given — and the text that `Tool` points to —
//! cannot change or be freed. When the server moves (the only time its registry's own memory
//! moves), the memo finds itself at another address and starts over.
//!
//! A slot is chosen by the tool's index in the registry; a miss only costs the scan a round
//! without the memo makes. On a target without pointer-sized atomics the memo
//! remembers nothing.

use super::Tool;

/// Slots of the memo: tools whose indexes are equal modulo this share a slot.
#[cfg(target_has_atomic = "ptr")]
const SLOTS: usize = 8;

#[cfg(target_has_atomic = "ptr")]
use core::sync::atomic::{AtomicUsize, Ordering};

/// See the module documentation.
#[derive(Debug)]
pub(crate) struct Verified {
    /// Where this memo was when its slots were filled (0: nowhere yet).
    #[cfg(target_has_atomic = "ptr")]
    home: AtomicUsize,
    #[cfg(target_has_atomic = "ptr")]
    slots: [AtomicUsize; SLOTS],
}

impl Verified {
    pub(crate) const fn new() -> Self {
        Verified {
            #[cfg(target_has_atomic = "ptr")]
            home: AtomicUsize::new(0),
            #[cfg(target_has_atomic = "ptr")]
            slots: [const { AtomicUsize::new(0) }; SLOTS],
        }
    }

    /// Whether the input schema of `tool`, at `index` in the registry, has been found to be
    /// valid JSON under this server's limits.
    pub(crate) fn input_schema(&self, index: usize, tool: &Tool<'_>) -> bool {
        #[cfg(target_has_atomic = "ptr")]
        if self.home.load(Ordering::Acquire) == self.address() {
            return self
                .slots
                .get(index % SLOTS)
                .is_some_and(|slot| slot.load(Ordering::Relaxed) == address(tool));
        }
        let _ = (index, tool);
        false
    }

    /// Remembers that the input schema of `tool`, at `index`, is valid JSON.
    pub(crate) fn set_input_schema(&self, index: usize, tool: &Tool<'_>) {
        #[cfg(target_has_atomic = "ptr")]
        {
            let here = self.address();
            if self.home.load(Ordering::Acquire) != here {
                // Recorded somewhere else (or never): forget it all before trusting any slot.
                for slot in &self.slots {
                    slot.store(0, Ordering::Relaxed);
                }
                self.home.store(here, Ordering::Release);
            }
            if let Some(slot) = self.slots.get(index % SLOTS) {
                slot.store(address(tool), Ordering::Relaxed);
            }
        }
        let _ = (index, tool);
    }

    #[cfg(target_has_atomic = "ptr")]
    fn address(&self) -> usize {
        core::ptr::from_ref(self) as usize
    }
}

#[cfg(target_has_atomic = "ptr")]
fn address(tool: &Tool<'_>) -> usize {
    core::ptr::from_ref(tool) as usize
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::{
        Config, Done, Error, Handled, Handler, Registry, Round, Server, Tool, ToolCall, ToolReply,
    };
    use core::sync::atomic::{AtomicBool, Ordering};
    use std::boxed::Box;
    use std::string::String;

    const VALID: &[Tool<'static>] = &[
        Tool::new("other"),
        Tool::new("t").input_schema(r#" {"type":"object","required":["n"]} "#),
    ];
    const BROKEN: &[Tool<'static>] = &[
        Tool::new("other"),
        Tool::new("t").input_schema(r#"{"type":"object","required":["n"]"#),
    ];

    /// A registry that can switch between two definitions of the same tool.
    struct Switching(AtomicBool);

    impl Registry for Switching {
        fn tools(&self) -> &[Tool<'_>] {
            if self.0.load(Ordering::Relaxed) {
                BROKEN
            } else {
                VALID
            }
        }
    }

    impl Handler for Switching {
        fn call_tool<'o>(&self, _: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
            Ok(reply.text("ran"))
        }
    }

    fn call<A: Handler>(server: &Server<'_, A>, arguments: &str) -> String {
        let input = std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}},"name":"t","arguments":{arguments}}}}}"#
        );
        let mut out = [0u8; 1024];
        match server.handle(input.as_bytes(), Round::anonymous(1), &mut out, None) {
            Ok(Handled::Reply(n)) => String::from_utf8(out[..n].to_vec()).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_round_sees_the_definition_it_is_given() {
        let server = Server::new(Config::new("s", "1"), Switching(AtomicBool::new(false)))
            .expect("valid at first");
        for _ in 0..3 {
            assert!(call(&server, r#"{"n":1}"#).contains(r#""text":"ran""#));
            assert!(call(&server, "{}").contains("Invalid arguments"));
            server.app().0.store(true, Ordering::Relaxed);
            let broken = call(&server, r#"{"n":1}"#);
            assert!(broken.contains("inputSchema is not valid JSON"), "{broken}");
            server.app().0.store(false, Ordering::Relaxed);
        }
        assert!(server.check().is_ok());
        assert!(call(&server, r#"{"n":1}"#).contains(r#""text":"ran""#));
    }

    /// A registry holding its definitions inside itself: moving the server moves them.
    struct Inline([Tool<'static>; 2]);

    impl Registry for Inline {
        fn tools(&self) -> &[Tool<'_>] {
            &self.0
        }
    }

    impl Handler for Inline {
        fn call_tool<'o>(&self, _: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
            Ok(reply.text("ran"))
        }
    }

    #[test]
    fn a_moved_server_starts_over() {
        let valid = Server::new(Config::new("s", "1"), Inline([VALID[0], VALID[1]]))
            .expect("valid definitions");
        assert!(call(&valid, r#"{"n":1}"#).contains(r#""text":"ran""#));
        // Made as a registry that went bad after its check would be: unchecked.
        let mut broken = Box::new(Server::unchecked(
            Config::new("s", "1"),
            Inline([BROKEN[0], BROKEN[1]]),
        ));
        assert!(call(&broken, r#"{"n":1}"#).contains("not valid JSON"));
        // The valid server, moved to where the broken one was: its memo is from elsewhere.
        *broken = valid;
        assert!(call(&broken, r#"{"n":1}"#).contains(r#""text":"ran""#));
        assert!(call(&broken, "{}").contains("Invalid arguments"));
        let back = *broken;
        assert!(call(&back, r#"{"n":1}"#).contains(r#""text":"ran""#));
    }
}
