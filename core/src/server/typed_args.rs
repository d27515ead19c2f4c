//! Typed tool arguments without a heap (feature `typed-args`): the arguments decoded into a
//! `serde` struct by `serde-json-core`, with strings borrowed from the request (`&str`, when
//! they have no escapes) or copied into fixed-capacity `heapless::String`s.
//!
//! The core has already checked the arguments against the tool's input schema (naming the
//! argument that failed) before the handler runs; what is left for decoding is what the schema
//! does not say, such as a string longer than its `heapless` capacity. That is one tool error
//! result ([`INVALID_ARGUMENTS`]) that never echoes the arguments.

use serde::Deserialize;

use super::{Error, ToolCall};

/// Arguments that pass the input schema but do not decode into the handler's type: a tool
/// error result (`isError: true`).
pub const INVALID_ARGUMENTS: Error =
    Error::failure("Invalid arguments: they do not fit the tool's argument type");

impl<'a> ToolCall<'a> {
    /// The arguments decoded into `T` (an empty object when none were sent).
    ///
    /// ```
    /// # #[cfg(feature = "typed-args")] {
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize)]
    /// struct Relay {
    ///     channel: u8,
    ///     on: bool,
    /// }
    ///
    /// fn switch(call: &snodo_core::server::ToolCall<'_>) -> Result<(), snodo_core::server::Error> {
    ///     let Relay { channel, on } = call.arguments_as()?;
    ///     # let _ = (channel, on);
    ///     Ok(())
    /// }
    /// # }
    /// ```
    pub fn arguments_as<T: Deserialize<'a>>(&self) -> Result<T, Error> {
        let raw = self.arguments().as_value().raw();
        match serde_json_core::from_slice::<T>(raw) {
            Ok((arguments, _)) => Ok(arguments),
            Err(_) => Err(INVALID_ARGUMENTS),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use serde::Deserialize;

    use crate::server::{
        Config, Done, Error, Handled, Handler, Registry, Round, Server, Tool, ToolCall, ToolReply,
    };

    #[derive(Deserialize)]
    struct Label {
        channel: u8,
        name: heapless::String<8>,
    }

    struct App;

    impl Registry for App {
        fn tools(&self) -> &[Tool<'_>] {
            const TOOLS: &[Tool<'static>] = &[Tool::new("label").input_schema(
                r#"{"type":"object","properties":{"channel":{"type":"integer","minimum":0,"maximum":3},"name":{"type":"string"}},"required":["channel","name"]}"#,
            )];
            TOOLS
        }
    }

    impl Handler for App {
        fn call_tool<'o>(
            &self,
            call: &ToolCall<'_>,
            reply: ToolReply<'o>,
        ) -> Result<Done<'o>, Error> {
            #[derive(Deserialize)]
            struct Borrowed<'a> {
                channel: u8,
                name: &'a str,
            }
            if call.argument("borrowed").is_some() {
                let b: Borrowed<'_> = call.arguments_as()?;
                return Ok(reply.text_fmt(format_args!("{} {}", b.channel, b.name)));
            }
            let label: Label = call.arguments_as()?;
            Ok(reply.text_fmt(format_args!("{} {}", label.channel, label.name)))
        }
    }

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn text_of(arguments: &str) -> ([u8; 1024], usize) {
        let input = std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":"label","arguments":{arguments}}}}}"#
        );
        let server = Server::new(Config::new("t", "1"), App).expect("valid definitions");
        let mut out = [0u8; 1024];
        let n = match server.handle(input.as_bytes(), Round::anonymous(0), &mut out, None) {
            Ok(Handled::Reply(n)) => n,
            other => panic!("{other:?}"),
        };
        (out, n)
    }

    fn contains(out: &[u8], needle: &str) -> bool {
        out.windows(needle.len()).any(|w| w == needle.as_bytes())
    }

    #[test]
    fn arguments_decode_into_structs_with_heapless_and_borrowed_strings() {
        let (out, n) = text_of(r#"{"channel":2,"name":"lamp"}"#);
        assert!(contains(&out[..n], r#""text":"2 lamp""#));
        let (out, n) = text_of(r#"{"channel":3,"name":"fan","borrowed":true}"#);
        assert!(contains(&out[..n], r#""text":"3 fan""#));
    }

    #[test]
    fn arguments_that_do_not_decode_are_one_tool_error_that_echoes_nothing() {
        // Nine characters do not fit a heapless::String<8>.
        let (out, n) = text_of(r#"{"channel":2,"name":"SENTINEL9"}"#);
        let out = &out[..n];
        assert!(contains(out, r#""isError":true"#));
        assert!(contains(out, "Invalid arguments: they do not fit"));
        assert!(!contains(out, "SENTINEL"));
    }
}
