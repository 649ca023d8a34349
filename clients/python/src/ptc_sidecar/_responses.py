"""OpenAI Responses API input items, and the Agents SDK's session items.

In: from_responses(items) reads the items of a Responses API input (or an
Agents SDK session's get_items(), which are the same items) for
to_messages(history=...). Out: Messages.to_responses() gives the prompt as
Responses API input items (with instructions), ready for
responses.create(**prompt.params()) or a session's add_items.

Mapping. A run of consecutive items the model wrote (reasoning, assistant
messages, function calls: one response's output) is one assistant message
on the wire: its text, its reasoning summaries as reasoning, its calls as
tool calls. function_call_output is a tool message; user, system and
developer messages are messages of that role. A compaction item (from
/responses/compact or compact_threshold) travels as a user message holding
a marker, "[compaction <id>]", so that a strategy sees it in place.

Nothing is lost of what the strategy keeps: a wire message that comes back
unchanged is written as the caller's own items, whole (ids, status,
encrypted_content, annotations). One the strategy changed is written from
its source's items where they still hold: each reasoning item stays in
front of the items it preceded, a kept call keeps its id and status with
the new arguments, and a reasoning item is dropped only when nothing it
preceded is left. A function_call_output whose call is not in the output is
never written: the API refuses it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ptc_sidecar._chat import History, Prompt, Source, as_dict
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2

# The format of a Source made from Responses items; its original is the
# list of items the wire message came from.
FORMAT = "responses"
_INSTRUCTIONS = "responses:instructions"
_MODEL_KINDS = ("reasoning", "function_call")  # with assistant messages: what a response outputs
_TEXT_PARTS = ("input_text", "output_text", "text")


class ResponsesHistory:
    """Responses API items read for to_messages(history=...). Made by
    from_responses; holds the wire messages and, for each, the items it came
    from, so that Messages.to_responses() gives unchanged ones back whole."""

    def __init__(self, history: History):
        self._history = history

    def __len__(self) -> int:
        return len(self._history.wire)


@dataclass
class ResponsesPrompt:
    """A prompt as Responses API parameters: instructions (the system
    prompt, or None) and input (the items)."""

    instructions: str | None
    input: list[dict[str, Any]]

    def params(self) -> dict[str, Any]:
        """instructions and input as keyword arguments of responses.create."""
        out: dict[str, Any] = {"input": self.input}
        if self.instructions is not None:
            out["instructions"] = self.instructions
        return out


def from_responses(items: Sequence[Any], *, instructions: str | None = None) -> ResponsesHistory:
    """Reads Responses API input items (dicts or the SDK's objects; an Agents
    SDK session's items) for to_messages(history=...). instructions, the
    request's instructions parameter, is the system message when given.

    Items other than messages, reasoning, function calls and their outputs
    and compaction items (hosted tools' calls, images, files) are refused
    with their index: the sidecar reads text."""
    if isinstance(items, (str, bytes, Mapping)):
        raise TypeError(f"items: want a list of Responses API items, got a {type(items).__name__}")
    out = History()
    if instructions is not None:
        if not isinstance(instructions, str):
            raise TypeError(f"instructions: want a str, got {type(instructions).__name__}")
        out.add(chat_pb2.ChatMessage(role="system", content=instructions), Source(instructions, -1, _INSTRUCTIONS))
    run: list[dict[str, Any]] = []  # the model's items since the last input item
    first = 0
    for i, raw in enumerate(items):
        here = f"items[{i}]"
        item = as_dict(raw, here)
        kind = _kind(item, here)
        if kind in _MODEL_KINDS or (kind == "message" and item.get("role") == "assistant"):
            if not run:
                first = i
            run.append(item)
            continue
        if run:
            out.add(_model_message(run, f"items[{first}:{i}]"), Source(run, first, FORMAT))
            run = []
        if kind == "message":
            role = item.get("role")
            if role == "developer":
                role = "system"
            if role not in ("user", "system"):
                raise ValueError(f"{here}.role: {role!r} is not a message role (want user, system, developer or "
                                 "assistant)")
            wire = chat_pb2.ChatMessage(role=role, content=_text(item.get("content"), f"{here}.content"))
        elif kind == "function_call_output":
            wire = chat_pb2.ChatMessage(role="tool", tool_call_id=_required(item, "call_id", here),
                                        content=_text(item.get("output"), f"{here}.output"))
        elif kind == "compaction":
            wire = chat_pb2.ChatMessage(role="user", content=compaction_marker(item, i))
        else:
            raise ValueError(f"{here}.type: a {kind!r} item cannot be compressed: the sidecar reads message, "
                             "reasoning, function_call, function_call_output and compaction items; drop it or "
                             "describe it in a message")
        out.add(wire, Source([item], i, FORMAT))
    if run:
        out.add(_model_message(run, f"items[{first}:]"), Source(run, first, FORMAT))
    return ResponsesHistory(out)


def compaction_marker(item: Mapping[str, Any], index: int) -> str:
    """The text a compaction item travels as: its id, else its position."""
    return f"[compaction {item.get('id') or f'at item {index}'}]"


def _kind(item: Mapping[str, Any], here: str) -> str:
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"  # an easy input message: {"role", "content"}
    if not isinstance(kind, str):
        raise ValueError(f"{here}.type: missing: want message, reasoning, function_call, function_call_output or "
                         "compaction")
    return kind


def _required(item: Mapping[str, Any], key: str, here: str) -> str:
    v = item.get(key)
    if not isinstance(v, str) or not v:
        raise ValueError(f"{here}.{key}: want a non-empty string, got {v!r}")
    return v


def _text(content: Any, what: str) -> str:
    """The text of a message's content or a call's output: a string, None,
    or parts of which only text parts are read."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, Sequence):
        raise TypeError(f"{what}: want a string or a list of content parts, got {type(content).__name__}")
    texts = []
    for j, raw in enumerate(content):
        part = as_dict(raw, f"{what}[{j}]")
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            texts.append(part.get("text") or "")
        elif kind == "refusal":
            texts.append(part.get("refusal") or "")
        else:
            raise ValueError(f"{what}[{j}]: a {kind!r} part cannot be compressed: the sidecar reads text only; "
                             "send text parts (describe or drop the rest)")
    return "\n".join(texts)


def _model_message(run: list[dict[str, Any]], what: str) -> chat_pb2.ChatMessage:
    """One wire assistant message of a run of the model's items."""
    out = chat_pb2.ChatMessage(role="assistant")
    texts, thoughts = [], []
    for item in run:
        kind = item.get("type") or "message"
        if kind == "message":
            texts.append(_text(item.get("content"), f"{what} content"))
        elif kind == "reasoning":
            for part in list(item.get("summary") or []) + list(item.get("content") or []):
                p = as_dict(part, f"{what} reasoning")
                if isinstance(p.get("text"), str):
                    thoughts.append(p["text"])
        else:
            out.tool_calls.append(chat_pb2.ChatToolCall(id=_required(item, "call_id", what),
                                                        name=_required(item, "name", what),
                                                        arguments=item.get("arguments") or ""))
    out.content = "\n".join(t for t in texts if t)
    out.reasoning = "\n".join(thoughts)
    return out


def to_responses(prompt: Prompt) -> ResponsesPrompt:
    """The prompt's wire messages as Responses API items (see the module)."""
    instructions: str | None = None
    items: list[dict[str, Any]] = []
    called: set[str] = set()
    markers = _markers(prompt.history)
    for k, m in enumerate(prompt.wire):
        j = prompt.repeats[k]
        source = prompt.history.sources[j] if j is not None else None
        if source is not None and source.format == _INSTRUCTIONS and instructions is None and not items:
            instructions = source.original
            continue
        if source is None and m.role == "system" and k == 0:
            instructions = m.content  # the strategy's system prompt
            continue
        if source is not None and source.format == FORMAT:
            made = copy.deepcopy(source.original)  # unchanged: the caller's own items
        elif m.role == "user" and m.content in markers:
            made = [copy.deepcopy(markers[m.content])]
        else:
            origin = prompt.history.sources[j] if j is not None else _changed_source(prompt, k)
            made = _fresh(m, origin.original if origin is not None and origin.format == FORMAT else [])
        for item in made:
            kind = item.get("type")
            if kind == "function_call":
                called.add(item.get("call_id"))
            elif kind == "function_call_output" and item.get("call_id") not in called:
                continue  # an orphan: the API refuses an output whose call is not sent
            items.append(item)
    return ResponsesPrompt(instructions, items)


def _markers(history: History) -> dict[str, dict[str, Any]]:
    """The compaction items of a history, by the text they travel as."""
    out = {}
    for m, s in zip(history.wire, history.sources):
        if s.format == FORMAT and len(s.original) == 1 and s.original[0].get("type") == "compaction":
            out[m.content] = s.original[0]
    return out


def _changed_source(prompt: Prompt, k: int) -> Source | None:
    """The source of a message the strategy changed: for an assistant
    message, the history's holding one of its tool calls; for a tool
    message, the history's answering the same call."""
    m = prompt.wire[k]
    ids = {c.id for c in m.tool_calls} if m.role == "assistant" else {m.tool_call_id} if m.role == "tool" else set()
    for wm, s in zip(prompt.history.wire, prompt.history.sources):
        if wm.role != m.role or s.format != FORMAT:
            continue
        if ids & ({c.id for c in wm.tool_calls} if m.role == "assistant" else {wm.tool_call_id}):
            return s
    return None


def _fresh(m: chat_pb2.ChatMessage, original: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Items for a wire message the strategy changed or made, built on the
    items it came from (original, empty when none)."""
    if m.role == "tool":
        for item in original:
            if item.get("type") == "function_call_output":
                kept = copy.deepcopy(item)  # its id and status stay
                kept["call_id"], kept["output"] = m.tool_call_id, m.content
                return [kept]
        return [{"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content}]
    if m.role != "assistant":
        return [{"role": "developer" if m.role == "system" else m.role, "content": m.content}]
    calls = {c.id: c for c in m.tool_calls}
    out: list[dict[str, Any]] = []
    pending_reasoning: list[dict[str, Any]] = []
    wrote_text = not m.content
    for item in original:
        kind = item.get("type") or "message"
        if kind == "reasoning":
            pending_reasoning.append(copy.deepcopy(item))
            continue
        if kind == "message":
            if wrote_text:
                continue
            kept = copy.deepcopy(item)
            kept["content"] = [{"type": "output_text", "text": m.content, "annotations": []}]
            made = kept
            wrote_text = True
        else:
            call = calls.pop(item.get("call_id"), None)
            if call is None:
                continue  # the strategy dropped this call
            made = copy.deepcopy(item)
            made["name"], made["arguments"] = call.name, call.arguments
        out.extend(pending_reasoning)  # reasoning stays in front of what it preceded
        pending_reasoning = []
        out.append(made)
    if not wrote_text:  # text the source did not hold goes before the calls
        at = next((n for n, item in enumerate(out) if item.get("type") == "function_call"), len(out))
        out.insert(at, {"role": "assistant", "content": m.content})
    for call in calls.values():  # calls the history did not hold (ids rewritten)
        out.append({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments})
    return out
