//! Literal wire tests of the legacy pieces: messages from the 2025-11-25 and 2026-07-28
//! specifications in, exact bytes out.

mod bridge;
mod connection;
mod drive;
mod end_to_end;
mod wire;

use crate::json::{Limits, Writer};
use crate::rpc::{Incoming, parse};
use std::string::String;

/// Parses one message (test inputs are always valid).
fn message(text: &str) -> Incoming<'_> {
    parse(text.as_bytes(), &Limits::default()).expect(text)
}

/// Runs `write` into a roomy buffer and returns the text.
fn written(write: impl FnOnce(&mut Writer<'_>)) -> String {
    let mut buf = [0u8; 4096];
    let mut w = Writer::new(&mut buf);
    write(&mut w);
    let n = w.finish().expect("fits 4 KiB");
    String::from_utf8(buf[..n].to_vec()).expect("ASCII")
}

/// The spec's `initialize` example (2025-11-25 `basic/lifecycle`).
const SPEC_INITIALIZE: &str = r#"{
  "jsonrpc": "2.0",
  "id": 1,
  "method": "initialize",
  "params": {
    "protocolVersion": "2025-11-25",
    "capabilities": {
      "roots": {
        "listChanged": true
      },
      "sampling": {},
      "elicitation": {
        "form": {},
        "url": {}
      },
      "tasks": {
        "requests": {
          "elicitation": {
            "create": {}
          },
          "sampling": {
            "createMessage": {}
          }
        }
      }
    },
    "clientInfo": {
      "name": "ExampleClient",
      "title": "Example Client Display Name",
      "version": "1.0.0",
      "description": "An example MCP client application",
      "icons": [
        {
          "src": "https://example.com/icon.png",
          "mimeType": "image/png",
          "sizes": ["48x48"]
        }
      ],
      "websiteUrl": "https://example.com"
    }
  }
}"#;

/// The spec's `server/discover` example (2026-07-28 `server/discover`).
const SPEC_DISCOVER: &str = r#"{
  "jsonrpc": "2.0",
  "id": "discover-1",
  "method": "server/discover",
  "params": {
    "_meta": {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": {
        "name": "ExampleClient",
        "version": "1.0.0"
      },
      "io.modelcontextprotocol/clientCapabilities": {}
    }
  }
}"#;

/// A session opened by [`SPEC_INITIALIZE`].
fn spec_session() -> super::Session {
    let Incoming::Request(request) = message(SPEC_INITIALIZE) else {
        panic!("a request")
    };
    super::parse_initialize(request.params).expect("the spec's initialize")
}
