//! Legacy (2025-11-25) sessions behind a stock nginx: three `preferences` example nodes, each
//! with `--node-name`, so the session ids they mint start with their name, and nginx with
//! `docs/deploy.md`'s recipe (a `map` from `Mcp-Session-Id` to the node's upstream, every other
//! request round-robin). Sessions opened through nginx spread over the nodes; every later
//! request of a session (the bridged questions' answers included) reaches its node, so each
//! three-question flow completes; once a session's node is killed, its id answers 404 from
//! another node and a new session opens.
//!
//! Needs nginx (`scripts/test-all.sh` installs it). The client is written by hand on raw
//! HTTP/1.0 sockets (no chunked encoding to undo, the connection's end is the response's).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use serde_json::{Value, json};
use snodo_tests::cluster::nginx::{Nginx, nginx_program, session_routing};
use snodo_tests::cluster::node::Node;

const NAMES: [&str; 3] = ["node-a", "node-b", "node-c"];
/// Sessions opened through nginx (twice the nodes, so round-robin reaches every node).
const SESSIONS: usize = 6;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"cluster-legacy","version":"1.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A request written on a fresh HTTP/1.0 connection to nginx.
fn open(addr: SocketAddr, session: Option<&str>, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("nginx accepts");
    // A guard against a hang, never reached when the cluster answers.
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    let head = format!(
        "POST /mcp HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         {session}Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(body.as_bytes()).expect("writes");
    stream
}

/// A whole response: its status, a header's value and the body.
struct Response {
    status: u16,
    head: String,
    body: String,
}

impl Response {
    fn read(mut stream: TcpStream) -> Response {
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("a response");
        Response::parse(&text)
    }

    fn parse(text: &str) -> Response {
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status: {text}"));
        Response {
            status,
            head: head.to_owned(),
            body: body.to_owned(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// The JSON messages of an event stream's `data:` lines.
fn events(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// Opens a session through nginx: its id and the node that answered.
fn open_session(front: SocketAddr) -> (String, String) {
    let opened = Response::read(open(front, None, INITIALIZE));
    assert_eq!(opened.status, 200, "{}{}", opened.head, opened.body);
    let id = opened
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    // The node that answered: the last nginx tried.
    let upstream = opened
        .header("x-upstream")
        .and_then(|u| u.rsplit(", ").next())
        .unwrap_or_default()
        .to_owned();
    let initialized = Response::read(open(front, Some(&id), INITIALIZED));
    assert_eq!(initialized.status, 202, "{}", initialized.head);
    assert_eq!(initialized.header("x-upstream"), Some(upstream.as_str()));
    (id, upstream)
}

/// Runs `preference_preview` on `session`: reads each bridged `elicitation/create` from the
/// call's stream and answers it in a POST of its own, through nginx. The final text.
fn preview(front: SocketAddr, session: &str, upstream: &str, id: u64) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "preference_preview", "arguments": {"subject": "cluster"}}});
    let mut stream = open(front, Some(session), &call.to_string());
    let mut seen = String::new();
    let mut answered = 0;
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).expect("the call's stream");
        assert!(n > 0, "the stream ended without a result: {seen}");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        let messages = events(&seen);
        if let Some(done) = messages.iter().find(|m| m["id"] == id) {
            let head = Response::parse(&seen);
            assert_eq!(head.header("x-upstream"), Some(upstream), "{seen}");
            return done["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
        }
        let asked: Vec<&Value> = messages
            .iter()
            .filter(|m| m["method"] == "elicitation/create")
            .collect();
        for question in &asked[answered..] {
            let field = question["params"]["requestedSchema"]["properties"]
                .as_object()
                .and_then(|p| p.keys().next().cloned())
                .expect("a form field");
            let value = match field.as_str() {
                "color" => "teal",
                "style" => "bold",
                _ => "cluster",
            };
            let answer = json!({"jsonrpc": "2.0", "id": question["id"],
                "result": {"action": "accept", "content": {field: value}}});
            let reply = Response::read(open(front, Some(session), &answer.to_string()));
            assert_eq!(
                reply.status, 202,
                "the answer reached another node: {}",
                reply.head
            );
            assert_eq!(reply.header("x-upstream"), Some(upstream));
        }
        answered = asked.len();
    }
}

#[test]
fn legacy_sessions_reach_their_node_through_nginx_and_a_lost_node_answers_404() {
    nginx_program();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let dir = dir.path();
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("open the directory");
    let mut nodes: Vec<Node> = NAMES
        .iter()
        .map(|name| Node::start_with("127.0.0.1:0", None, &["--node-name", name]))
        .collect();
    let named: Vec<(&str, SocketAddr)> = NAMES
        .iter()
        .copied()
        .zip(nodes.iter().map(|n| n.addr))
        .collect();
    let addrs: Vec<SocketAddr> = nodes.iter().map(|n| n.addr).collect();
    let nginx = Nginx::start_routing(dir, &addrs, &named);

    let sessions: Vec<(String, String)> = (0..SESSIONS).map(|_| open_session(nginx.addr)).collect();
    let mut on = BTreeSet::new();
    for (id, upstream) in &sessions {
        let (node, _) = id
            .split_once('.')
            .unwrap_or_else(|| panic!("no node in {id}"));
        let index = NAMES
            .iter()
            .position(|n| *n == node)
            .unwrap_or_else(|| panic!("{id}"));
        assert_eq!(
            upstream,
            &addrs[index].to_string(),
            "{id} was minted by its node"
        );
        on.insert(node.to_owned());
    }
    assert!(on.len() >= 2, "round-robin spread the sessions: {on:?}");

    for (n, (id, upstream)) in sessions.iter().enumerate() {
        let text = preview(nginx.addr, id, upstream, n as u64 + 1);
        assert_eq!(
            text,
            r#"{"color":"teal","style":"bold","status":"preview"}"#,
            "session {id}\nnginx:\n{}",
            nginx.error_log()
        );
    }

    // The node of the first session dies: its id now reaches a backup, which answers 404.
    let (lost, lost_upstream) = &sessions[0];
    let index = addrs
        .iter()
        .position(|a| &a.to_string() == lost_upstream)
        .expect("a node");
    nodes[index].kill();
    let list = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#;
    let gone = Response::read(open(nginx.addr, Some(lost), list));
    assert_eq!(gone.status, 404, "{}{}", gone.head, gone.body);
    assert_ne!(gone.header("x-upstream"), None);
    // Another session lives on, and a client that starts over gets a session on a live node.
    let (kept, kept_upstream) = sessions
        .iter()
        .find(|(_, u)| u != lost_upstream)
        .expect("a session on another node");
    let listed = Response::read(open(nginx.addr, Some(kept), list));
    assert_eq!(listed.status, 200, "{}{}", listed.head, listed.body);
    assert_eq!(listed.header("x-upstream"), Some(kept_upstream.as_str()));
    let (again, _) = open_session(nginx.addr);
    assert!(!again.starts_with(&format!("{}.", NAMES[index])), "{again}");
}

#[test]
fn the_deploy_guide_gives_the_routing_this_test_uses() {
    let guide = include_str!("../../docs/deploy.md");
    let example: Vec<(&str, SocketAddr)> = NAMES
        .iter()
        .zip(["10.0.0.11:8080", "10.0.0.12:8080", "10.0.0.13:8080"])
        .map(|(name, addr)| (*name, addr.parse().expect("an address")))
        .collect();
    let routing = session_routing(&example);
    assert!(
        guide.contains(&routing),
        "docs/deploy.md should hold, verbatim:\n{routing}"
    );
}
