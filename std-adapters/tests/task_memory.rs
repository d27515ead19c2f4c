//! What a flood of tasks costs, measured on the `preferences` example as a process (its
//! resident memory from `/proc/PID/status`), over stdio.
//!
//! The flood is a careless client's: a thousand `report` calls declaring the Tasks
//! extension, far past the 64 tasks one caller may hold (`TaskLimits::max_per_principal`),
//! then for each task it holds oversized `tasks/update`s (past `max_input_bytes`) and
//! `tasks/get`s as fast as it can write them. Every call is answered (as a task, or in its
//! request once the caller's bound is reached), no more tasks exist than the bound, every
//! oversized answer is refused, and the server stays small throughout.
#![cfg(target_os = "linux")]

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};

use serde_json::{Value, json};

mod common;
mod legacy_peer;
use common::declaring;
use legacy_peer::{resident, spawn_stdio};

const MIB: u64 = 1 << 20;
/// The bound the server's resident memory stays under at every point of the flood.
const MOST_RESIDENT: u64 = 64 * MIB;
const CALLS: u64 = 1000;
/// `TaskLimits::max_per_principal`, the example's default (stdio has one caller).
const PER_CALLER: u64 = 64;
const UPDATES_PER_TASK: u64 = 4;
const GETS_PER_TASK: u64 = 16;
/// An `inputResponses` past `TaskLimits::max_input_bytes` (64 KiB), within a stdio line.
const HUGE: usize = 80 * 1024;

#[test]
fn a_flood_of_task_calls_updates_and_polls_meets_every_bound_and_stays_small() {
    let (child, mut stdin, stdout) = spawn_stdio(&[]);
    let pid = child.0.id();
    // The reader keeps every response by id and samples the server's memory as it reads.
    let peak = Arc::new(AtomicU64::new(0));
    let (responses, received) = mpsc::channel::<Value>();
    let sampled = Arc::clone(&peak);
    let reader = std::thread::spawn(move || {
        for (n, line) in stdout.lines().enumerate() {
            let Ok(line) = line else { break };
            if n % 16 == 0 {
                sampled.fetch_max(resident(pid), Ordering::Relaxed);
            }
            let message: Value = serde_json::from_str(&line).expect("JSON lines");
            if responses.send(message).is_err() {
                break;
            }
        }
    });
    let mut answers = HashMap::new();
    let wait_for = |ids: std::ops::Range<u64>, answers: &mut HashMap<u64, Value>| {
        while !ids.clone().all(|id| answers.contains_key(&id)) {
            let message = received
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("every request is answered");
            if let Some(id) = message["id"].as_u64() {
                answers.insert(id, message);
            }
        }
    };

    // Warm: the server is up and has answered once before its start is read.
    writeln!(
        stdin,
        "{}",
        declaring(CALLS + 1_000_000, "server/discover", json!({}))
    )
    .unwrap();
    wait_for(CALLS + 1_000_000..CALLS + 1_000_001, &mut answers);
    let start = resident(pid);
    for id in 0..CALLS {
        let args = json!({"name": "report", "arguments": {"topic": "flood", "seconds": 0}});
        writeln!(stdin, "{}", declaring(id, "tools/call", args)).unwrap();
    }
    wait_for(0..CALLS, &mut answers);
    let tasks: Vec<String> = (0..CALLS)
        .filter_map(|id| {
            let result = &answers[&id]["result"];
            (result["resultType"] == "task").then(|| result["taskId"].as_str().unwrap().to_owned())
        })
        .collect();
    let in_request = (0..CALLS)
        .filter(|id| answers[id]["result"]["resultType"] == "input_required")
        .count() as u64;
    assert_eq!(
        tasks.len() as u64,
        PER_CALLER,
        "tasks up to the caller's bound"
    );
    assert_eq!(
        in_request,
        CALLS - PER_CALLER,
        "the rest answered in the request"
    );

    let huge = "x".repeat(HUGE);
    let mut id = CALLS;
    let first_poll = id;
    for task in &tasks {
        for _ in 0..UPDATES_PER_TASK {
            let responses = json!({"r1.detail": {"action": "accept", "content": {"pad": huge}}});
            let update = json!({"taskId": task, "inputResponses": responses});
            writeln!(stdin, "{}", declaring(id, "tasks/update", update)).unwrap();
            id += 1;
        }
        for _ in 0..GETS_PER_TASK {
            writeln!(
                stdin,
                "{}",
                declaring(id, "tasks/get", json!({"taskId": task}))
            )
            .unwrap();
            id += 1;
        }
    }
    wait_for(first_poll..id, &mut answers);
    let per_task = UPDATES_PER_TASK + GETS_PER_TASK;
    for (n, id) in (first_poll..id).enumerate() {
        let answer = &answers[&id];
        if (n as u64) % per_task < UPDATES_PER_TASK {
            assert_eq!(answer["error"]["code"], -32602, "too large: {answer}");
        } else {
            // Polled faster than pollIntervalMs: answered all the same, still waiting.
            assert_eq!(answer["result"]["status"], "input_required", "{answer}");
        }
    }
    let peak = peak.load(Ordering::Relaxed).max(resident(pid));
    println!(
        "{CALLS} calls, {PER_CALLER} tasks, {} polls: resident {:.1} MiB at start, {:.1} MiB at peak",
        id - first_poll,
        start as f64 / MIB as f64,
        peak as f64 / MIB as f64
    );
    assert!(
        peak < MOST_RESIDENT,
        "resident {} MiB at peak, past {} MiB",
        peak / MIB,
        MOST_RESIDENT / MIB
    );
    drop(stdin);
    let _ = reader.join();
}

#[test]
fn the_examples_task_bounds_come_from_its_command_line() {
    let (_child, mut stdin, stdout) = spawn_stdio(&["--tasks-per-caller", "2"]);
    let mut lines = stdout.lines();
    let mut kinds = Vec::new();
    for id in 0..4 {
        let args = json!({"name": "report", "arguments": {"topic": "bounds", "seconds": 0}});
        writeln!(stdin, "{}", declaring(id, "tools/call", args)).unwrap();
        let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        kinds.push(
            answer["result"]["resultType"]
                .as_str()
                .unwrap_or("error")
                .to_owned(),
        );
    }
    // Two tasks for the one caller, then the question asked in the request.
    assert_eq!(kinds, ["task", "task", "input_required", "input_required"]);
}
