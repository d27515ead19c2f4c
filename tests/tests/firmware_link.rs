//! The link-time proof that the core needs no heap, and the device binary on the wire.
//!
//! `embedded-example` has a `#![no_std]` + `#![no_main]` binary, `snodo-device`, that links
//! `snodo-core` with no global allocator. These tests build it the way its `Cargo.toml`
//! describes (`cargo rustc ... -- -C panic=abort`, in a target directory of its own so the
//! outer `cargo test` keeps its lock and nothing else overwrites the artifact), then:
//!
//! - read its ELF symbol tables: no allocator shim (`__rust_alloc`, `__rg_*`, `__rdl_*`,
//!   `__rust_alloc_error_handler`, ...) is defined or referenced, and no symbol comes from the
//!   `alloc` or `std` crates;
//! - pipe requests through its stdin and check every reply on its stdout structurally.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Builds `snodo-device` once per test run and returns its path.
fn device() -> &'static Path {
    static DEVICE: OnceLock<PathBuf> = OnceLock::new();
    DEVICE.get_or_init(build_device)
}

fn build_device() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args([
            "rustc",
            "-p",
            "snodo-embedded-example",
            "--bin",
            "snodo-device",
        ])
        .args(["--features", "host-binary"])
        .arg("--message-format=json-render-diagnostics")
        .arg("--target-dir")
        .arg(link_target_dir());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    command.args(["--", "-C", "panic=abort"]);
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building snodo-device failed: {}",
        output.status
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "snodo-device")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported the snodo-device executable")
}

/// `<target>/snodo-device-link`, beside the profile directory this test runs from.
fn link_target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    // <target>/<profile>/deps/<test>
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary sits in <target>/<profile>/deps");
    target.join("snodo-device-link")
}

// ---------------------------------------------------------------------------------------------
// The link

/// One entry of an ELF symbol table.
#[derive(Debug)]
struct Symbol {
    name: String,
    defined: bool,
}

/// The symbols of a little-endian ELF64 file, from `.symtab` and `.dynsym`; also whether a full
/// `.symtab` was there (a stripped binary would make the check below vacuous).
fn elf_symbols(elf: &[u8]) -> (Vec<Symbol>, bool) {
    const SHT_SYMTAB: u32 = 2;
    const SHT_DYNSYM: u32 = 11;
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!((elf[4], elf[5]), (2, 1), "not a little-endian ELF64 file");
    let (shoff, shentsize, shnum) = (u64_at(0x28), u16_at(0x3A), u16_at(0x3C));
    let section = |i: usize| shoff + i * shentsize;
    let mut symbols = Vec::new();
    let mut has_symtab = false;
    for i in 0..shnum {
        let sh = section(i);
        let kind = u32_at(sh + 4);
        if kind != SHT_SYMTAB && kind != SHT_DYNSYM {
            continue;
        }
        has_symtab |= kind == SHT_SYMTAB;
        let (offset, size, entsize) = (u64_at(sh + 24), u64_at(sh + 32), u64_at(sh + 56));
        let strtab = section(u32_at(sh + 40) as usize);
        let strings = &elf[u64_at(strtab + 24)..][..u64_at(strtab + 32)];
        for entry in (offset..offset + size).step_by(entsize).skip(1) {
            let name_at = u32_at(entry) as usize;
            let name_len = strings[name_at..].iter().position(|&b| b == 0).unwrap();
            let name = String::from_utf8_lossy(&strings[name_at..name_at + name_len]);
            symbols.push(Symbol {
                name: name.into_owned(),
                defined: u16_at(entry + 6) != 0, // st_shndx != SHN_UNDEF
            });
        }
    }
    (symbols, has_symtab)
}

/// Why a symbol would show that something allocates, if it does.
fn allocation_evidence(name: &str) -> Option<&'static str> {
    // The allocator shim and the default allocator, mangled or not (Rust now mangles them as
    // `_RNvCs..._7___rustc12___rust_alloc`).
    const SHIM: &[&str] = &[
        "__rust_alloc",
        "__rust_dealloc",
        "__rust_realloc",
        "__rust_no_alloc_shim_is_unstable",
        "__rg_",
        "__rdl_",
    ];
    if SHIM.iter().any(|s| name.contains(s)) {
        return Some("an allocator shim symbol");
    }
    // Items of the `alloc` or `std` crates: legacy mangling starts with the crate's path,
    // v0 mangling names the crate root as `C<disambiguator>_<len><name>`.
    if name.starts_with("_ZN5alloc") || (name.starts_with("_R") && name.contains("_5alloc")) {
        return Some("a symbol from the alloc crate");
    }
    if name.starts_with("_ZN3std") || (name.starts_with("_R") && name.contains("_3std")) {
        return Some("a symbol from the std crate");
    }
    None
}

