//! Server notifications in their legacy shape: list changes and resource updates go to a
//! legacy session as plain 2025-11-25 notifications, where a modern client gets them on its
//! `subscriptions/listen` stream tagged with a subscription id.

use crate::json::Writer;
use crate::rpc::emit;
use crate::server::{Event, ServerCapabilities};

/// Writes `event` for a legacy session and returns whether it did: a list change only when
/// the server announced `listChanged` for that list in `served` (its `InitializeResult`), a
/// resource update always (send it only to sessions that subscribed to its URI).
pub fn write_event(event: &Event<'_>, served: ServerCapabilities, w: &mut Writer<'_>) -> bool {
    let announced = |advertised: bool, changes: bool| advertised && changes;
    let method = match event {
        Event::ToolsListChanged if announced(served.tools, served.list_changed.tools) => {
            "notifications/tools/list_changed"
        }
        Event::PromptsListChanged if announced(served.prompts, served.list_changed.prompts) => {
            "notifications/prompts/list_changed"
        }
        Event::ResourcesListChanged
            if announced(served.resources, served.list_changed.resources) =>
        {
            "notifications/resources/list_changed"
        }
        Event::ResourceUpdated(uri) => {
            emit::notification(w);
            w.raw(b"\"notifications/resources/updated\",\"params\":{\"uri\":");
            w.str(uri);
            w.raw(b"}}");
            return true;
        }
        _ => return false,
    };
    emit::notification(w);
    w.str(method);
    w.raw(b"}");
    true
}
