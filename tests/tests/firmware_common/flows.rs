//! The device's flows, through any transport's `call`: shared by the tests of the host
//! process and of the emulated board, so both are held to the same answers.

use serde_json::{Value, json};

use super::*;

pub fn relays(reply: &Value) -> Value {
    let text = reply["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("device info: {reply}"));
    serde_json::from_str::<Value>(text).unwrap()["relays"].clone()
}

pub fn info(id: u64) -> Value {
    request(id, "resources/read", json!({"uri": "device://info"}))
}

/// The `set_relay` flow through any transport `call`.
pub fn set_relay_flow(call: &mut dyn FnMut(&Value) -> Value) {
    let first = tool_call(10, "set_relay", json!({"channel": 1, "on": true}));
    let asked = call(&first);
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let confirm = &result["inputRequests"]["confirm"];
    assert_eq!(confirm["method"], "elicitation/create");
    assert_eq!(confirm["params"]["mode"], "form");
    assert_eq!(confirm["params"]["message"], "Switch relay 1 on?");
    assert_eq!(
        confirm["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    let token = result["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned();
    // Nothing switched before the confirmation.
    assert_eq!(relays(&call(&info(11))), json!([false, false]));

    // The answer without its state is asked again, and still nothing switches.
    let mut stateless = retry(
        &first,
        12,
        &json!({}),
        accept("confirm", json!({"confirm": true})),
    );
    stateless["params"]
        .as_object_mut()
        .unwrap()
        .remove("requestState");
    let again = call(&stateless);
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    assert_eq!(relays(&call(&info(13))), json!([false, false]));

    // Tampered state: -32602, nothing switched.
    let mut forged = retry(
        &first,
        14,
        &asked,
        accept("confirm", json!({"confirm": true})),
    );
    forged["params"]["requestState"] = json!(tampered(&token));
    assert_eq!(error_code(&call(&forged)), -32602);
    // The state replayed for other arguments (the other relay, or off): -32602.
    for arguments in [
        json!({"channel": 0, "on": true}),
        json!({"channel": 1, "on": false}),
    ] {
        let mut replayed = retry(
            &first,
            15,
            &asked,
            accept("confirm", json!({"confirm": true})),
        );
        replayed["params"]["arguments"] = arguments;
        assert_eq!(error_code(&call(&replayed)), -32602, "{replayed}");
    }
    assert_eq!(relays(&call(&info(16))), json!([false, false]));

    // Declined: not switched.
    let declined = retry(
        &first,
        17,
        &asked,
        json!({"confirm": {"action": "decline"}}),
    );
    assert_eq!(
        structured(&call(&declined)),
        &json!({"channel": 1, "on": true, "switched": false, "action": "decline"})
    );
    // Accepted but unchecked: not switched.
    let unchecked = retry(
        &first,
        18,
        &asked,
        accept("confirm", json!({"confirm": false})),
    );
    assert_eq!(structured(&call(&unchecked))["switched"], false);
    assert_eq!(relays(&call(&info(19))), json!([false, false]));

    // Confirmed: switched, once.
    let confirmed = retry(
        &first,
        20,
        &asked,
        accept("confirm", json!({"confirm": true})),
    );
    assert_eq!(
        structured(&call(&confirmed)),
        &json!({"channel": 1, "on": true, "switched": true, "was": false})
    );
    assert_eq!(relays(&call(&info(21))), json!([false, true]));
}

/// The three-leg `calibrate` flow, then a reading with the stored offset.
pub fn calibrate_flow(call: &mut dyn FnMut(&Value) -> Value) {
    let first = tool_call(30, "calibrate", json!({"channel": 0}));
    let leg1 = call(&first);
    assert_eq!(leg1["result"]["resultType"], "input_required", "{leg1}");
    let ask = &leg1["result"]["inputRequests"]["reference"]["params"];
    assert!(
        ask["message"].as_str().unwrap().contains("temperature"),
        "{ask}"
    );
    let leg2 = call(&retry(
        &first,
        31,
        &leg1,
        accept("reference", json!({"reference": 23.0})),
    ));
    assert_eq!(leg2["result"]["resultType"], "input_required", "{leg2}");
    let store = &leg2["result"]["inputRequests"]["store"]["params"];
    assert_eq!(
        store["message"],
        "Sensor 0 read 23.125 Cel against 23.000 Cel. Store an offset of -0.125 Cel?"
    );
    // The leg-2 state opened with the leg-1 answers is refused for another channel.
    let mut elsewhere = retry(&first, 32, &leg2, accept("store", json!({"store": true})));
    elsewhere["params"]["arguments"] = json!({"channel": 1});
    assert_eq!(error_code(&call(&elsewhere)), -32602);
    let done = call(&retry(
        &first,
        33,
        &leg2,
        accept("store", json!({"store": true})),
    ));
    assert_eq!(
        structured(&done),
        &json!({"channel": 0, "stored": true, "offset": -0.125, "unit": "Cel"})
    );
    let reading = call(&tool_call(34, "read_sensor", json!({"channel": 0})));
    assert_eq!(structured(&reading)["value"], json!(23.0), "{reading}");
}

/// A `read_sensor` call with three samples and a progress token over the bridge's stdio: the
/// three progress notifications travel before the reply.
pub fn progress_flow(bridge: &mut StdioBridge) {
    let mut with_progress = tool_call(40, "read_sensor", json!({"channel": 2, "samples": 3}));
    with_progress["params"]["_meta"]["progressToken"] = json!("p");
    let (notes, reply) = bridge.call_with_notifications(&with_progress);
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        notes
            .iter()
            .all(|n| n["method"] == "notifications/progress")
    );
    assert_eq!(structured(&reply)["value"], json!(3.3));
}
