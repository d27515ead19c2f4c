#!/usr/bin/env python3
"""Builds the committed seed corpora and the dictionary of the fuzz targets.

    fuzz/make-corpus.py [EXAMPLES_DIR]

EXAMPLES_DIR defaults to ../shared/spec/2026-07-28/examples next to the repository: one
folder per schema type, each holding JSON examples (examples/CallToolRequest/*.json, ...).

For every target declared in fuzz/Cargo.toml it writes fuzz/corpus/<target>/:

  json        every example as written and compacted, hand-made edge cases of the grammar
              (numbers, escapes, nesting around the depth limits, duplicate keys, bad UTF-8),
              and {"schema": ..., "instance": ...} pairs made from the tools' schemas and the
              example arguments, which the target also feeds to the schema validator;
  envelope    every JSON-RPC message among the examples, plus retries of the requests that
              may ask for input (tools/call, resources/read, prompts/get) carrying the
              example inputResponses and requestState;
  state_open  inputs in that target's layout (a mode byte, `now` as 8 little-endian bytes,
              the params length as 2 little-endian bytes, the params JSON, the token): the
              example requests' params with the example requestState tokens, their decoded
              JSON payloads (which the target also seals) and a small state object;
  form        every example, compacted, and schema/content pairs split by a 0xFF byte: the
              examples' requested schemas and primitive schemas against their answers;
  rounds      nothing (a structure-aware script, not JSON);
  any other   every example, compacted.

Only files this script names (prefixes spec-, edge-, pair-, retry-, token-) are replaced, so
seeds added by hand survive a rebuild. It also writes fuzz/dict/json.dict: JSON tokens, the
JSON-RPC and MCP member names, the method names and `_meta` keys found in the examples, and
the JSON Schema keywords. Output is deterministic; the seeds stay well under 200 KB.
"""

import base64
import hashlib
import json
import re
import sys
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
REPO = FUZZ.parent
DEFAULT_EXAMPLES = REPO.parent / "shared" / "spec" / "2026-07-28" / "examples"
GENERATED = ("spec-", "edge-", "pair-", "retry-", "token-")
RETRYABLE = {"tools/call", "resources/read", "prompts/get"}


def compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def targets() -> list[str]:
    text = (FUZZ / "Cargo.toml").read_text()
    names = []
    for block in text.split("[[bin]]")[1:]:
        match = re.search(r'^\s*name\s*=\s*"([^"]+)"', block, re.M)
        if match:
            names.append(match.group(1))
    return names


def load_examples(root: Path) -> list[tuple[str, bytes, object]]:
    """(name, raw bytes, parsed value) for every example, in a stable order."""
    out = []
    for path in sorted(root.glob("*/*.json")):
        raw = path.read_bytes()
        try:
            value = json.loads(raw)
        except ValueError:
            print(f"skipping {path}: not JSON", file=sys.stderr)
            continue
        out.append((f"{path.parent.name}--{path.stem}", raw, value))
    return out


def walk(value):
    """Every value nested in `value`, itself included."""
    stack = [value]
    while stack:
        v = stack.pop()
        yield v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def edge_cases() -> dict[str, bytes]:
    long_int = "9" * 64
    cases = {
        "numbers": b"[0,-0,1,-1,0.5,-0.5,1e5,1E+5,1e-5,-1.25e-7,9007199254740993,"
        b"18446744073709551615,18446744073709551616,-9223372036854775808,"
        b"1.7976931348623157e308,4.9e-324,2.2250738585072011e-308,1e-400]",
        "number-out-of-f64-range": b"[1e400,-1e400,1.5e309]",
        "integer-64-digits": long_int.encode(),
        "integer-65-digits": (long_int + "9").encode(),
        "number-128-bytes": ("1." + "2" * 126).encode(),
        "number-129-bytes": ("1." + "2" * 127).encode(),
        "bad-numbers": b"[01,1.,.5,+1,1e,-,0x10,NaN,Infinity]",
        "escapes": rb'["\"\\\/\b\f\n\r\t","\u0000\u001f\u007f","\u00e9\u20ac","\ud83d\ude00","\uD834\uDD1E"]',
        "utf8": '["é€😀","\u2028\u2029"]'.encode(),
        "lone-surrogate": rb'"\ud800"',
        "lone-low-surrogate": rb'"\udc00x"',
        "bad-escape": rb'"\x41"',
        "control-char": b'"a\tb"',
        "invalid-utf8": b'"\xc3\x28"',
        "overlong-utf8": b'"\xc0\xaf"',
        "bom": b"\xef\xbb\xbf{}",
        "empty": b"",
        "whitespace": b" \t\r\n[ \t\r\n1 \t\r\n, \t\r\n{ \t\r\n} \t\r\n] \t\r\n",
        "literals": b"[true,false,null]",
        "bad-literals": b"[tru,nul,False]",
        "trailing-comma": b"[1,2,]",
        "trailing-garbage": b"{} x",
        "two-values": b"1 2",
        "unclosed": b'{"a":[1,{"b":"c"',
        "duplicate-key": b'{"a":1,"a":2}',
        "duplicate-key-escaped": rb'{"a":1,"\u0061":2}',
        "duplicate-key-nested": b'{"x":{"k":1,"y":{"k":2},"k":3}}',
        "near-duplicates": rb'{"a":1,"A":2,"a ":3,"\u00e9":4,"e\u0301":5}',
        "empty-containers": b'[{},[],"",{"":[]}]',
        "empty-key": b'{"":0}',
        "depth-127": b"[" * 127 + b"]" * 127,
        "depth-128": b"[" * 128 + b"]" * 128,
        "depth-129": b"[" * 129 + b"]" * 129,
        "depth-128-objects": b'{"a":' * 127 + b"{}" + b"}" * 127,
    }
    return {f"edge-{name}": data for name, data in cases.items()}


