#!/usr/bin/env python3
"""Checks that chat messages make a request both providers accept.

An independent second check of the chat strategies' outputs, written apart
from the Go one (providerrules_test.go) and sharing no code with it. It
builds the request body an OpenAI Chat Completions client and an Anthropic
Messages client would send for each output, the way such clients map the
sidecar's messages, and holds each body to the rules the provider enforces
on it.

Input: a JSON file {"messages": [message...], "requests": [{"label",
"messages": [index...]}]}, each message in the wire's JSON form (role,
content, toolCalls [{id, name, arguments}], toolCallId, name). Standard
library only. Exit status 0 and "N requests accepted by both" when every
request passes; else 1 and the rules broken.
"""

import json
import re
import sys

TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


def openai_message(m):
    """One message of a Chat Completions request."""
    out = {"role": m["role"]}
    if m["role"] == "tool":
        out["tool_call_id"] = m.get("toolCallId", "")
        out["content"] = m.get("content", "")
    elif m["role"] == "assistant" and m.get("toolCalls"):
        out["content"] = m.get("content") or None
        out["tool_calls"] = [
            {"id": c["id"], "type": "function",
             "function": {"name": c["name"], "arguments": c.get("arguments", "")}}
            for c in m["toolCalls"]
        ]
    else:
        out["content"] = m.get("content", "")
    if m.get("name"):
        out["name"] = m["name"]
    return out


def openai_problems(body):
    problems = []
    if not body:
        problems.append("messages is empty")
    started = False
    for i, m in enumerate(body):
        role = m["role"]
        if role not in ("system", "user", "assistant", "tool"):
            problems.append(f"messages[{i}]: role {role!r}")
            continue
        if role == "system":
            if started:
                problems.append(f"messages[{i}]: system message after the conversation started")
            continue
        started = True
        if role == "assistant":
            calls = m.get("tool_calls") or []
            if not calls and not m.get("content"):
                problems.append(f"messages[{i}]: assistant message without content or tool_calls")
            ids = [c["id"] for c in calls]
            if len(set(ids)) != len(ids) or any(not c["id"] or not c["function"]["name"] for c in calls):
                problems.append(f"messages[{i}]: tool call ids empty or repeated, or a function without name")
            answered = []
            j = i + 1
            while j < len(body) and body[j]["role"] == "tool":
                answered.append(body[j]["tool_call_id"])
                j += 1
            missing = [x for x in ids if x not in answered]
            if missing:
                problems.append(f"messages[{i}]: tool_call_ids without response messages: {missing}")
        if role == "tool":
            # Walk back over the tool messages before this one to the message
            # that must hold the call.
            j = i - 1
            earlier = []
            while j >= 0 and body[j]["role"] == "tool":
                earlier.append(body[j]["tool_call_id"])
                j -= 1
            calls = body[j].get("tool_calls") if j >= 0 and body[j]["role"] == "assistant" else None
            call_ids = [c["id"] for c in calls or []]
            if m["tool_call_id"] not in call_ids:
                problems.append(f"messages[{i}]: role 'tool' not a response to a preceding message with 'tool_calls'")
            elif m["tool_call_id"] in earlier:
                problems.append(f"messages[{i}]: second response to tool call {m['tool_call_id']!r}")
    return problems


def anthropic_message(m):
    """The role and content blocks a message maps to in a Messages API
    request, or a problem when it cannot be mapped. A system message maps to
    the system parameter (role "system")."""
    role = m["role"]
    if role == "system":
        return "system", [], None
    if role == "user":
        return "user", [{"type": "text", "text": m.get("content", "")}], None
    if role == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": m.get("toolCallId", ""), "content": m.get("content", "")}], None
    if role == "assistant":
        blocks = []
        if m.get("content") or not m.get("toolCalls"):
            blocks.append({"type": "text", "text": m.get("content", "")})
        for c in m.get("toolCalls") or []:
            try:
                arguments = json.loads(c.get("arguments") or "{}")
            except ValueError:
                return None, None, f"arguments of {c['id']!r} are not JSON"
            blocks.append({"type": "tool_use", "id": c["id"], "name": c["name"], "input": arguments})
        return "assistant", blocks, None
    return None, None, f"role {role!r}"


