"""Writes the content-parts conversation the strategies' and clients' tests
read: an Anthropic computer-use session with extended thinking, and an
OpenAI Chat Completions conversation with images, audio and a PDF.

The repository's real recordings (tau-bench, pydantic-ai cassettes) were
stored with content parts flattened to text, so these are built from the
providers' documented message shapes (Anthropic Messages: image, document,
thinking with signature, redacted_thinking, compaction, tool_use and
tool_result blocks; OpenAI Chat Completions: image_url, input_audio, file
parts), with real media: PNG screenshots at the sizes computer-use agents
send (1280x800, 1024x768), a WAV clip and a two-page PDF.

history.json is what both clients' adapters must put on the wire for
anthropic.json (the sidecar's ChatMessage in proto JSON), and is what the
Go test sends through every strategy. Run: python3 make.py
"""

import base64
import json
import struct
import zlib


def png(width, height, shade):
    raw = b"".join(b"\x00" + bytes([shade]) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grayscale
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")).decode()


def wav(seconds, rate=8000):
    samples = bytes(128 for _ in range(seconds * rate))  # 8-bit mono silence
    header = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate, 1, 8)
    return base64.b64encode(header + b"data" + struct.pack("<I", len(samples)) + samples).decode()


def pdf(pages):
    objs = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join("%d 0 R" % (3 + i) for i in range(pages)), pages)]
    objs += ["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"] * pages
    body = "%PDF-1.4\n" + "".join("%d 0 obj\n%s\nendobj\n" % (i + 1, o) for i, o in enumerate(objs)) + "trailer\n<< /Root 1 0 R >>\n%%EOF\n"
    return base64.b64encode(body.encode()).decode()


SHOT1, SHOT2, SHOT3 = png(1280, 800, 200), png(1024, 768, 120), png(1280, 800, 90)
SIG = lambda n: base64.b64encode(("signature-%d-" % n).encode() * 6).decode()  # opaque to the sidecar
REDACTED = base64.b64encode(b"encrypted reasoning " * 12).decode()

SYSTEM = "You are a computer-use agent. Take a screenshot before acting."

anthropic = [
    {"role": "user", "content": [
        {"type": "text", "text": "Open the invoice in the browser and tell me its total."},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf(2)}, "title": "invoice-2291.pdf", "cache_control": {"type": "ephemeral"}},
    ]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "I should look at the screen first.", "signature": SIG(1)},
        {"type": "text", "text": "I'll take a screenshot."},
        {"type": "tool_use", "id": "toolu_01", "name": "computer", "input": {"action": "screenshot"}},
    ]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT1}},
        ]},
    ]},
    {"role": "assistant", "content": [
        {"type": "redacted_thinking", "data": REDACTED},
        {"type": "tool_use", "id": "toolu_02", "name": "computer", "input": {"action": "left_click", "coordinate": [640, 212]}},
    ]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_02", "content": [
            {"type": "text", "text": "clicked"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT2}},
        ]},
    ]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "The invoice is open; the total is at the bottom right: 1,284.50 EUR.", "signature": SIG(2)},
        {"type": "text", "text": "The invoice total is 1,284.50 EUR."},
    ]},
    {"role": "user", "content": [
        {"type": "text", "text": "Compare it with this screenshot of the order."},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/order-2291.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": SHOT3}},
    ]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Check the order total in the screenshot.", "signature": SIG(3)},
        {"type": "tool_use", "id": "toolu_03", "name": "computer", "input": {"action": "zoom", "region": [900, 600, 1280, 800]}},
    ]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_03", "content": "order total: 1,284.50 EUR"},
    ]},
]


def wire_part(block):
    """The sidecar's ContentPart for an Anthropic block (proto JSON)."""
    t = block["type"]
    known = {"type"}
    p = {"type": t}
    if t == "text":
        p["text"] = block["text"]; known.add("text")
    elif t in ("image", "document"):
        src = block["source"]; known.add("source")
        if src["type"] == "base64":
            p["mediaType"], p["data"] = src["media_type"], src["data"]
        elif src["type"] == "url":
            p["url"] = src["url"]
        elif src["type"] == "text":
            p["mediaType"], p["text"] = src["media_type"], src["data"]
    elif t == "thinking":
        p["text"], p["signature"] = block["thinking"], block["signature"]; known |= {"thinking", "signature"}
    elif t == "redacted_thinking":
        p["data"] = block["data"]; known.add("data")
    rest = {k: v for k, v in block.items() if k not in known}
    if rest:
        p["providerJson"] = json.dumps(rest, separators=(",", ":"), sort_keys=True)
    return p


def wire(messages):
    out = [{"role": "system", "content": SYSTEM}]
    for m in messages:
        blocks = m["content"]
        results = [b for b in blocks if b["type"] == "tool_result"]
        for r in results:
            c = r["content"]
            msg = {"role": "tool", "toolCallId": r["tool_use_id"]}
            if isinstance(c, str):
                msg["content"] = c
            else:
                msg["parts"] = [wire_part(b) for b in c]
            out.append(msg)
        if results:
            continue
        msg = {"role": m["role"]}
        parts = [wire_part(b) for b in blocks if b["type"] != "tool_use"]
        if parts:
            msg["parts"] = parts
        calls = [{"id": b["id"], "name": b["name"], "arguments": json.dumps(b["input"], separators=(",", ":"))} for b in blocks if b["type"] == "tool_use"]
        if calls:
            msg["toolCalls"] = calls
        out.append(msg)
    return out


openai = [
    {"role": "system", "content": "You read receipts and voice notes."},
    {"role": "user", "content": [
        {"type": "text", "text": "What did I spend at the bakery? The receipt and my note are attached."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + png(1024, 768, 240), "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "https://example.com/receipt-back.jpg", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": wav(3), "format": "wav"}},
    ]},
    {"role": "assistant", "content": "You spent 7.40 at the bakery."},
    {"role": "user", "content": [
        {"type": "text", "text": "And in this statement?"},
        {"type": "file", "file": {"filename": "statement.pdf", "file_data": "data:application/pdf;base64," + pdf(3)}},
        {"type": "file", "file": {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}},
    ]},
]

with open("anthropic.json", "w") as f:
    json.dump({"system": SYSTEM, "messages": anthropic}, f, indent=1)
with open("history.json", "w") as f:
    json.dump(wire(anthropic), f, indent=1)
with open("openai.json", "w") as f:
    json.dump(openai, f, indent=1)