#[test]
fn the_evidence_check_recognises_what_an_allocating_binary_contains() {
    // Names as they appear in a no_std binary that does allocate (built once by hand with a
    // global allocator) and in one that does not.
    for name in [
        "_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc",
        "_RNvCsfLfy6EI15iL_7___rustc26___rust_alloc_error_handler",
        "_RNvCsfLfy6EI15iL_7___rustc35___rust_no_alloc_shim_is_unstable_v2",
        "__rust_alloc",
        "__rg_alloc",
        "__rdl_oom",
        "_RNvNtCslNYArtu3iFV_5alloc5alloc18handle_alloc_error",
        "_ZN5alloc3vec9from_elem17h3d3fa9d5beb673faE",
        "_ZN3std2io5stdio6_print17h0000000000000000E",
    ] {
        assert!(allocation_evidence(name).is_some(), "{name}");
    }
    for name in [
        "main",
        "write",
        "_ZN4core5alloc6layout6Layout4size17h483f7bcca57009b0E",
        "_RNvNtNtCsgEmfK2I1SDS_4core3fmt5write",
        "_RNvCsfLfy6EI15iL_7___rustc17rust_begin_unwind",
    ] {
        assert!(allocation_evidence(name).is_none(), "{name}");
    }
}

#[test]
fn the_device_links_with_no_allocator_and_no_std() {
    let elf = std::fs::read(device()).expect("the device binary is readable");
    let (symbols, has_symtab) = elf_symbols(&elf);
    assert!(
        has_symtab,
        "the device binary has no .symtab (stripped?), so the check would prove nothing"
    );
    let find = |name: &str| symbols.iter().find(|s| s.name == name);
    // The reader works: our entry point is defined, libc's I/O is imported.
    assert!(
        find("main").is_some_and(|s| s.defined),
        "main is not defined"
    );
    for import in ["read", "write"] {
        assert!(
            find(import).is_some_and(|s| !s.defined),
            "{import} is not imported from libc"
        );
    }
    let evidence: Vec<String> = symbols
        .iter()
        .filter_map(|s| {
            allocation_evidence(&s.name).map(|why| {
                let how = if s.defined { "defines" } else { "references" };
                format!("{how} {} ({why})", s.name)
            })
        })
        .collect();
    assert!(
        evidence.is_empty(),
        "the device binary allocates or links std:\n{}",
        evidence.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The wire

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn request(id: &str, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{params}}}}}"#)
}

fn tool_call(id: &str, tool: &str, arguments: &str) -> String {
    request(
        id,
        "tools/call",
        &format!(r#""name":"{tool}","arguments":{arguments}"#),
    )
}

/// Runs the device on `input`; returns its stdout lines (each parsed) once it has exited.
fn run_device(input: Vec<u8>) -> Vec<Value> {
    let mut child = Command::new(device())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the device starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        stdout.read_to_string(&mut out).map(|_| out)
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut err = String::new();
        stderr.read_to_string(&mut err).map(|_| err)
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the device did not exit at the end of its input");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer
        .join()
        .unwrap()
        .expect("the device read all its input");
    let out = reader.join().unwrap().expect("stdout is readable");
    let err = errors.join().unwrap().expect("stderr is readable");
    assert!(
        status.success(),
        "the device failed: {status}; stderr: {err}"
    );
    assert_eq!(err, "", "the device wrote to stderr");
    assert!(
        out.is_empty() || out.ends_with('\n'),
        "every message ends with a newline"
    );
    out.lines()
        .map(|line| {
            assert!(line.is_ascii(), "non-ASCII output: {line}");
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
        })
        .collect()
}

fn server_info_is_present(result: &Value) {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "snodo-bench-instrument",
        "{result}"
    );
}

/// A successful tool result whose `structuredContent` is `expected` and whose text block
/// mirrors it.
fn tool_result_is(reply: &Value, id: Value, expected: Value) {
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], id, "{reply}");
    let result = &reply["result"];
    server_info_is_present(result);
    assert_ne!(result["isError"], true, "{reply}");
    assert_eq!(result["structuredContent"], expected, "{reply}");
    assert_eq!(result["content"][0]["type"], "text", "{reply}");
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), expected);
}

fn tool_error_is(reply: &Value, id: Value, says: &str) {
    assert_eq!(reply["id"], id, "{reply}");
    let result = &reply["result"];
    server_info_is_present(result);
    assert_eq!(result["isError"], true, "{reply}");
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert!(text.contains(says), "{text:?} does not say {says:?}");
}

fn rpc_error_is(reply: &Value, id: Value, code: i64) {
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], id, "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert!(reply["error"]["message"].is_string(), "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");
}

