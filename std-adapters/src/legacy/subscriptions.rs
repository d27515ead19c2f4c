//! The resources a legacy session subscribed to with `resources/subscribe`: one set, bounded
//! in count and in URI length, and one answer to a subscribe or an unsubscribe, the same on
//! stdio, HTTP and the bridge.

use std::collections::HashSet;

use snodo_core::json::{JsonStr, Writer};
use snodo_core::legacy::write_empty_result;
use snodo_core::rpc::{self, ErrorCode, Id};

use crate::events::{ServerEvent, Watch};

/// Longest resource URI a session subscribes to, in bytes.
pub(crate) const MAX_URI_LEN: usize = 2048;

/// The subscribed URIs of one session, at most `max` of them.
#[derive(Debug)]
pub(crate) struct Subscriptions {
    max: usize,
    uris: HashSet<Box<str>>,
}

impl Subscriptions {
    /// An empty set that takes at most `max` URIs.
    pub(crate) fn new(max: usize) -> Self {
        Subscriptions {
            max,
            uris: HashSet::new(),
        }
    }

    /// Subscribes to `uri` (or ends the subscription), writing the answer to request `id`:
    /// an empty result, or -32603 when the session has its most subscriptions, or -32602
    /// for a URI over [`MAX_URI_LEN`]. Subscribing twice is one subscription; unsubscribing
    /// from a URI not subscribed succeeds.
    pub(crate) fn change(
        &mut self,
        id: Id<'_>,
        uri: JsonStr<'_>,
        subscribe: bool,
        w: &mut Writer<'_>,
    ) {
        let uri: String = uri.chars().collect();
        if !subscribe {
            self.uris.remove(uri.as_str());
        } else if uri.len() > MAX_URI_LEN {
            let message = "The resource URI is longer than the 2048 bytes a session subscribes to";
            rpc::write_error(w, Some(id), ErrorCode::INVALID_PARAMS, message, None);
            return;
        } else if !self.uris.contains(uri.as_str()) {
            if self.uris.len() >= self.max {
                let message = "Too many resource subscriptions in this session";
                rpc::write_error(w, Some(id), ErrorCode::INTERNAL_ERROR, message, None);
                return;
            }
            self.uris.insert(uri.into_boxed_str());
        }
        write_empty_result(w, id);
    }

    /// Whether `uri` is subscribed.
    pub(crate) fn contains(&self, uri: &str) -> bool {
        self.uris.contains(uri)
    }

    /// Every subscribed URI.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        self.uris.iter().map(|uri| &**uri)
    }
}

/// A legacy session's stream: every list change (the server's capabilities decide which are
/// announced), and updates of the resources it subscribed to.
impl Watch for Subscriptions {
    fn wants(&self, event: &ServerEvent) -> bool {
        match event {
            ServerEvent::ResourceUpdated(uri) => self.contains(uri),
            _ => true,
        }
    }

    fn everything(&self) -> Vec<ServerEvent> {
        let mut all = vec![
            ServerEvent::ToolsListChanged,
            ServerEvent::PromptsListChanged,
            ServerEvent::ResourcesListChanged,
        ];
        all.extend(self.iter().map(ServerEvent::resource_updated));
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_core::json::Limits;

    /// The answer `change` writes for `uri`, as text.
    fn changed(set: &mut Subscriptions, uri: &str, subscribe: bool) -> String {
        let quoted = format!("\"{uri}\"");
        let value = snodo_core::json::parse(quoted.as_bytes(), &Limits::HOST).unwrap();
        let uri = value.as_str().unwrap();
        let mut out = vec![0; 4096 + uri.raw().len()];
        let mut w = Writer::new(&mut out);
        set.change(Id::Num(1), uri, subscribe, &mut w);
        let len = w.finish().unwrap();
        String::from_utf8(out[..len].to_vec()).unwrap()
    }

    #[test]
    fn the_set_is_bounded_in_count_and_uri_length() {
        let mut set = Subscriptions::new(2);
        assert!(changed(&mut set, "a://1", true).contains("\"result\":{}"));
        assert!(
            changed(&mut set, "a://1", true).contains("\"result\":{}"),
            "twice is once"
        );
        assert!(changed(&mut set, "a://2", true).contains("\"result\":{}"));
        let full = changed(&mut set, "a://3", true);
        assert!(
            full.contains("-32603") && full.contains("Too many"),
            "{full}"
        );
        assert!(!set.contains("a://3"));
        assert!(changed(&mut set, "a://1", false).contains("\"result\":{}"));
        assert!(
            changed(&mut set, "a://3", true).contains("\"result\":{}"),
            "room again"
        );
        let long = format!("a://{}", "x".repeat(MAX_URI_LEN));
        let refused = changed(&mut set, &long, true);
        assert!(refused.contains("-32602"), "{refused}");
        let mut listed: Vec<&str> = set.iter().collect();
        listed.sort_unstable();
        assert_eq!(listed, ["a://2", "a://3"]);
    }
}
