//! What the legacy-connection fuzz targets read with: a server that advertises everything,
//! so every method of a session is reachable, and the bounds of a host's messages.

use snodo_core::json::Limits;
use snodo_core::server::{ListChanged, ServerCapabilities};

pub const LIMITS: Limits = Limits {
    max_size: 16 * 1024,
    max_depth: 16,
    max_members: 64,
};

pub const SERVED: ServerCapabilities = ServerCapabilities {
    tools: true,
    resources: true,
    prompts: true,
    completions: true,
    logging: true,
    subscribe: true,
    list_changed: ListChanged::ALL,
};