#[test]
fn the_device_answers_discover_and_tool_calls_over_stdio() {
    let with_progress = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}"#;
    let lines = [
        request("1", "server/discover", ""),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#.into(),
        request(r#""list""#, "tools/list", ""),
        request(
            r#""sub""#,
            "subscriptions/listen",
            r#""notifications":{"toolsListChanged":true}"#,
        ),
        tool_call("2", "read_sensor", r#"{"channel":0}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{with_progress},"name":"read_sensor","arguments":{{"channel":2,"samples":4}}}}}}"#
        ),
        tool_call("4", "set_relay", r#"{"channel":0,"on":true}"#),
        request("5", "resources/read", r#""uri":"device://info""#),
        tool_call("6", "read_sensor", r#"{"channel":3}"#),
        tool_call("7", "read_sensor", r#"{"channel":9}"#),
        r#"{"jsonrpc":"2.0","id":"#.into(),
        format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{{META},"name":"read_sensor","arguments":{{"channel":1}},"pad":"{}"}}}}"#,
            "x".repeat(4000)
        ),
        String::new(),
    ];
    let mut input = lines.join("\n").into_bytes();
    // A request ended by `\r\n`, and a last one with no newline at all.
    input.extend_from_slice(format!("\n{}\r\n", request("9", "server/discover", "")).as_bytes());
    input.extend_from_slice(tool_call("10", "read_sensor", r#"{"channel":1}"#).as_bytes());

    let out = run_device(input);
    let mut out = out.iter();
    let mut next = || out.next().expect("another message");

    let discover = next();
    assert_eq!(discover["id"], 1);
    let result = &discover["result"];
    server_info_is_present(result);
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    for family in ["tools", "resources", "prompts"] {
        assert!(result["capabilities"][family].is_object(), "{discover}");
    }
    assert!(result["ttlMs"].is_u64() && result["cacheScope"].is_string());

    // The two notifications got nothing; the list comes next.
    let list = next();
    assert_eq!(list["id"], "list");
    server_info_is_present(&list["result"]);
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<_> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    // One definition per page, so that every page fits the device's 2 KiB messages.
    assert_eq!(names, ["read_sensor"]);
    assert_eq!(list["result"]["nextCursor"], "1", "{list}");
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }

    // A catalogue that never changes: the stream is acknowledged, honouring nothing, and
    // closed at once so the link can go on.
    let acknowledged = next();
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert!(acknowledged.get("id").is_none(), "{acknowledged}");
    assert_eq!(
        acknowledged["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    assert_eq!(acknowledged["params"]["notifications"], json!({}));
    let closed = next();
    assert_eq!(closed["id"], "sub");
    assert_eq!(closed["result"]["resultType"], "complete", "{closed}");

    tool_result_is(
        next(),
        json!(2),
        json!({"channel": 0, "quantity": "temperature", "value": 23.125, "unit": "Cel", "samples": 1}),
    );

    for n in 1..=4 {
        let progress = next();
        assert!(progress.get("id").is_none(), "{progress}");
        assert_eq!(progress["method"], "notifications/progress");
        assert_eq!(progress["params"]["progressToken"], 7);
        assert_eq!(progress["params"]["progress"].as_f64(), Some(f64::from(n)));
        assert_eq!(progress["params"]["total"].as_f64(), Some(4.0));
    }
    tool_result_is(
        next(),
        json!(3),
        json!({"channel": 2, "quantity": "supply_voltage", "value": 3.3, "unit": "V", "samples": 4}),
    );

    // Switching a relay needs the user's confirmation through a form, and this client
    // declared no elicitation capability: -32021 naming it, and nothing switched.
    let refused = next();
    rpc_error_is(refused, json!(4), -32021);
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}}),
        "{refused}"
    );
    let info = next();
    assert_eq!(info["id"], 5);
    server_info_is_present(&info["result"]);
    let info: Value = serde_json::from_str(
        info["result"]["contents"][0]["text"]
            .as_str()
            .expect("device info is text"),
    )
    .unwrap();
    assert_eq!(info["model"], "snodo-bench-instrument");
    assert_eq!(info["relays"], json!([false, false]), "{info}");
    assert_eq!(info["maxMessageBytes"], 2048);

    tool_error_is(next(), json!(6), "does not respond");
    tool_error_is(next(), json!(7), "Invalid arguments");

    rpc_error_is(next(), Value::Null, -32700);
    rpc_error_is(next(), Value::Null, -32600);

    let again = next();
    assert_eq!(again["id"], 9);
    assert_eq!(again["result"]["supportedVersions"], json!(["2026-07-28"]));
    tool_result_is(
        next(),
        json!(10),
        json!({"channel": 1, "quantity": "relative_humidity", "value": 41.5, "unit": "%", "samples": 1}),
    );
    assert!(
        out.next().is_none(),
        "nothing more: notifications get no reply"
    );
}

#[test]
fn the_device_exits_cleanly_on_empty_input() {
    assert!(run_device(Vec::new()).is_empty());
}