def anthropic_turns(mapped):
    """The messages of a Messages API request from the mapped messages, or a
    problem."""
    turns = []
    for i, (role, blocks, problem) in enumerate(mapped):
        if problem:
            return None, f"messages[{i}]: {problem}"
        if role == "system":
            if turns:
                return None, f"messages[{i}]: system message after the conversation started (no place for it)"
            continue
        # The API combines consecutive turns of one role into one.
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": list(blocks)})
    return turns, None


def anthropic_problems(turns):
    problems = []
    if not turns:
        return ["messages: at least one message is required"]
    if turns[0]["role"] != "user":
        problems.append("messages.0: the first message must use the user role")
    seen_ids = set()
    for i, turn in enumerate(turns):
        last = i == len(turns) - 1
        blocks = turn["content"]
        if not blocks:
            problems.append(f"messages.{i}: empty content")
        text_seen = False
        for k, b in enumerate(blocks):
            if b["type"] == "text":
                text_seen = True
                if last and turn["role"] == "assistant":
                    if b["text"] != b["text"].rstrip():
                        problems.append(f"messages.{i}.content.{k}: final assistant content cannot end with trailing whitespace")
                elif not b["text"].strip():
                    problems.append(f"messages.{i}.content.{k}: text content blocks must contain non-whitespace text")
            elif b["type"] == "tool_use":
                if not TOOL_USE_ID.match(b["id"]):
                    problems.append(f"messages.{i}.content.{k}.id: {b['id']!r} does not match {TOOL_USE_ID.pattern}")
                if b["id"] in seen_ids:
                    problems.append(f"messages.{i}.content.{k}: tool_use ids must be unique")
                seen_ids.add(b["id"])
                if not isinstance(b["input"], dict):
                    problems.append(f"messages.{i}.content.{k}.input: not an object")
            elif b["type"] == "tool_result":
                if text_seen:
                    problems.append(f"messages.{i}.content.{k}: tool_result blocks must come before any text")
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        if results:
            previous = turns[i - 1] if i > 0 else None
            uses = [b["id"] for b in previous["content"] if b["type"] == "tool_use"] if previous else []
            for r in results:
                if r not in uses:
                    problems.append(f"messages.{i}: unexpected tool_use_id {r!r} in tool_result blocks")
            if len(set(results)) != len(results):
                problems.append(f"messages.{i}: two tool_result blocks for one tool_use")
        uses = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if uses:
            following = turns[i + 1] if i + 1 < len(turns) else None
            answered = {b["tool_use_id"] for b in following["content"] if b["type"] == "tool_result"} if following else set()
            missing = [u for u in uses if u not in answered]
            if missing:
                problems.append(f"messages.{i}: tool_use ids without tool_result blocks immediately after: {missing}")
    return problems


def main(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    table = data["messages"]
    # Each distinct message is mapped once; requests share them.
    openai_forms = [openai_message(m) for m in table]
    anthropic_forms = [anthropic_message(m) for m in table]
    failures = []
    for req in data["requests"]:
        idx = req["messages"]
        problems = ["openai: " + p for p in openai_problems([openai_forms[i] for i in idx])]
        turns, unmappable = anthropic_turns([anthropic_forms[i] for i in idx])
        if unmappable:
            problems.append("anthropic: " + unmappable)
        else:
            problems += ["anthropic: " + p for p in anthropic_problems(turns)]
        if problems:
            failures.append((req["label"], problems))
    if failures:
        for label, problems in failures[:20]:
            print(label)
            for p in problems:
                print("   ", p)
        print(f"{len(failures)} of {len(data['requests'])} requests refused")
        return 1
    print(f"{len(data['requests'])} requests accepted by both")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
