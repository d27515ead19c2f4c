//! A task client over HTTP: requests that declare the Tasks extension, sent as a caller named
//! by the `x-user` header, and polling a task until it reaches a status.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use super::{PATIENCE, message, post, send, with};

/// The `_meta` of a request that declares the extension (and form elicitation).
pub fn declaring() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    })
}

/// Sends `method` with `params` (and the declaring `_meta`) to `addr` as `user`.
pub async fn send_as(addr: SocketAddr, user: &str, method: &str, mut params: Value) -> Value {
    params["_meta"] = declaring();
    let body = message(json!(1), method, params);
    let request = with(post(addr, &body), "x-user", user.as_bytes());
    send(addr, request).await.json()
}

/// `tasks/get` of `task_id` as `user`.
pub async fn get(addr: SocketAddr, user: &str, task_id: &str) -> Value {
    send_as(addr, user, "tasks/get", json!({"taskId": task_id})).await
}

/// Polls `task_id` until its status is `status` (within [`PATIENCE`]): the last answer.
pub async fn until(addr: SocketAddr, user: &str, task_id: &str, status: &str) -> Value {
    let polled = async {
        loop {
            let got = get(addr, user, task_id).await;
            if got["result"]["status"] == status {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(PATIENCE, polled)
        .await
        .unwrap_or_else(|_| panic!("task {task_id} never became {status}"))
}

/// The id of the task a response created.
pub fn created(response: &Value) -> String {
    assert_eq!(response["result"]["resultType"], "task", "{response}");
    response["result"]["taskId"]
        .as_str()
        .expect("a taskId")
        .to_owned()
}
