//! The firmware built for a Cortex-M4 (`thumbv7em-none-eabihf`) and run on QEMU's
//! `mps2-an386`: the same flows as the host process, through `snodo-bridge` on the emulated
//! UART's pseudo-terminal, driven by our tests and by the official TypeScript client in its
//! default era and pinned to 2026-07-28, over newline-delimited JSON and COBS; a reset
//! mid-flow; and bad bytes on the UART, which must get the answers the host build gives and
//! never fault the firmware.
//!
//! Every test ends by checking that the emulation is still running and the firmware reported
//! no panic or hard fault (its handlers report them through semihosting and end QEMU).

mod firmware_common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use firmware_common::qemu::{Emulator, RawSerial, default_image};
use firmware_common::*;
use serde_json::{Value, json};

fn boot(framing: &str) -> Emulator {
    Emulator::start(&default_image(), &format!("--framing {framing} --announce"))
}

#[test]
fn read_sensor_answers_on_the_emulated_board_over_cobs() {
    let mut board = boot("cobs");
    let mut bridge = StdioBridge::on(&board.serial, "cobs");
    let discover = bridge.call(&request(1, "server/discover", json!({})));
    assert_eq!(discover["result"]["supportedVersions"], json!([PROTOCOL]));
    for (channel, value) in [(0, json!(23.125)), (1, json!(41.5)), (2, json!(3.3))] {
        let reply = bridge.call(&tool_call(
            2 + channel,
            "read_sensor",
            json!({"channel": channel}),
        ));
        assert_eq!(structured(&reply)["value"], value, "{reply}");
    }
    let missing = bridge.call(&tool_call(9, "read_sensor", json!({"channel": 3})));
    assert_eq!(missing["result"]["isError"], true, "{missing}");

    progress_flow(&mut bridge);
    bridge.finish();
    board.assert_healthy();
}

#[test]
fn set_relay_is_confirmed_on_the_emulated_board_over_lines() {
    let mut board = boot("line");
    let bridge = HttpBridge::on(&board.serial, "line");
    set_relay_flow(&mut |m| bridge.post(m, &[]).reply().clone());
    board.assert_healthy();
}

#[test]
fn calibrate_runs_three_legs_on_the_emulated_board_over_cobs() {
    let mut board = boot("cobs");
    let mut bridge = StdioBridge::on(&board.serial, "cobs");
    calibrate_flow(&mut |m| bridge.call(m));
    bridge.finish();
    board.assert_healthy();
}

#[test]
fn tampered_state_is_refused_by_the_emulated_board() {
    let mut board = boot("line");
    let mut bridge = StdioBridge::on(&board.serial, "line");
    let first = tool_call(1, "calibrate", json!({"channel": 0}));
    let asked = bridge.call(&first);
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let token = asked["result"]["requestState"].as_str().unwrap();
    let mut forged = retry(
        &first,
        2,
        &asked,
        accept("reference", json!({"reference": 23})),
    );
    forged["params"]["requestState"] = json!(tampered(token));
    assert_eq!(error_code(&bridge.call(&forged)), -32602);
    // The genuine token still works after the forgery was refused.
    let genuine = retry(
        &first,
        3,
        &asked,
        accept("reference", json!({"reference": 23})),
    );
    let next = bridge.call(&genuine);
    assert_eq!(next["result"]["resultType"], "input_required", "{next}");
    bridge.finish();
    board.assert_healthy();
}

#[test]
fn a_reset_mid_flow_invalidates_state_on_the_emulated_board() {
    let mut board = boot("cobs");
    let mut bridge = StdioBridge::on(&board.serial, "cobs");
    let first = tool_call(1, "set_relay", json!({"channel": 0, "on": true}));
    let asked = bridge.call(&first);
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");

    // The reset button: the firmware boots again with a fresh secret and announces it.
    board.reset();
    wait_for_log(&bridge.log, "the device (re)started");
    let stale = retry(
        &first,
        2,
        &asked,
        accept("confirm", json!({"confirm": true})),
    );
    assert_eq!(error_code(&bridge.call(&stale)), -32602);
    assert_eq!(relays(&bridge.call(&info(3))), json!([false, false]));

    // A flow begun after the reset completes.
    let again = tool_call(4, "set_relay", json!({"channel": 0, "on": true}));
    let asked = bridge.call(&again);
    let confirmed = retry(
        &again,
        5,
        &asked,
        accept("confirm", json!({"confirm": true})),
    );
    assert_eq!(structured(&bridge.call(&confirmed))["switched"], true);
    assert_eq!(relays(&bridge.call(&info(6))), json!([true, false]));
    bridge.finish();
    board.assert_healthy();
}

