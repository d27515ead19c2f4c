//! `subscriptions/listen`: a long-lived request whose response is a stream of notifications.
//!
//! The core admits the request and returns a [`Subscription`]: the honoured filter and the
//! subscription id (the request's JSON-RPC id). The adapter keeps the request's bytes for as
//! long as the stream lives, writes the acknowledgement first, then writes each [`Event`] the
//! filter wants, and ends with the graceful closing response. The core keeps nothing.

use super::span::{IdSpan, Span};
use super::{ServerCapabilities, ServerInfo};
use crate::json::{Array, Object, Writer};
use crate::protocol::META_SERVER_INFO;
use crate::rpc::Id;
use crate::rpc::emit;

/// Something that changed on the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'e> {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource at this URI changed.
    ResourceUpdated(&'e str),
}

/// The notification types a subscription asked for and the server agreed to honour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter<'a> {
    /// `toolsListChanged`
    pub tools: bool,
    /// `promptsListChanged`
    pub prompts: bool,
    /// `resourcesListChanged`
    pub resources: bool,
    /// `resourceSubscriptions` (URIs, as strings)
    pub resource_uris: Option<Array<'a>>,
    /// `taskIds` (the Tasks extension's `notifications/tasks`, as strings): honoured only
    /// by a server with task tools, and only for a request that declares the extension.
    pub task_ids: Option<Array<'a>>,
}

impl<'a> Filter<'a> {
    /// Reads `params.notifications`; `None` when it is missing or malformed.
    pub(crate) fn read(params: Object<'a>) -> Option<Self> {
        let n = params.get("notifications")?.as_object()?;
        let flag = |key| match n.get(key) {
            None => Some(false),
            Some(v) => v.as_bool(),
        };
        let strings = |key| match n.get(key) {
            None => Some(None),
            Some(v) => {
                let items = v.as_array()?;
                if items.iter().any(|u| u.as_str().is_none()) {
                    return None;
                }
                Some(Some(items))
            }
        };
        Some(Filter {
            tools: flag("toolsListChanged")?,
            prompts: flag("promptsListChanged")?,
            resources: flag("resourcesListChanged")?,
            resource_uris: strings("resourceSubscriptions")?,
            task_ids: strings("taskIds")?,
        })
    }

    /// The subset a server with `caps` honours: list changes of advertised families whose
    /// list announces `listChanged`, resource updates when it announces `subscribe`, task
    /// notifications when it `serves_tasks`.
    pub(crate) fn honoured(self, caps: ServerCapabilities, serves_tasks: bool) -> Self {
        Filter {
            tools: self.tools && caps.tools && caps.list_changed.tools,
            prompts: self.prompts && caps.prompts && caps.list_changed.prompts,
            resources: self.resources && caps.resources && caps.list_changed.resources,
            resource_uris: self
                .resource_uris
                .filter(|_| caps.resources && caps.subscribe),
            task_ids: self.task_ids.filter(|_| serves_tasks),
        }
    }

    fn write(&self, w: &mut Writer<'_>) {
        w.object(|o| {
            if self.tools {
                o.bool("toolsListChanged", true);
            }
            if self.prompts {
                o.bool("promptsListChanged", true);
            }
            if self.resources {
                o.bool("resourcesListChanged", true);
            }
            if let Some(uris) = self.resource_uris {
                o.value("resourceSubscriptions", uris.as_value());
            }
            if let Some(ids) = self.task_ids {
                o.value("taskIds", ids.as_value());
            }
        });
    }
}

/// An admitted `subscriptions/listen`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subscription<'a> {
    pub(crate) id: Id<'a>,
    pub(crate) filter: Filter<'a>,
    pub(crate) info: &'a ServerInfo<'a>,
}