def schema_pairs(examples) -> dict[str, bytes]:
    """Seeds {"schema": S, "instance": I} for the validator, from the examples."""
    schemas = []
    arguments = []
    for name, _, value in examples:
        for v in walk(value):
            if isinstance(v, dict):
                for key in ("inputSchema", "outputSchema", "requestedSchema"):
                    if isinstance(v.get(key), dict):
                        schemas.append((f"{name}-{key}", v[key]))
                for key in ("arguments", "structuredContent", "content"):
                    if isinstance(v.get(key), dict):
                        arguments.append(v[key])
        if name.split("--")[0].endswith("Schema") and isinstance(value, dict):
            schemas.append((name, value))
    instances = arguments[:6] + [{}]
    seeds = {}
    for name, schema in schemas:
        for j, instance in enumerate(instances):
            seeds[f"pair-{name}-{j}"] = compact({"schema": schema, "instance": instance})
    adversarial = [
        {"$ref": "#"},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]},
        {"$ref": "https://example.com/schema.json"},
        {"type": ["integer", "null"], "minimum": 1, "maximum": 1e400, "enum": [1, 1.0, None]},
        {"properties": {"a": {"const": {"x": [1, 2]}}}, "required": ["a"], "additionalProperties": False},
        {"items": {"uniqueItems": True, "minItems": 1}, "prefixItems": [True, False]},
        {"oneOf": [{"type": "string", "minLength": 2}, {"maxLength": 3}], "not": {"const": "ab"}},
    ]
    instances = [1, {"a": {"x": [1, 2.0]}}, [[1, 1.0], []], "abc", None]
    for i, schema in enumerate(adversarial):
        seeds[f"pair-adversarial-{i}"] = compact({"schema": schema, "instance": instances[i % len(instances)]})
    return seeds


def form_pairs(examples) -> dict[str, bytes]:
    """Seeds for the form target: a requested schema, a 0xFF byte, then a document to check
    against it (an elicitation result's content, the result itself, or an empty object).

    The schemas are every `requestedSchema` among the examples and every primitive schema
    example (StringSchema, NumberSchema, the enum schemas, ...) as the one property `value`
    of a flat object schema, required, answered with its `default` when it has one."""
    schemas = []
    contents = [{}]
    for name, _, value in examples:
        for v in walk(value):
            if isinstance(v, dict):
                if isinstance(v.get("requestedSchema"), dict):
                    schemas.append((name, v["requestedSchema"], None))
                if v.get("action") == "accept" and isinstance(v.get("content"), dict):
                    contents.append(v["content"])
                    contents.append(v)
        if name.split("--")[0].endswith("Schema") and isinstance(value, dict):
            wrapped = {"type": "object", "properties": {"value": value}, "required": ["value"]}
            answer = {"value": value["default"]} if "default" in value else None
            schemas.append((name, wrapped, answer))
    seeds = {}
    for name, schema, answer in schemas:
        own = [answer] if answer is not None else []
        for j, content in enumerate(own + contents):
            seeds[f"pair-{name}-{j}"] = compact(schema) + b"\xff" + compact(content)
    return seeds


def tokens(examples) -> list[str]:
    found = []
    for _, _, value in examples:
        for v in walk(value):
            if isinstance(v, dict) and isinstance(v.get("requestState"), str):
                found.append(v["requestState"])
    return sorted(set(found))


def state_open_inputs(examples) -> dict[str, bytes]:
    """Seeds in the layout fuzz_targets/state_open.rs reads."""
    params = [
        compact(v["params"])
        for _, _, v in examples
        if isinstance(v, dict) and v.get("method") in RETRYABLE and isinstance(v.get("params"), dict)
    ] + [b"{}"]
    payloads = []
    for token in tokens(examples):
        payloads.append(token.encode())
        try:
            padded = token + "=" * (-len(token) % 4)
            payloads.append(base64.urlsafe_b64decode(padded))
        except ValueError:
            pass
    payloads.append(b'{"step":1,"answers":{"color":"blue"}}')
    now = (1_780_000_000).to_bytes(8, "little")
    seeds = {}
    for i, p in enumerate(params):
        for j, payload in enumerate(payloads):
            for mode in (0, 3, 13):
                head = bytes([mode]) + now + len(p).to_bytes(2, "little")
                seeds[f"token-{i}-{j}-{mode}"] = head + p + payload
    return seeds