// ---------------------------------------------------------------------------------------------
// Bad bytes on the wire

/// Noise, a message over the device's 2 KiB, truncated and malformed JSON, a reply too large
/// for the device's buffer (an id that fills most of a message), and (on COBS) a frame with a
/// bad CRC and one with a broken encoding; then a good request, whose reply ends the list.
fn hostile_input(framing: &str) -> Vec<u8> {
    let frame = |message: &[u8]| -> Vec<u8> {
        match framing {
            "cobs" => cobs_frame(message),
            _ => [message, b"\n"].concat(),
        }
    };
    let mut input = Vec::new();
    input.extend(frame(b"\x13\x37 line noise \xff\xfe"));
    let overlong = tool_call(
        1,
        "read_sensor",
        json!({"channel": 0, "pad": "x".repeat(5000)}),
    );
    input.extend(frame(overlong.to_string().as_bytes()));
    input.extend(frame(br#"{"jsonrpc":"2.0","id":2,"method":"tools/ca"#));
    input.extend(frame(br#"{"jsonrpc":"2.0","id":[],"method":7}"#));
    let big_id = "i".repeat(1900);
    let too_large = json!({"jsonrpc": "2.0", "id": big_id, "method": "tools/list", "params": {"_meta": meta()}});
    input.extend(frame(too_large.to_string().as_bytes()));
    if framing == "cobs" {
        let mut bad_crc = cobs_frame(
            tool_call(3, "read_sensor", json!({"channel": 0}))
                .to_string()
                .as_bytes(),
        );
        let at = bad_crc.len() / 2;
        bad_crc[at] ^= 0x10;
        input.extend(bad_crc);
        // A code byte that points past the frame's end.
        input.extend([0x40, b'{', b'}', 0x00]);
        input.extend([0x00, 0x00]);
    }
    input.extend(frame(
        tool_call(4, "read_sensor", json!({"channel": 1}))
            .to_string()
            .as_bytes(),
    ));
    input
}

fn decode(framing: &str, frame: &[u8]) -> Value {
    let message = match framing {
        "cobs" => cobs_decode(frame).expect("the device's frames are well formed"),
        _ => frame.to_vec(),
    };
    serde_json::from_slice(&message)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&message)))
}

/// What the host build answers to `input` on pipes, up to and including the reply to id 4.
fn host_answers(framing: &str, input: Vec<u8>) -> Vec<Value> {
    let mut child = Command::new(device_binary())
        .args(["--framing", framing])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the device starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap().unwrap();
    assert!(child.wait().unwrap().success());
    let delimiter = if framing == "cobs" { 0 } else { b'\n' };
    out.split(|b| *b == delimiter)
        .filter(|frame| !frame.is_empty())
        .map(|frame| decode(framing, frame))
        .collect()
}

/// What the emulated board answers to `input` on its UART, up to the reply to id 4.
fn board_answers(board: &Emulator, framing: &str, input: &[u8]) -> Vec<Value> {
    let mut serial = RawSerial::open(&board.serial);
    serial.write(input);
    let delimiter = if framing == "cobs" { 0 } else { b'\n' };
    let mut answers = Vec::new();
    loop {
        let frame = serial.frame(delimiter);
        if frame.is_empty() {
            continue;
        }
        let answer = decode(framing, &frame);
        let last = answer["id"] == 4;
        answers.push(answer);
        if last {
            return answers;
        }
    }
}

fn bad_bytes_get_the_host_devices_answers(framing: &str) {
    let mut board = Emulator::start(&default_image(), &format!("--framing {framing}"));
    let on_board = board_answers(&board, framing, &hostile_input(framing));
    let on_host = host_answers(framing, hostile_input(framing));
    assert_eq!(on_board, on_host);
    // The answers are what they should be: errors for the bad messages (one JSON-RPC error
    // each, -32700 or -32600 or the reply-too-large error), then the good request served.
    let (last, errors) = on_board.split_last().unwrap();
    assert_eq!(structured(last)["value"], json!(41.5), "{last}");
    assert!(errors.len() >= 4, "{errors:?}");
    for error in errors {
        assert!(error["error"]["code"].is_i64(), "{error}");
    }
    assert!(
        errors.iter().any(|e| e["error"]["code"] == -32700),
        "{errors:?}"
    );
    board.assert_healthy();
}

#[test]
fn bad_bytes_over_lines_get_the_host_devices_answers() {
    bad_bytes_get_the_host_devices_answers("line");
}

#[test]
fn bad_bytes_over_cobs_get_the_host_devices_answers() {
    bad_bytes_get_the_host_devices_answers("cobs");
}

// ---------------------------------------------------------------------------------------------
// The official TypeScript client

fn typescript_over_stdio(pin: Option<&str>) {
    let mut board = boot("cobs");
    let bridge = bridge_binary().to_str().unwrap().to_owned();
    let serial = board.serial.to_str().unwrap().to_owned();
    let name = format!("qemu-stdio-{}", pin.unwrap_or("default"));
    run_client(
        &name,
        pin,
        &[
            "stdio",
            &bridge,
            "--serial",
            &serial,
            "--framing",
            "cobs",
            "--stdio",
        ],
    );
    board.assert_healthy();
}

fn typescript_over_http(pin: Option<&str>) {
    let mut board = boot("line");
    let bridge = HttpBridge::on(&board.serial, "line");
    let name = format!("qemu-http-{}", pin.unwrap_or("default"));
    run_client(
        &name,
        pin,
        &["http", &format!("http://{}/mcp", bridge.addr)],
    );
    board.assert_healthy();
}

#[test]
fn the_typescript_client_in_its_default_era_runs_the_flows_on_the_board_over_cobs() {
    typescript_over_stdio(None);
}

#[test]
fn the_typescript_client_pinned_to_2026_07_28_runs_the_flows_on_the_board_over_cobs() {
    typescript_over_stdio(Some(PROTOCOL));
}

#[test]
fn the_typescript_client_in_its_default_era_runs_the_flows_on_the_board_over_lines() {
    typescript_over_http(None);
}

#[test]
fn the_typescript_client_pinned_to_2026_07_28_runs_the_flows_on_the_board_over_lines() {
    typescript_over_http(Some(PROTOCOL));
}

// ---------------------------------------------------------------------------------------------
// Footprint

/// `tool ARGS… image` (GNU binutils, which read any ELF), its standard output.
fn binutils(tool: &str, args: &[&str], image: &std::path::Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(image)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs: {e}"));
    assert!(out.status.success(), "{tool} failed on {}", image.display());
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Symbols of `f64` parsing (`dec2flt`), formatting (`flt2dec`, `fmt::float`) and soft-float
/// arithmetic.
const FLOATING_POINT: [&str; 6] = [
    "dec2flt",
    "flt2dec",
    "fmt::float",
    "__adddf3",
    "__muldf3",
    "__divdf3",
];

/// The goal of the firmware guide: the example (COBS and lines, no defmt) in 128 KiB of
/// flash. The number parsing and formatting of `f64`, about 25 KiB of Thumb code and tables,
/// is what once broke it: numbers are compared and read exactly as decimals instead, so no
/// floating point may come back into the image.
#[test]
fn the_cortex_m_image_fits_128_kib_of_flash_and_links_no_floating_point() {
    let image = default_image();
    let sizes = binutils("size", &["-A"], &image);
    let section = |name: &str| -> u64 {
        sizes
            .lines()
            .find_map(|line| {
                let mut parts = line.split_whitespace();
                (parts.next() == Some(name)).then(|| parts.next()?.parse().ok())?
            })
            .unwrap_or(0)
    };
    let flash = section(".vector_table") + section(".text") + section(".rodata");
    assert!(flash > 0, "no sections read from:\n{sizes}");
    assert!(flash <= 128 * 1024, "flash {flash} B is over 128 KiB");

    let symbols = binutils("nm", &["-C"], &image);
    let float: Vec<&str> = symbols
        .lines()
        .filter(|line| FLOATING_POINT.iter().any(|pattern| line.contains(pattern)))
        .collect();
    assert!(float.is_empty(), "floating point linked in: {float:#?}");
}

// ---------------------------------------------------------------------------------------------
// defmt

/// `defmt-print` (pinned, installed into `.tools/` by `scripts/cargo-tools.sh` when missing).
fn defmt_print() -> std::path::PathBuf {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let status = Command::new("bash")
        .arg("-c")
        .arg("source scripts/cargo-tools.sh && need_tool defmt-print 1.0.0")
        .current_dir(workspace)
        .status()
        .expect("bash runs");
    assert!(status.success(), "installing defmt-print failed");
    workspace.join(".tools/bin/defmt-print")
}

/// Decodes the firmware's defmt frames with the image's symbols.
fn decode_defmt(image: &std::path::Path, frames: &[u8]) -> String {
    let mut child = Command::new(defmt_print())
        .arg("-e")
        .arg(image)
        .args(["--log-format", "{L} {s}", "stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("defmt-print runs");
    child.stdin.take().unwrap().write_all(frames).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "defmt-print failed");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_defmt_build_logs_its_boot_and_a_round_decoded_by_defmt_print() {
    let image = firmware_common::qemu::image("thumbv7em-none-eabihf", "defmt");
    let mut board = Emulator::start(&image, "--framing line");
    let mut serial = RawSerial::open(&board.serial);
    let call = tool_call(1, "read_sensor", json!({"channel": 0}));
    serial.write(format!("{call}\n").as_bytes());
    let reply = decode("line", &serial.frame(b'\n'));
    assert_eq!(structured(&reply)["value"], json!(23.125), "{reply}");

    // The round's log line is written once its reply is: wait for it to be decodable.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let decoded = loop {
        let decoded = decode_defmt(&image, &board.semihosting_output());
        if decoded.contains("round: Replied") || std::time::Instant::now() > deadline {
            break decoded;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    println!("{decoded}");
    let lines: Vec<Vec<&str>> = decoded
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert!(lines.contains(&vec!["INFO", "serving"]), "{decoded}");
    assert!(
        lines.contains(&vec!["DEBUG", "round:", "Replied"]),
        "{decoded}"
    );
    board.assert_healthy();
}

// ---------------------------------------------------------------------------------------------
// Cost

/// The `cost` image's figures: scripted rounds over an in-memory link, then seal and open.
fn cost_figures() -> Vec<String> {
    let image = firmware_common::qemu::image("thumbv7em-none-eabihf", "cost");
    let mut board = Emulator::start_with(&image, "--cost", &["-icount", "shift=0"]);
    let status = board.wait_for_exit();
    let console = board.console();
    assert!(status.success(), "the cost run failed:\n{console}");
    console
        .lines()
        .filter(|line| line.starts_with("cost: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_cost_of_fixed_rounds_is_the_same_on_every_run_under_icount() {
    let first = cost_figures();
    // Boot, three rounds, and the direct seal and open.
    assert_eq!(first.len(), 5, "{first:?}");
    for name in [
        "round read_sensor",
        "round set_relay (seal)",
        "round set_relay retry (open)",
    ] {
        assert!(
            first
                .iter()
                .any(|line| line.starts_with(&format!("cost: {name} "))),
            "{first:?}"
        );
    }
    assert_eq!(
        cost_figures(),
        first,
        "instruction counts differ between runs"
    );
}

// ---------------------------------------------------------------------------------------------
// RISC-V

#[test]
fn the_riscv_image_serves_the_confirmation_and_calibration_flows_over_cobs() {
    let image = firmware_common::qemu::image("riscv32imc-unknown-none-elf", "");
    let mut board = Emulator::start(&image, "--framing cobs --announce");
    let mut bridge = StdioBridge::on(&board.serial, "cobs");
    set_relay_flow(&mut |m| bridge.call(m));
    calibrate_flow(&mut |m| bridge.call(m));
    bridge.finish();
    board.assert_healthy();
}
