use super::*;
use crate::json::{Limits, parse};

type C = ClientCapabilities;

fn v(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::default()).unwrap()
}

fn params(text: &str) -> Result<ClientCapabilities, &'static str> {
    check_params(v(text)).map_err(|e| e.reason)
}

/// Params with one user message whose content is `content`, plus `extra` members.
fn with_content(content: &str) -> Result<ClientCapabilities, &'static str> {
    params(&std::format!(
        r#"{{"messages":[{{"role":"user","content":{content}}}],"maxTokens":10}}"#
    ))
}

/// Params with a minimal message and `extra` members.
fn with(extra: &str) -> Result<ClientCapabilities, &'static str> {
    params(&std::format!(
        r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"hi"}}}}],
            "maxTokens":10,{extra}}}"#
    ))
}

fn result(text: &str) -> bool {
    check_result(v(text))
}

// --- the spec's examples ---

#[test]
fn the_spec_request_examples() {
    assert_eq!(
        params(
            r#"{"messages":[{"role":"user","content":{"type":"text",
                "text":"What is the capital of France?"}}],
                "modelPreferences":{"hints":[{"name":"claude-3-sonnet"}],"costPriority":0.3,
                "intelligencePriority":0.8,"speedPriority":0.5},
                "temperature":0.1,"systemPrompt":"You are a helpful assistant.",
                "includeContext":"thisServer","maxTokens":100}"#
        ),
        Ok(C::SAMPLING.union(C::SAMPLING_CONTEXT))
    );
    assert_eq!(
        params(
            r#"{"messages":[{"role":"user","content":{"type":"text",
                "text":"What's the weather like in Paris and London?"}}],
                "tools":[{"name":"get_weather","description":"Get current weather for a city",
                "inputSchema":{"type":"object","properties":{"city":{"type":"string",
                "description":"City name"}},"required":["city"]}}],
                "toolChoice":{"mode":"auto"},"maxTokens":1000}"#
        ),
        Ok(C::SAMPLING.union(C::SAMPLING_TOOLS))
    );
    assert_eq!(
        params(
            r#"{"messages":[
              {"role":"user","content":{"type":"text","text":"Weather in Paris and London?"}},
              {"role":"assistant","content":[
                {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}},
                {"type":"tool_use","id":"call_def456","name":"get_weather","input":{"city":"London"}}]},
              {"role":"user","content":[
                {"type":"tool_result","toolUseId":"call_abc123",
                 "content":[{"type":"text","text":"Weather in Paris: 18°C, partly cloudy"}]},
                {"type":"tool_result","toolUseId":"call_def456",
                 "content":[{"type":"text","text":"Weather in London: 15°C, rainy"}]}]}],
              "tools":[{"name":"get_weather","description":"Get current weather for a city",
                "inputSchema":{"type":"object","properties":{"city":{"type":"string"}},
                "required":["city"]}}],
              "maxTokens":1000}"#
        ),
        Ok(C::SAMPLING.union(C::SAMPLING_TOOLS))
    );
}

#[test]
fn the_spec_result_examples() {
    assert!(result(
        r#"{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},
            "model":"claude-3-sonnet-20240307","stopReason":"endTurn"}"#
    ));
    assert!(result(
        r#"{"role":"assistant","content":[
            {"type":"tool_use","id":"call_abc123","name":"get_weather","input":{"city":"Paris"}},
            {"type":"tool_use","id":"call_def456","name":"get_weather","input":{"city":"London"}}],
            "model":"claude-3-sonnet-20240307","stopReason":"toolUse"}"#
    ));
}

// --- needs ---

