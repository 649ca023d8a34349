"""Writes the logs of real conversations as the providers' SDKs and proxies
record them (python3 sdklogs.py, in this directory). The system prompt,
repeated by every call, is cut to its first 1,500 characters.

The conversations are three of tau-bench's recorded gpt-4o airline runs
(sierra-research/tau-bench, historical_trajectories/gpt-4o-airline.json,
MIT; copied here in the product's ChatMessage shape: the taubench-*.json
files, each naming its origin). Each log records every call of them: the
request body as the SDK sends it (the whole history so far) and the reply.

- openai_sdk_calls.jsonl: Helicone-style {request, response} pairs of the
  openai Python SDK's Chat Completions calls: the system prompt as a
  `developer` message, user content as a list of text parts, assistant
  `content: null` with `refusal: null` and `tool_calls` whose arguments are
  JSON strings, tool messages with `name`; the reply a `chat.completion`.
- proxy_mixed_calls.jsonl: a proxy's log (LiteLLM's StandardLoggingPayload:
  `messages`, `response`) of the three conversations' calls interleaved as
  they would be by concurrent agents, one call of each in turn.
- anthropic_sdk_calls.jsonl: the same three conversations as Anthropic
  Messages calls, interleaved: `system` as a list of blocks with
  `cache_control`, `tool_use` (input an object) and `tool_result` (content a
  string, or a list of text blocks; `is_error` on the tool's errors); the
  reply a `message` object with `content` and `stop_reason`.
"""
import json

SOURCES = ["taubench-airline-task000-trial0.json", "taubench-airline-task002-trial2.json", "taubench-airline-task001-trial1.json"]


def load(name):
    with open(name) as f:
        msgs = json.load(f)["messages"]
    for m in msgs:  # the policy's first part only: the logs repeat it on every call
        if m["role"] == "system":
            m["content"] = m["content"][:1500]
    return msgs


def openai_message(m):
    if m["role"] == "system":
        return {"role": "developer", "content": m["content"]}
    if m["role"] == "user":
        return {"role": "user", "content": [{"type": "text", "text": m["content"]}]}
    if m["role"] == "tool":
        return {"role": "tool", "tool_call_id": m["tool_call_id"], "name": "tool", "content": m["content"]}
    out = {"role": "assistant", "content": m["content"] or None, "refusal": None}
    if m.get("tool_calls"):
        out["tool_calls"] = [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in m["tool_calls"]]
    return out


def openai_calls(k, msgs):
    """(request, response) of each assistant message of msgs."""
    body = [openai_message(m) for m in msgs]
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        req = {"model": "gpt-4o", "messages": body[:i], "temperature": 0.0, "tools": [{"type": "function", "function": {"name": "tool"}}]}
        resp = {"id": "chatcmpl-%d-%d" % (k, i), "object": "chat.completion", "created": 1715790000 + i, "model": "gpt-4o-2024-08-06",
                "choices": [{"index": 0, "message": body[i], "logprobs": None, "finish_reason": "tool_calls" if m.get("tool_calls") else "stop"}],
                "usage": {"prompt_tokens": 1000 + i, "completion_tokens": 20, "total_tokens": 1020 + i}}
        yield req, resp


def anthropic_messages(msgs):
    system, out = None, []
    for m in msgs:
        if m["role"] == "system":
            system = [{"type": "text", "text": m["content"], "cache_control": {"type": "ephemeral"}}]
        elif m["role"] == "user":
            out.append({"role": "user", "content": m["content"]})
        elif m["role"] == "assistant":
            blocks = [{"type": "text", "text": m["content"]}] if m["content"] else []
            for c in m.get("tool_calls") or []:
                blocks.append({"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["arguments"])})
            out.append({"role": "assistant", "content": blocks})
        else:
            content = m["content"]
            result = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": content}
            if content.startswith("Error"):
                result["is_error"] = True
            elif len(out) % 4 == 1:  # some results as a list of text blocks
                result["content"] = [{"type": "text", "text": content}]
            if out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
    return system, out


def anthropic_calls(k, msgs):
    system, body = anthropic_messages(msgs)
    for i, m in enumerate(body):
        if m["role"] != "assistant":
            continue
        req = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": system, "messages": body[:i], "tools": [{"name": "tool", "input_schema": {"type": "object"}}]}
        stop = "tool_use" if any(b["type"] == "tool_use" for b in m["content"]) else "end_turn"
        resp = {"id": "msg_%d_%d" % (k, i), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": m["content"], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 1000 + i, "cache_read_input_tokens": 900, "output_tokens": 30}}
        yield req, resp


def interleave(lists):
    out = []
    for i in range(max(len(x) for x in lists)):
        for x in lists:
            if i < len(x):
                out.append(x[i])
    return out


def write(name, records):
    with open(name, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


convs = [load(s) for s in SOURCES]
write("openai_sdk_calls.jsonl", [{"request": q, "response": r} for q, r in openai_calls(0, convs[0])])
write("proxy_mixed_calls.jsonl", interleave([[{"call_type": "completion", "model": "gpt-4o", "messages": q["messages"], "response": r, "status": "success"}
                                              for q, r in openai_calls(k, c)] for k, c in enumerate(convs)]))
write("anthropic_sdk_calls.jsonl", interleave([[{"request": q, "response": r} for q, r in anthropic_calls(k, c)] for k, c in enumerate(convs)]))
