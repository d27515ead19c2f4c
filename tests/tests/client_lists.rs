//! `server/discover` and the four lists through the Rust client, over stdio and over
//! Streamable HTTP, against every server the client suites use: the `preferences` example,
//! `mrtr-fixture-server --app preferences` and `--app fixture`, and the wire fixture with
//! pages of two items (served by a child copy of this test binary), whose lists the client
//! follows page by page.
//!
//! Each list is checked whole (names in order) and on the wire: the first page is asked
//! without a cursor, each next page with the `nextCursor` of the page before it, and the last
//! page has none. Expected values are written out from the servers' catalogues.

use serde_json::{Value, json};
use snodo_tests::client_harness::{
    Answers, InProcess, Launch, Log, Sent, Session, Transport, assert_matches, connect,
};
use snodo_tests::harness::{ANY_STRING, server_info};

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    discover_and_lists_on_the_example => discover_and_lists(Server::Example);
    discover_and_lists_on_the_preferences_fixture_server => discover_and_lists(Server::Preferences);
    discover_and_lists_on_the_mrtr_fixture_server => discover_and_lists(Server::Fixture);
    discover_and_paged_lists_on_the_paged_fixture => discover_and_lists(Server::Paged);
    templated_resources_named_by_unsafe_header_values => unsafe_names();
}

#[derive(Clone, Copy, Debug)]
enum Server {
    Example,
    Preferences,
    Fixture,
    Paged,
}

/// What a server lists.
struct Catalogue {
    discover: Value,
    tools: &'static [&'static str],
    resources: &'static [&'static str],
    templates: &'static [&'static str],
    prompts: &'static [&'static str],
    /// Items per page (everything on one page unless the server pages).
    page: usize,
}

const FIXTURE_INSTRUCTIONS: &str = "A fixture server for the acceptance suite.";

impl Server {
    fn launch(self) -> Launch {
        let program = env!("CARGO_BIN_EXE_mrtr-fixture-server");
        match self {
            Server::Example => Launch::example(),
            Server::Preferences => Launch::fixture_server(program, "preferences"),
            Server::Fixture => Launch::fixture_server(program, "fixture"),
            Server::Paged => Launch::in_process(InProcess::Paged),
        }
    }

    fn catalogue(self) -> Catalogue {
        let info = match self {
            Server::Example => json!({
                "name": "snodo-preferences",
                "title": "Snodo preferences example",
                "version": env!("CARGO_PKG_VERSION")
            }),
            _ => server_info(),
        };
        let discover = |capabilities: Value, instructions: &str, ttl: u64, scope: &str| {
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": capabilities,
                "instructions": instructions,
                "ttlMs": ttl,
                "cacheScope": scope,
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": info}
            })
        };
        let everything = json!({"tools": {}, "resources": {}, "prompts": {}, "completions": {}});
        match self {
            Server::Example => Catalogue {
                // Its report tool runs as a task: the extension is advertised.
                discover: discover(
                    json!({
                        "tools": {}, "resources": {}, "prompts": {}, "completions": {},
                        "extensions": {"io.modelcontextprotocol/tasks": {}}
                    }),
                    ANY_STRING,
                    60_000,
                    "public",
                ),
                tools: &[
                    "echo",
                    "add",
                    "slow_count",
                    "fail",
                    "report",
                    "preference_preview",
                    "reset_preview",
                    "url_preview",
                    "sampling_preview",
                    "roots_preview",
                    "combined_preview",
                ],
                resources: &["preview://about", "preview://preferences"],
                templates: &["greeting://{name}"],
                prompts: &["greeting_prompt", "preference_prompt"],
                page: 50,
            },
            Server::Preferences => Catalogue {
                discover: discover(
                    json!({"tools": {}, "resources": {}, "prompts": {}}),
                    FIXTURE_INSTRUCTIONS,
                    60_000,
                    "public",
                ),
                tools: &["preference_preview", "reset_preview", "url_preview"],
                resources: &["preview://preferences"],
                templates: &[],
                prompts: &["preference_prompt"],
                page: 50,
            },
            Server::Fixture => Catalogue {
                discover: discover(everything, FIXTURE_INSTRUCTIONS, 60_000, "public"),
                tools: &[
                    "book_trip",
                    "summarize",
                    "scan_roots",
                    "audit",
                    "adaptive",
                    "forecast",
                    "broken_forecast",
                    "outcome",
                    "misplaced",
                    "inspect",
                ],
                resources: &["mrtr://roots"],
                templates: &["outcome://{kind}"],
                prompts: &["sampled_prompt", "outcome_prompt", "inspect_prompt"],
                page: 50,
            },
            Server::Paged => Catalogue {
                discover: discover(everything, FIXTURE_INSTRUCTIONS, 5_000, "private"),
                tools: &[
                    "search",
                    "weather",
                    "bad_weather",
                    "overdrawn",
                    "quota",
                    "crash",
                    "count",
                ],
                resources: &["fixture://readme", "fixture://logo", "fixture://broken"],
                templates: &[
                    "fixture://users/{id}",
                    "fixture://files/{+path}",
                    "fixture://logs/{day}/{hour}",
                ],
                prompts: &["greet", "summarize", "broken_prompt"],
                page: 2,
            },
        }
    }
}

