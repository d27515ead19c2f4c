//! The `booking` example, as its users meet it: a 2026-07-28 client over stdio and over HTTP
//! books a room in MRTR legs, and sending the last leg again books nothing more; a
//! 2025-11-25 client over stdio books through `elicitation/create` requests; the calendar
//! (application state) is what the resource and the other tools then see.

mod common;
mod http_client;

#[path = "../examples/booking/app.rs"]
mod app;

use serde_json::{Value, json};
use snodo_std::http::HttpConfig;
use snodo_std::stdio::StdioConfig;

/// A 2026-07-28 client on one of the transports.
enum Peer {
    Stdio(common::Client),
    Http(http_client::Running),
}

impl Peer {
    fn stdio() -> Self {
        Peer::Stdio(common::start_server(
            app::server(),
            StdioConfig::default(),
            1 << 16,
            |w| w,
        ))
    }

    async fn http() -> Self {
        Peer::Http(http_client::serve(app::server(), HttpConfig::new()).await)
    }

    /// Sends a request (declaring form and URL elicitation) and returns its reply.
    async fn request(&mut self, id: u64, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}}
        });
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = match self {
            Peer::Stdio(client) => {
                client.send(&message.to_string()).await;
                client.recv().await
            }
            Peer::Http(running) => {
                let addr = running.addr;
                http_client::send(addr, http_client::post(addr, &message))
                    .await
                    .json()
            }
        };
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// The bookings, as the `calendar://bookings` resource lists them.
    async fn calendar(&mut self, id: u64) -> Value {
        let read = json!({"uri": "calendar://bookings"});
        let listed = self.request(id, "resources/read", read).await;
        let text = listed["result"]["contents"][0]["text"].as_str();
        serde_json::from_str(text.expect("text")).expect("JSON")
    }

    async fn call(&mut self, id: u64, name: &str, arguments: Value, rest: Value) -> Value {
        let mut params = json!({"name": name, "arguments": arguments});
        for (k, v) in rest.as_object().into_iter().flatten() {
            params[k] = v.clone();
        }
        self.request(id, "tools/call", params).await
    }
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"].as_str().unwrap_or("")
}

fn state(reply: &Value) -> String {
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    reply["result"]["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned()
}

/// Books `hopper` on a day in three legs, replays the last, and reads the calendar.
async fn book_in_legs(mut peer: Peer) {
    let room = json!({"room": "hopper", "day": "2026-12-07"});
    assert_eq!(peer.calendar(1).await, json!([]));

    let one = peer.call(2, "book_room", room.clone(), json!({})).await;
    let details = &one["result"]["inputRequests"]["details"];
    assert_eq!(details["params"]["mode"], "form", "{one}");
    let two = peer
        .call(
            3,
            "book_room",
            room.clone(),
            json!({
                "requestState": state(&one),
                "inputResponses": {"details": {"action": "accept",
                    "content": {"host": "Ada", "attendees": 4}}}
            }),
        )
        .await;
    assert!(
        two["result"]["inputRequests"]["confirm"].is_object(),
        "{two}"
    );
    let last = json!({
        "requestState": state(&two),
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
    });
    let three = peer.call(4, "book_room", room.clone(), last.clone()).await;
    assert_eq!(
        text(&three),
        "Booked hopper on 2026-12-07 for Ada (4 people)."
    );
    // The last leg sent again: the flow re-runs, the booking does not.
    let again = peer.call(5, "book_room", room.clone(), last).await;
    assert_eq!(
        text(&again),
        "This request already booked hopper on 2026-12-07."
    );

    assert_eq!(
        peer.calendar(6).await,
        json!([{"room": "hopper", "day": "2026-12-07", "host": "Ada", "attendees": 4}])
    );

    // The URL consent, for the booked room only.
    let offer = peer
        .call(8, "order_catering", room.clone(), json!({}))
        .await;
    let consent = &offer["result"]["inputRequests"]["catering"]["params"];
    assert_eq!(consent["mode"], "url", "{offer}");
    assert_eq!(consent["url"], "https://catering.example.com/order");
    let accepted = peer
        .call(
            9,
            "order_catering",
            room,
            json!({
                "requestState": state(&offer),
                "inputResponses": {"catering": {"action": "accept"}}
            }),
        )
        .await;
    assert_eq!(
        text(&accepted),
        "The catering page is open; the order is made there."
    );
    let unbooked = peer
        .call(
            10,
            "order_catering",
            json!({"room": "ada", "day": "2026-12-07"}),
            json!({}),
        )
        .await;
    assert_eq!(unbooked["result"]["isError"], true);
    assert_eq!(text(&unbooked), "ada is not booked on 2026-12-07.");
}

#[tokio::test]
async fn a_modern_client_books_once_over_stdio() {
    book_in_legs(Peer::stdio()).await;
}

#[tokio::test]
async fn a_modern_client_books_once_over_http() {
    book_in_legs(Peer::http().await).await;
}

#[tokio::test]
async fn a_legacy_client_books_through_elicitation_requests_over_stdio() {
    let mut client = common::start_server(app::server(), StdioConfig::default(), 1 << 16, |w| w);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "legacy", "version": "1"}
    }});
    client.send(&init.to_string()).await;
    let initialized = client.recv().await;
    assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "book_room", "arguments": {"room": "ada", "day": "2026-12-08"}
    }});
    client.send(&call.to_string()).await;
    for (key, content) in [
        ("host", json!({"host": "Grace", "attendees": 2})),
        ("confirm", json!({"confirm": true})),
    ] {
        let asked = client.recv().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        assert!(
            asked["params"]["requestedSchema"]["properties"][key].is_object(),
            "{asked}"
        );
        let answer = json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
            "action": "accept", "content": content
        }});
        client.send(&answer.to_string()).await;
    }
    let done = client.recv().await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(
        common::first_text(&done),
        "Booked ada on 2026-12-08 for Grace (2 people)."
    );
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {
        "uri": "calendar://bookings"
    }});
    client.send(&read.to_string()).await;
    let listed = client.recv().await;
    let text = listed["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("JSON"),
        json!([{"room": "ada", "day": "2026-12-08", "host": "Grace", "attendees": 2}])
    );
}
