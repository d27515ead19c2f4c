"""What the footprint scripts share: an independent COBS + CRC-16 codec and the device's flows,
each checking every leg, over any device object with a `call(message) -> reply` method."""

import json

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


def crc16(data):
    crc = 0xFFFF
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def cobs(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block; block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += bytes([255]) + block; block = bytearray()
    out += bytes([len(block) + 1]) + block
    return bytes(out)


def uncobs(frame):
    out, at = bytearray(), 0
    while at < len(frame):
        code = frame[at]; out += frame[at + 1:at + code]; at += code
        if code < 255 and at < len(frame): out.append(0)
    assert crc16(out[:-2]).to_bytes(2, "big") == bytes(out[-2:]), "bad CRC from the board"
    return bytes(out[:-2])


n = 0
def req(method, params, extra_meta=None):
    global n; n += 1
    return {"jsonrpc": "2.0", "id": n, "method": method, "params": dict(params, _meta=dict(META, **(extra_meta or {})))}

def retry(first, reply, answers):
    global n; n += 1
    r = json.loads(json.dumps(first)); r["id"] = n
    r["params"]["inputResponses"] = answers
    r["params"]["requestState"] = reply["result"]["requestState"]
    return r

def complete(reply):
    assert reply.get("result", {}).get("resultType") == "complete", reply
    return reply["result"]

def asks(reply):
    assert reply.get("result", {}).get("resultType") == "input_required", reply
    return reply

def lists(d):
    complete(d.call(req("server/discover", {})))
    for kind in ("tools", "resources", "prompts"):
        cursor = None
        while True:
            page = complete(d.call(req(kind + "/list", {"cursor": cursor} if cursor else {})))
            cursor = page.get("nextCursor")
            if not cursor: break
    complete(d.call(req("resources/read", {"uri": "device://info"})))
    complete(d.call(req("prompts/get", {"name": "bench_check", "arguments": {"focus": "supply"}})))

def read_sensor(d):
    r = complete(d.call(req("tools/call", {"name": "read_sensor", "arguments": {"channel": 2, "samples": 16}}, {"progressToken": 1})))
    assert r["structuredContent"]["value"] == 3.3

def set_relay(d):
    first = req("tools/call", {"name": "set_relay", "arguments": {"channel": 1, "on": True}})
    asked = asks(d.call(first))
    done = complete(d.call(retry(first, asked, {"confirm": {"action": "accept", "content": {"confirm": True}}})))
    assert done["structuredContent"]["switched"] is True

def calibrate(d):
    first = req("tools/call", {"name": "calibrate", "arguments": {"channel": 0}})
    leg1 = asks(d.call(first))
    leg2 = asks(d.call(retry(first, leg1, {"reference": {"action": "accept", "content": {"reference": 23.0}}})))
    done = complete(d.call(retry(first, leg2, {"store": {"action": "accept", "content": {"store": True}}})))
    assert done["structuredContent"]["stored"] is True

def refusals(d):
    first = req("tools/call", {"name": "set_relay", "arguments": {"channel": 0, "on": True}})
    asked = asks(d.call(first))
    forged = retry(first, asked, {"confirm": {"action": "accept", "content": {"confirm": True}}})
    forged["params"]["arguments"]["channel"] = 1
    assert d.call(forged)["error"]["code"] == -32602
    assert d.call({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"x": "y" * 3000}})["error"]["code"] == -32600

FLOWS = (lists, read_sensor, set_relay, calibrate, refusals)