impl<'a> Subscription<'a> {
    /// The subscription id (the request's JSON-RPC id).
    pub fn id(&self) -> Id<'a> {
        self.id
    }

    /// What the server agreed to deliver.
    pub fn filter(&self) -> Filter<'a> {
        self.filter
    }

    /// Whether `event` belongs on this stream.
    pub fn wants(&self, event: &Event<'_>) -> bool {
        match event {
            Event::ToolsListChanged => self.filter.tools,
            Event::PromptsListChanged => self.filter.prompts,
            Event::ResourcesListChanged => self.filter.resources,
            Event::ResourceUpdated(uri) => self.filter.resource_uris.is_some_and(|uris| {
                uris.iter()
                    .any(|u| u.as_str().is_some_and(|u| u.eq_str(uri)))
            }),
        }
    }

    /// Whether `notifications/tasks` for `task_id` belongs on this stream (the host sends it
    /// only for a task of the stream's own caller).
    pub fn watches_task(&self, task_id: &str) -> bool {
        self.filter.task_ids.is_some_and(|ids| {
            ids.iter()
                .any(|t| t.as_str().is_some_and(|t| t.eq_str(task_id)))
        })
    }

    /// Writes `notifications/tasks` for `task` (call only when [`Subscription::watches_task`]
    /// it): the `DetailedTask` that `tasks/get` would answer now, with its payload.
    #[cfg(feature = "tasks")]
    pub fn write_task(
        &self,
        w: &mut Writer<'_>,
        task: &crate::tasks::Task<'_>,
        payload: crate::tasks::Payload<'_>,
    ) -> Result<(), crate::tasks::PayloadMismatch> {
        emit::notification(w);
        w.raw(b"\"notifications/tasks\",\"params\":");
        crate::tasks::write_detailed(w, task, payload, |o| self.meta_object(o.key("_meta")))?;
        w.raw(b"}");
        Ok(())
    }

    fn meta(&self, w: &mut Writer<'_>) {
        w.raw(b"\"_meta\":");
        self.meta_object(w);
    }

    /// The `_meta` object of every message on the stream: the subscription id.
    fn meta_object(&self, w: &mut Writer<'_>) {
        w.raw(b"{\"io.modelcontextprotocol/subscriptionId\":");
        self.id.write(w);
        w.raw(b"}");
    }

    /// Writes `notifications/subscriptions/acknowledged`, the stream's first message.
    pub fn write_acknowledged(&self, w: &mut Writer<'_>) {
        emit::notification(w);
        w.raw(b"\"notifications/subscriptions/acknowledged\",\"params\":{");
        self.meta(w);
        w.raw(b",\"notifications\":");
        self.filter.write(w);
        w.raw(b"}}");
    }

    /// Writes the notification for `event` (call only when [`Subscription::wants`] it).
    pub fn write_event(&self, event: &Event<'_>, w: &mut Writer<'_>) {
        let method = match event {
            Event::ToolsListChanged => "notifications/tools/list_changed",
            Event::PromptsListChanged => "notifications/prompts/list_changed",
            Event::ResourcesListChanged => "notifications/resources/list_changed",
            Event::ResourceUpdated(_) => "notifications/resources/updated",
        };
        emit::notification(w);
        w.str(method);
        w.raw(b",\"params\":{");
        self.meta(w);
        if let Event::ResourceUpdated(uri) = event {
            w.raw(b",\"uri\":");
            w.str(uri);
        }
        w.raw(b"}}");
    }

    /// The messages for a stream its caller cannot hold open (no event source, or a link
    /// served one request at a time), each to be written and sent in turn: the
    /// acknowledgement, then at once the closing response, so a client is never left waiting.
    pub fn unheld(&self) -> [Unheld<'_, 'a>; 2] {
        [
            Unheld {
                subscription: self,
                closing: false,
            },
            Unheld {
                subscription: self,
                closing: true,
            },
        ]
    }

    /// Writes the response that ends the subscription gracefully (e.g. at shutdown). Like
    /// every result it names the server in `_meta`, beside the subscription id.
    pub fn write_closed(&self, w: &mut Writer<'_>) {
        emit::result(w, self.id);
        w.raw(b"{\"resultType\":\"complete\",\"_meta\":{");
        w.str(META_SERVER_INFO);
        w.raw(b":");
        self.info.write(w);
        w.raw(b",\"io.modelcontextprotocol/subscriptionId\":");
        self.id.write(w);
        w.raw(b"}}}");
    }
}

/// A [`Subscription`] as offsets into the bytes it was accepted from: small, `Copy` and
/// `'static`, so a stream that outlives the round can keep it beside its own copy of those
/// bytes and re-borrow the subscription from them ([`SubscriptionSpans::view`]) rather than
/// accept the message again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubscriptionSpans {
    id: IdSpan,
    tools: bool,
    prompts: bool,
    resources: bool,
    resource_uris: Option<Span>,
    task_ids: Option<Span>,
}

impl Subscription<'_> {
    /// This subscription as offsets into `input`, the bytes it was accepted from (`None`
    /// when it does not lie in them).
    pub fn spans(&self, input: &[u8]) -> Option<SubscriptionSpans> {
        let id = IdSpan::of(input, self.id)?;
        let span = |strings: Option<Array<'_>>| match strings {
            None => Some(None),
            Some(strings) => Span::of(input, strings.as_value().raw()).map(Some),
        };
        Some(SubscriptionSpans {
            id,
            tools: self.filter.tools,
            prompts: self.filter.prompts,
            resources: self.filter.resources,
            resource_uris: span(self.filter.resource_uris)?,
            task_ids: span(self.filter.task_ids)?,
        })
    }
}