fn names<'v>(items: &'v [Value], key: &str) -> Vec<&'v str> {
    items
        .iter()
        .map(|item| item[key].as_str().unwrap_or("<none>"))
        .collect()
}

/// The pages of `method` the client asked for since `mark`: each a fresh request, the first
/// without a cursor, every next one with the `nextCursor` of the page before, the last with
/// none; `pages` of them, holding `count` items under `key` in all.
#[track_caller]
fn assert_pages(s: &Session, mark: usize, method: &str, key: &str, count: usize, page: usize) {
    let legs: Vec<Sent> = s.sent_since(mark);
    assert!(legs.iter().all(|leg| leg.method() == method), "{legs:#?}");
    let pages = count.div_ceil(page).max(1);
    assert_eq!(legs.len(), pages, "{method}: pages");
    let mut seen = 0;
    for (i, leg) in legs.iter().enumerate() {
        let cursor = leg.params().get("cursor").and_then(Value::as_str);
        match i {
            0 => assert_eq!(cursor, None, "{method}: the first page has no cursor"),
            _ => {
                let before = legs[i - 1].result()["nextCursor"].as_str();
                assert!(before.is_some(), "{method}: page {i} gave no cursor");
                assert_eq!(cursor, before, "{method}: page {}", i + 1);
            }
        }
        let result = leg.result();
        assert_eq!(result["resultType"], "complete", "{result}");
        let on_page = result[key].as_array().map_or(0, Vec::len);
        assert_eq!(
            on_page,
            (count - seen).min(page),
            "{method}: page {}",
            i + 1
        );
        seen += on_page;
        if i + 1 == legs.len() {
            assert!(result.get("nextCursor").is_none(), "{result}");
        }
    }
}

async fn discover_and_lists(transport: Transport, server: Server) {
    let catalogue = server.catalogue();
    let log = Log::new();
    let s = connect(&server.launch(), transport, Answers::none().builder(&log));

    let discovered = s.discover().await.expect("server/discover");
    assert_matches(&discovered, &catalogue.discover);
    let discovery = &s.sent()[0];
    assert_eq!(discovery.method(), "server/discover");
    assert_eq!(
        discovery
            .params()
            .as_object()
            .map(|p| p.keys().collect::<Vec<_>>()),
        Some(vec![&"_meta".to_owned()]),
        "server/discover carries only the envelope"
    );

    let mark = s.mark();
    let tools = s.list_tools().await.expect("tools/list");
    assert_eq!(names(&tools, "name"), catalogue.tools);
    assert_pages(&s, mark, "tools/list", "tools", tools.len(), catalogue.page);

    let mark = s.mark();
    let resources = s.list_resources().await.expect("resources/list");
    assert_eq!(names(&resources, "uri"), catalogue.resources);
    assert_pages(
        &s,
        mark,
        "resources/list",
        "resources",
        resources.len(),
        catalogue.page,
    );

    let mark = s.mark();
    let templates = s
        .list_resource_templates()
        .await
        .expect("resources/templates/list");
    assert_eq!(names(&templates, "uriTemplate"), catalogue.templates);
    assert_pages(
        &s,
        mark,
        "resources/templates/list",
        "resourceTemplates",
        templates.len(),
        catalogue.page,
    );

    let mark = s.mark();
    let prompts = s.list_prompts().await.expect("prompts/list");
    assert_eq!(names(&prompts, "name"), catalogue.prompts);
    assert_pages(
        &s,
        mark,
        "prompts/list",
        "prompts",
        prompts.len(),
        catalogue.page,
    );
    assert!(log.take().is_empty());
    s.finish(json!({})).await;
}

/// Resources whose URIs are not safe as plain header values (non-ASCII text, a trailing
/// space, a tab) are read like any other; over HTTP their `Mcp-Name` goes as Base64 (checked
/// by the session's request checks), and the server, which compares it with the body,
/// accepts it.
async fn unsafe_names(transport: Transport) {
    let log = Log::new();
    let s = connect(&Launch::example(), transport, Answers::none().builder(&log));
    for name in ["Zoë", "Ada ", "tab\there"] {
        let uri = format!("greeting://{name}");
        let read = s
            .read_resource(&uri)
            .await
            .unwrap_or_else(|e| panic!("{uri:?}: {e}"));
        assert_eq!(read["contents"][0]["uri"], uri.as_str());
        assert_eq!(read["contents"][0]["text"], format!("Hello, {name}!"));
    }
    if transport == Transport::Http {
        let names: Vec<String> = s
            .sent()
            .iter()
            .map(|m| m.headers.get("mcp-name").cloned().unwrap_or_default())
            .collect();
        assert!(
            names.iter().all(|n| n.starts_with("=?base64?")),
            "{names:?}"
        );
    }
    s.finish(json!({})).await;
}
