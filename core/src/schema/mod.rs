//! Validation of tool arguments against a tool's `inputSchema` (a small JSON Schema subset).