def retries(examples) -> dict[str, bytes]:
    responses = next((v for n, _, v in examples if n.startswith("InputResponses--")), {})
    states = tokens(examples) or ["e30"]
    seeds = {}
    for name, _, value in examples:
        if not (isinstance(value, dict) and value.get("method") in RETRYABLE):
            continue
        for i, state in enumerate(states):
            retry = json.loads(json.dumps(value))
            params = retry.setdefault("params", {})
            params["inputResponses"] = responses
            params["requestState"] = state
            seeds[f"retry-{name}-{i}"] = compact(retry)
    return seeds


def dictionary(examples) -> list[str]:
    words = {
        # JSON grammar
        "{", "}", "[", "]", ":", ",", '"', "true", "false", "null", "-", "0", "-0", ".", "e",
        "E", "e+", "e-", "1e400", "\\", '\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
        "\\u", "\\u0000", "\\u00e9", "\\ud83d\\ude00", "\\ud800", "\\udc00",
        # JSON-RPC
        "jsonrpc", "2.0", "id", "method", "params", "result", "error", "code", "message", "data",
        "-32700", "-32600", "-32601", "-32602", "-32603", "-32020", "-32021", "-32022",
        # MCP members
        "_meta", "resultType", "complete", "input_required", "inputRequests", "inputResponses",
        "requestState", "requiredCapabilities", "supportedVersions", "supported", "requested",
        "2026-07-28", "progressToken", "ttlMs", "cacheScope", "cursor", "nextCursor",
        "arguments", "name", "uri", "isError", "content", "structuredContent", "inputSchema",
        "outputSchema", "requestedSchema", "capabilities", "elicitation", "sampling", "roots",
        "form", "url", "tools", "listChanged", "action", "accept", "decline", "cancel", "text",
        "mode", "logLevel",
        # JSON Schema
        "type", "properties", "required", "enum", "const", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "items", "prefixItems",
        "minItems", "maxItems", "uniqueItems", "additionalProperties", "minProperties",
        "maxProperties", "allOf", "anyOf", "oneOf", "not", "$ref", "$defs", "definitions",
        "#", "#/$defs/", "#/definitions/", "~0", "~1", "object", "array", "string", "number",
        "integer", "boolean",
    }
    for _, _, value in examples:
        for v in walk(value):
            if isinstance(v, dict):
                if isinstance(v.get("method"), str):
                    words.add(v["method"])
                for key in v:
                    if "/" in key or key in ("_meta",):
                        words.add(key)
                meta = v.get("_meta")
                if isinstance(meta, dict):
                    words.update(meta)
    return sorted(words)


def dict_line(word: str) -> str:
    out = []
    for byte in word.encode():
        if byte in (0x22, 0x5C):
            out.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02X}")
    return '"' + "".join(out) + '"'


def write_corpus(target: str, seeds: dict[str, bytes]) -> int:
    folder = FUZZ / "corpus" / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if old.name.startswith(GENERATED):
            old.unlink()
    seen = set()
    total = 0
    for name, data in sorted(seeds.items()):
        digest = hashlib.sha1(data).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)
        (folder / safe).write_bytes(data)
        total += len(data)
    print(f"corpus/{target}: {len(seen)} seeds, {total} bytes")
    return total


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_EXAMPLES
    examples = load_examples(root)
    if not examples:
        sys.exit(f"no examples under {root}")

    originals = {f"spec-{n}.json": raw for n, raw, _ in examples}
    compacted = {f"spec-{n}.min.json": compact(v) for n, _, v in examples}
    messages = {
        f"spec-{n}.json": compact(v)
        for n, _, v in examples
        if isinstance(v, dict) and v.get("jsonrpc") == "2.0"
    }
    retry = retries(examples)

    plans = {
        "json": {**originals, **compacted, **edge_cases(), **schema_pairs(examples)},
        "envelope": {**messages, **retry},
        "state_open": state_open_inputs(examples),
        "form": {**compacted, **form_pairs(examples)},
        # Structure-aware: its input is a script read through `arbitrary`, not JSON, so
        # libFuzzer starts it from nothing rather than from the examples.
        "rounds": {},
    }
    total = 0
    for target in targets():
        total += write_corpus(target, plans.get(target, compacted))

    words = dictionary(examples)
    (FUZZ / "dict").mkdir(exist_ok=True)
    lines = ["# JSON tokens, JSON-RPC and MCP names, JSON Schema keywords.",
             "# Generated by fuzz/make-corpus.py; edit the script, not this file."]
    lines += [dict_line(w) for w in words]
    (FUZZ / "dict" / "json.dict").write_text("\n".join(lines) + "\n")
    print(f"dict/json.dict: {len(words)} entries; corpora: {total} bytes")


if __name__ == "__main__":
    main()