#[test]
fn capabilities_needed() {
    assert_eq!(with(r#""systemPrompt":"s""#), Ok(C::SAMPLING));
    assert_eq!(with(r#""includeContext":"none""#), Ok(C::SAMPLING));
    assert_eq!(
        with(r#""includeContext":"allServers""#),
        Ok(C::SAMPLING.union(C::SAMPLING_CONTEXT))
    );
    assert_eq!(
        with(r#""includeContext":"thisServer""#),
        Ok(C::SAMPLING.union(C::SAMPLING_CONTEXT))
    );
    assert_eq!(
        with(r#""tools":[]"#),
        Ok(C::SAMPLING.union(C::SAMPLING_TOOLS))
    );
    assert_eq!(
        with(r#""toolChoice":{}"#),
        Ok(C::SAMPLING.union(C::SAMPLING_TOOLS))
    );
    assert_eq!(
        with(r#""toolChoice":{"mode":"none"},"includeContext":"thisServer""#),
        Ok(C::SAMPLING
            .union(C::SAMPLING_TOOLS)
            .union(C::SAMPLING_CONTEXT))
    );
}

// --- params ---

#[test]
fn params_shape() {
    assert_eq!(params("[]"), Err("sampling params must be an object"));
    assert_eq!(
        params(r#"{"maxTokens":1}"#),
        Err("sampling params need a non-empty messages array")
    );
    assert_eq!(
        params(r#"{"messages":[],"maxTokens":1}"#),
        Err("sampling params need a non-empty messages array")
    );
    assert_eq!(
        params(r#"{"messages":{},"maxTokens":1}"#),
        Err("sampling params need a non-empty messages array")
    );
    assert_eq!(
        params(r#"{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}"#),
        Err("sampling params need maxTokens")
    );
    // Unknown keys are allowed.
    assert_eq!(with(r#""x-vendor":{"a":[1]},"_meta":{}"#), Ok(C::SAMPLING));
}

#[test]
fn max_tokens_is_a_positive_integer() {
    let m = |max: &str| {
        params(&std::format!(
            r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"x"}}}}],
                "maxTokens":{max}}}"#
        ))
    };
    assert_eq!(m("1"), Ok(C::SAMPLING));
    assert_eq!(m("100000"), Ok(C::SAMPLING));
    assert_eq!(m("1e3"), Ok(C::SAMPLING));
    let reason = Err("sampling maxTokens must be a positive integer");
    assert_eq!(m("0"), reason);
    assert_eq!(m("-5"), reason);
    assert_eq!(m("1.5"), reason);
    assert_eq!(m(r#""10""#), reason);
    assert_eq!(m("null"), reason);
}

#[test]
fn messages() {
    let message = |m: &str| params(&std::format!(r#"{{"messages":[{m}],"maxTokens":5}}"#));
    assert_eq!(
        message(r#""text""#),
        Err("sampling messages must be objects")
    );
    let role = Err("sampling message role must be user or assistant");
    assert_eq!(message(r#"{"content":{"type":"text","text":"x"}}"#), role);
    assert_eq!(
        message(r#"{"role":"system","content":{"type":"text","text":"x"}}"#),
        role
    );
    assert_eq!(
        message(r#"{"role":"User","content":{"type":"text","text":"x"}}"#),
        role
    );
    assert_eq!(
        message(r#"{"role":"user"}"#),
        Err("sampling message needs content")
    );
    let content = Err("sampling message content must be a content block or an array of them");
    assert_eq!(message(r#"{"role":"user","content":"hi"}"#), content);
    assert_eq!(message(r#"{"role":"user","content":null}"#), content);
    assert_eq!(message(r#"{"role":"user","content":[]}"#), Ok(C::SAMPLING));
    assert_eq!(
        message(
            r#"{"role":"assistant","content":[{"type":"text","text":"a"},
                  {"type":"image","data":"AAAA","mimeType":"image/png"}]}"#
        ),
        Ok(C::SAMPLING)
    );
    assert_eq!(
        message(r#"{"role":"user","content":{"type":"text","text":"x"},"_meta":1}"#),
        Err("sampling message _meta must be an object")
    );
}

#[test]
fn content_blocks() {
    assert_eq!(
        with_content(
            r#"{"type":"text","text":"x","annotations":{"audience":["user"],
            "priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{},"extra":1}"#
        ),
        Ok(C::SAMPLING)
    );
    assert_eq!(
        with_content(r#"{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}"#),
        Ok(C::SAMPLING)
    );
    for (block, reason) in [
        (r#"[1]"#, "sampling content block must be an object"),
        (
            r#"{"text":"x"}"#,
            "sampling content block needs a string type",
        ),
        (
            r#"{"type":"video","data":"x"}"#,
            "sampling content block type must be text, image, audio, tool_use or tool_result",
        ),
        (
            r#"{"type":"resource_link","uri":"file:///a","name":"a"}"#,
            "sampling content block type must be text, image, audio, tool_use or tool_result",
        ),
        (r#"{"type":"text"}"#, "text content needs a string text"),
        (
            r#"{"type":"text","text":1}"#,
            "text content needs a string text",
        ),
        (
            r#"{"type":"image","data":"x"}"#,
            "image and audio content need string data and mimeType",
        ),
        (
            r#"{"type":"audio","mimeType":"audio/wav"}"#,
            "image and audio content need string data and mimeType",
        ),
        (
            r#"{"type":"text","text":"x","_meta":[]}"#,
            "sampling content block _meta must be an object",
        ),
    ] {
        assert_eq!(with_content(block), Err(reason), "{block}");
        let in_array = std::format!("[{block}]");
        if block != "[1]" {
            assert_eq!(with_content(&in_array), Err(reason), "[{block}]");
        }
    }
    let annotations = "content annotations must be an object with audience roles, a priority \
                       from 0 to 1 and a string lastModified";
    for bad in [
        r#""annotations":[]"#,
        r#""annotations":{"audience":"user"}"#,
        r#""annotations":{"audience":["system"]}"#,
        r#""annotations":{"priority":1.5}"#,
        r#""annotations":{"priority":"high"}"#,
        r#""annotations":{"lastModified":0}"#,
    ] {
        let block = std::format!(r#"{{"type":"text","text":"x",{bad}}}"#);
        assert_eq!(with_content(&block), Err(annotations), "{bad}");
    }
}

#[test]
fn tool_use_and_result_blocks() {
    let assistant = |content: &str| {
        params(&std::format!(
            r#"{{"messages":[{{"role":"assistant","content":{content}}}],"maxTokens":5}}"#
        ))
    };
    assert_eq!(
        assistant(r#"{"type":"tool_use","id":"c1","name":"f","input":{},"_meta":{"k":1}}"#),
        Ok(C::SAMPLING)
    );
    let tool_use = Err("tool_use content needs a string id, a string name and an object input");
    assert_eq!(
        assistant(r#"{"type":"tool_use","name":"f","input":{}}"#),
        tool_use
    );
    assert_eq!(
        assistant(r#"{"type":"tool_use","id":"c","input":{}}"#),
        tool_use
    );
    assert_eq!(
        assistant(r#"{"type":"tool_use","id":"c","name":"f"}"#),
        tool_use
    );
    assert_eq!(
        assistant(r#"{"type":"tool_use","id":"c","name":"f","input":[]}"#),
        tool_use
    );
    assert_eq!(
        assistant(r#"{"type":"tool_use","id":1,"name":"f","input":{}}"#),
        tool_use
    );

    assert_eq!(
        with_content(
            r#"{"type":"tool_result","toolUseId":"c1","isError":true,
                "structuredContent":[1,{"a":null}],
                "content":[{"type":"text","text":"t"},
                  {"type":"image","data":"AA==","mimeType":"image/png"},
                  {"type":"audio","data":"AA==","mimeType":"audio/wav"},
                  {"type":"resource_link","uri":"file:///x","name":"x","size":12,
                   "mimeType":"text/plain","title":"X","description":"d"},
                  {"type":"resource","resource":{"uri":"file:///y","text":"body"}},
                  {"type":"resource","resource":{"uri":"file:///z","blob":"AA==",
                   "mimeType":"application/octet-stream"}}]}"#
        ),
        Ok(C::SAMPLING)
    );
    assert_eq!(
        with_content(r#"{"type":"tool_result","toolUseId":"c1","content":[]}"#),
        Ok(C::SAMPLING)
    );
    for (block, reason) in [
        (
            r#"{"type":"tool_result","content":[]}"#,
            "tool_result content needs a string toolUseId",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c"}"#,
            "tool_result content needs a content array",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":{"type":"text","text":"x"}}"#,
            "tool_result content needs a content array",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[],"isError":"yes"}"#,
            "tool_result isError must be a boolean",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[1]}"#,
            "tool_result content blocks must be objects",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"text":"x"}]}"#,
            "tool_result content blocks need a string type",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"tool_use","id":"c",
                "name":"f","input":{}}]}"#,
            "tool_result content block type must be text, image, audio, resource_link or resource",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"tool_result",
                "toolUseId":"d","content":[]}]}"#,
            "tool_result content block type must be text, image, audio, resource_link or resource",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"text"}]}"#,
            "text content needs a string text",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource_link",
                "uri":"file:///x"}]}"#,
            "resource_link content needs string uri and name (and a non-negative integer size)",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource_link",
                "uri":"file:///x","name":"x","size":-1}]}"#,
            "resource_link content needs string uri and name (and a non-negative integer size)",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource",
                "resource":{"uri":"file:///x"}}]}"#,
            "resource content needs a resource with a string uri and a string text or blob",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource",
                "resource":{"text":"x"}}]}"#,
            "resource content needs a resource with a string uri and a string text or blob",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource",
                "resource":{"uri":"file:///x","text":1}}]}"#,
            "resource content needs a resource with a string uri and a string text or blob",
        ),
        (
            r#"{"type":"tool_result","toolUseId":"c","content":[{"type":"resource",
                "resource":"file:///x"}]}"#,
            "resource content needs a resource with a string uri and a string text or blob",
        ),
    ] {
        assert_eq!(with_content(block), Err(reason), "{block}");
    }
}

#[test]
fn tool_results_stand_alone_in_user_messages() {
    let result_block = r#"{"type":"tool_result","toolUseId":"c","content":[]}"#;
    let text_block = r#"{"type":"text","text":"Here are the results:"}"#;
    let mixed = "a sampling message with tool results cannot contain other content";
    assert_eq!(
        with_content(&std::format!("[{result_block},{result_block}]")),
        Ok(C::SAMPLING)
    );
    assert_eq!(
        with_content(&std::format!("[{text_block},{result_block}]")),
        Err(mixed)
    );
    assert_eq!(
        with_content(&std::format!("[{result_block},{text_block}]")),
        Err(mixed)
    );
    assert_eq!(
        params(&std::format!(
            r#"{{"messages":[{{"role":"assistant","content":{result_block}}}],"maxTokens":5}}"#
        )),
        Err("sampling tool_result content belongs in user messages")
    );
    assert_eq!(
        with_content(r#"{"type":"tool_use","id":"c","name":"f","input":{}}"#),
        Err("sampling tool_use content belongs in assistant messages")
    );
    // Whether a result answers a use is semantics, not structure: not checked.
    assert_eq!(
        params(&std::format!(
            r#"{{"messages":[{{"role":"user","content":{result_block}}}],"maxTokens":5}}"#
        )),
        Ok(C::SAMPLING)
    );
}

#[test]
fn model_preferences() {
    assert_eq!(with(r#""modelPreferences":{}"#), Ok(C::SAMPLING));
    assert_eq!(
        with(
            r#""modelPreferences":{"hints":[{},{"name":"claude"},{"name":"x","other":1}],
              "costPriority":0,"speedPriority":1,"intelligencePriority":0.25}"#
        ),
        Ok(C::SAMPLING)
    );
    assert_eq!(
        with(r#""modelPreferences":[]"#),
        Err("sampling modelPreferences must be an object")
    );
    let hints =
        Err("sampling model hints must be an array of objects with an optional string name");
    assert_eq!(with(r#""modelPreferences":{"hints":{"name":"a"}}"#), hints);
    assert_eq!(with(r#""modelPreferences":{"hints":["claude"]}"#), hints);
    assert_eq!(with(r#""modelPreferences":{"hints":[{"name":3}]}"#), hints);
    let priority = Err("sampling model priorities must be numbers from 0 to 1");
    for bad in [
        r#""costPriority":-0.1"#,
        r#""speedPriority":1.01"#,
        r#""intelligencePriority":"high""#,
        r#""costPriority":null"#,
        r#""speedPriority":1e400"#,
    ] {
        let extra = std::format!(r#""modelPreferences":{{{bad}}}"#);
        assert_eq!(with(&extra), priority, "{bad}");
    }
}

#[test]
fn optional_parameters() {
    assert_eq!(
        with(
            r#""systemPrompt":"s","stopSequences":["\n\n","END"],"temperature":-0.5,
              "metadata":{"provider":{"k":1}}"#
        ),
        Ok(C::SAMPLING)
    );
    assert_eq!(with(r#""stopSequences":[]"#), Ok(C::SAMPLING));
    assert_eq!(
        with(r#""systemPrompt":1"#),
        Err("sampling systemPrompt must be a string")
    );
    let stops = Err("sampling stopSequences must be an array of strings");
    assert_eq!(with(r#""stopSequences":"END""#), stops);
    assert_eq!(with(r#""stopSequences":["END",1]"#), stops);
    let temperature = Err("sampling temperature must be a number");
    assert_eq!(with(r#""temperature":"0.5""#), temperature);
    assert_eq!(with(r#""temperature":null"#), temperature);
    // A number by the schema, however large: checks compare literals, never through `f64`.
    assert!(with(r#""temperature":1e999"#).is_ok());
    let context = Err("sampling includeContext must be none, thisServer or allServers");
    assert_eq!(with(r#""includeContext":"everything""#), context);
    assert_eq!(with(r#""includeContext":null"#), context);
    assert_eq!(with(r#""includeContext":"None""#), context);
    let metadata = Err("sampling metadata must be an object");
    assert_eq!(with(r#""metadata":[]"#), metadata);
    assert_eq!(with(r#""metadata":"x""#), metadata);
}

#[test]
fn tools_and_tool_choice() {
    assert_eq!(
        with(
            r#""tools":[{"name":"a","inputSchema":{"type":"object"},"title":"A",
              "description":"d","outputSchema":{"type":"object"},"annotations":{},"_meta":{}}]"#
        ),
        Ok(C::SAMPLING.union(C::SAMPLING_TOOLS))
    );
    let list = Err("sampling tools must be an array of tool definitions");
    assert_eq!(with(r#""tools":{}"#), list);
    assert_eq!(with(r#""tools":["a"]"#), list);
    assert_eq!(
        with(r#""tools":[{"inputSchema":{"type":"object"}}]"#),
        Err("sampling tool needs a string name")
    );
    let schema = Err("sampling tool needs an inputSchema object with type \"object\"");
    assert_eq!(with(r#""tools":[{"name":"a"}]"#), schema);
    assert_eq!(with(r#""tools":[{"name":"a","inputSchema":{}}]"#), schema);
    assert_eq!(
        with(r#""tools":[{"name":"a","inputSchema":{"type":"string"}}]"#),
        schema
    );
    assert_eq!(with(r#""tools":[{"name":"a","inputSchema":"{}"}]"#), schema);
    assert_eq!(
        with(r#""tools":[{"name":"a","inputSchema":{"type":"object"},"description":1}]"#),
        Err("sampling tool title and description must be strings")
    );
    assert_eq!(
        with(r#""tools":[{"name":"a","inputSchema":{"type":"object"},"outputSchema":true}]"#),
        Err("sampling tool outputSchema and _meta must be objects")
    );
    for mode in ["auto", "none", "required"] {
        let extra = std::format!(r#""toolChoice":{{"mode":"{mode}"}}"#);
        assert_eq!(with(&extra), Ok(C::SAMPLING.union(C::SAMPLING_TOOLS)));
    }
    let choice = Err("sampling toolChoice must be an object whose mode is auto, none or required");
    assert_eq!(with(r#""toolChoice":"auto""#), choice);
    assert_eq!(with(r#""toolChoice":{"mode":"any"}"#), choice);
    assert_eq!(with(r#""toolChoice":{"mode":null}"#), choice);
}

// --- result ---

#[test]
fn results() {
    assert!(result(
        r#"{"role":"user","content":[],"model":"m","_meta":{},"extra":[1]}"#
    ));
    assert!(result(
        r#"{"role":"assistant","content":{"type":"image","data":"AA==","mimeType":"image/png"},
            "model":"m"}"#
    ));
    // No mixing rule for answers: the client's model output is only checked for shape.
    assert!(result(
        r#"{"role":"assistant","content":[{"type":"text","text":"t"},
            {"type":"tool_result","toolUseId":"c","content":[]}],"model":"m"}"#
    ));
    for bad in [
        "null",
        "[]",
        "{}",
        r#"{"content":{"type":"text","text":"x"},"model":"m"}"#,
        r#"{"role":"system","content":{"type":"text","text":"x"},"model":"m"}"#,
        r#"{"role":"assistant","model":"m"}"#,
        r#"{"role":"assistant","content":"x","model":"m"}"#,
        r#"{"role":"assistant","content":{"type":"text"},"model":"m"}"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"x"},{}],"model":"m"}"#,
        r#"{"role":"assistant","content":{"type":"text","text":"x"}}"#,
        r#"{"role":"assistant","content":{"type":"text","text":"x"},"model":1}"#,
        r#"{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","stopReason":1}"#,
        r#"{"role":"assistant","content":{"type":"text","text":"x"},"model":"m","_meta":"x"}"#,
        r#"{"role":"assistant","content":{"type":"tool_use","id":"c","name":"f"},"model":"m"}"#,
    ] {
        assert!(!result(bad), "{bad}");
    }
}