impl SubscriptionSpans {
    /// The subscription again, borrowed from `input` (the bytes it was accepted from, or a
    /// copy of them) and the server's `info`; `None` when `input` is not those bytes.
    pub fn view<'b>(&self, input: &'b [u8], info: &'b ServerInfo<'b>) -> Option<Subscription<'b>> {
        let id = self.id.parse(input)?;
        let array = |span: Option<Span>| match span {
            None => Some(None),
            Some(span) => span.parse(input)?.as_array().map(Some),
        };
        Some(Subscription {
            id,
            filter: Filter {
                tools: self.tools,
                prompts: self.prompts,
                resources: self.resources,
                resource_uris: array(self.resource_uris)?,
                task_ids: array(self.task_ids)?,
            },
            info,
        })
    }
}

/// One message of a stream that is not held open (see [`Subscription::unheld`]).
#[derive(Clone, Copy, Debug)]
pub struct Unheld<'s, 'a> {
    subscription: &'s Subscription<'a>,
    closing: bool,
}

impl Unheld<'_, '_> {
    /// Writes the message.
    pub fn write(&self, w: &mut Writer<'_>) {
        if self.closing {
            self.subscription.write_closed(w);
        } else {
            self.subscription.write_acknowledged(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ListChanged;
    use super::*;
    use crate::json::Limits;

    #[test]
    fn spans_re_borrow_the_subscription_from_a_copy_of_its_bytes() {
        let input = br#"{"id":"s\u002d1","uris":["file:///a","file:///b"],"tasks":["t\u0031"]}"#;
        let message = crate::json::parse(input, &Limits::HOST).unwrap();
        let id = Id::from_value(message.get("id").unwrap()).unwrap();
        let info = ServerInfo::new("s", "1");
        let subscription = Subscription {
            id,
            filter: Filter {
                tools: true,
                prompts: false,
                resources: true,
                resource_uris: message.get("uris").and_then(|u| u.as_array()),
                task_ids: message.get("tasks").and_then(|t| t.as_array()),
            },
            info: &info,
        };
        let spans = subscription.spans(input).unwrap();
        let copy = input.to_vec();
        let again = spans.view(&copy, &info).unwrap();
        let written = |s: &Subscription<'_>| {
            let mut buf = [0u8; 512];
            let mut w = Writer::new(&mut buf);
            s.write_acknowledged(&mut w);
            let n = w.finish().unwrap();
            buf[..n].to_vec()
        };
        assert_eq!(written(&again), written(&subscription));
        assert!(again.wants(&Event::ResourceUpdated("file:///b")));
        assert!(!again.wants(&Event::PromptsListChanged));
        assert!(again.watches_task("t1") && !again.watches_task("t2"));
        // Other bytes do not give a subscription back, and nothing panics.
        assert!(spans.view(&[b' '; 64], &info).is_none());
        assert!(spans.view(b"{}", &info).is_none());
        assert!(subscription.spans(b"elsewhere").is_none());
    }

    #[test]
    fn list_changes_are_announced_and_honoured_per_list() {
        let caps = ServerCapabilities {
            tools: true,
            resources: true,
            prompts: true,
            list_changed: ListChanged {
                prompts: true,
                ..ListChanged::NONE
            },
            ..ServerCapabilities::default()
        };
        let mut buf = [0u8; 128];
        let mut w = Writer::new(&mut buf);
        caps.write(&mut w, false);
        let n = w.finish().unwrap();
        assert_eq!(
            &buf[..n],
            br#"{"prompts":{"listChanged":true},"resources":{},"tools":{}}"#
        );
        let ids = crate::json::parse(br#"["t1"]"#, &Limits::HOST).unwrap();
        let everything = Filter {
            tools: true,
            prompts: true,
            resources: true,
            resource_uris: None,
            task_ids: ids.as_array(),
        };
        let honoured = everything.honoured(caps, false);
        assert_eq!(
            (honoured.tools, honoured.prompts, honoured.resources),
            (false, true, false)
        );
        assert!(
            honoured.task_ids.is_none(),
            "no task tools, no task notifications"
        );
        assert!(everything.honoured(caps, true).task_ids.is_some());
    }
}
