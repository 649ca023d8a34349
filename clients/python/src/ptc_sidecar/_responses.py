"""OpenAI Responses API input items, and the Agents SDK's session items.

In: from_responses(items) reads the items of a Responses API input (or an
Agents SDK session's get_items(), which are the same items) for
to_messages(history=...). Out: Messages.to_responses() gives the prompt as
Responses API input items (with instructions), ready for
responses.create(**prompt.params()) or a session's add_items.

Mapping. A run of consecutive items the model wrote (reasoning, assistant
messages, function calls: one response's output) is one assistant message
on the wire: its text, its calls as tool calls, and, when it holds
reasoning items, its text and reasoning as parts in item order (a reasoning
item is a reasoning part: its summary as text, encrypted_content as data,
its other fields in provider_json), so that keep_thinking_turns clears it
like any reasoning. function_call_output is a tool message; user, system
and developer messages are messages of that role. A compaction item (from
/responses/compact or compact_threshold) opens an assistant message, as its
compaction part, with the model's items that follow it in the same run, so
that the strategies' compaction rule holds: everything before the last
compaction is replaced by it (OpenAI's guide: the latest compaction item
carries the context needed), and it is never split from what follows.

Nothing is lost of what the strategy keeps: a wire message that comes back
unchanged is written as the caller's own items, whole (ids, status,
encrypted_content, annotations). One the strategy changed is written from
its source's items where they still hold: each reasoning item stays in
front of the items it preceded, a kept call keeps its id and status with
the new arguments, and a reasoning item is dropped when keep_thinking_turns
cleared it or when nothing it preceded is left. A function_call_output whose call is not in the output is
never written: the API refuses it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ptc_sidecar._chat import History, Prompt, Source, _merged, _openai_text, _part, as_dict
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2

# The format of a Source made from Responses items; its original is the
# list of items the wire message came from.
FORMAT = "responses"
_INSTRUCTIONS = "responses:instructions"
_MODEL_KINDS = ("reasoning", "function_call", "compaction")  # with assistant messages: what a response outputs
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
        if kind == "compaction" and run:  # it opens a message: nothing before it may travel with it
            out.add(_model_message(run, f"items[{first}:{i}]"), Source(run, first, FORMAT))
            run = []
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
        else:
            raise ValueError(f"{here}.type: a {kind!r} item cannot be compressed: the sidecar reads message, "
                             "reasoning, function_call, function_call_output and compaction items; drop it or "
                             "describe it in a message")
        out.add(wire, Source([item], i, FORMAT))
    if run:
        out.add(_model_message(run, f"items[{first}:]"), Source(run, first, FORMAT))
    return ResponsesHistory(out)


def _compaction_part(item: dict[str, Any], here: str) -> chat_pb2.ContentPart:
    data = item.get("encrypted_content")
    if data is not None and not isinstance(data, str):
        raise TypeError(f"{here}.encrypted_content: want a string, got {type(data).__name__}")
    return _part("compaction", item, {"encrypted_content": True}, data=data or "")


def _reasoning_part(item: dict[str, Any], what: str) -> chat_pb2.ContentPart:
    """A reasoning item as a reasoning part: the texts of its summary (and
    content) as text, for counting; encrypted_content as data; the rest,
    summary included, in provider_json, so that the item is rebuilt exactly."""
    data = item.get("encrypted_content")
    if data is not None and not isinstance(data, str):
        raise TypeError(f"{what}.encrypted_content: want a string, got {type(data).__name__}")
    thoughts = []
    for part in list(item.get("summary") or []) + list(item.get("content") or []):
        p = as_dict(part, f"{what} reasoning")
        if isinstance(p.get("text"), str):
            thoughts.append(p["text"])
    return _part("reasoning", item, {"encrypted_content": True}, text="\n".join(thoughts), data=data or "")


def _part_item(part: chat_pb2.ContentPart) -> dict[str, Any] | None:
    """The item a reasoning or compaction part was read from, or None."""
    if part.type not in ("reasoning", "compaction"):
        return None
    item: dict[str, Any] = {"type": part.type}
    if part.data:
        item["encrypted_content"] = part.data
    item = _merged(item, part)
    if part.type == "reasoning" and "summary" not in item:
        item["summary"] = [{"type": "summary_text", "text": part.text}] if part.text else []
    return item


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
    return _openai_text(content, what, kinds=_TEXT_PARTS,
                        hint="the sidecar reads text only; send text parts (describe or drop the rest)")


def _model_message(run: list[dict[str, Any]], what: str) -> chat_pb2.ChatMessage:
    """One wire assistant message of a run of the model's items."""
    out = chat_pb2.ChatMessage(role="assistant")
    parts: list[chat_pb2.ContentPart] = []
    for item in run:
        kind = item.get("type") or "message"
        if kind == "message":
            text = _text(item.get("content"), f"{what} content")
            if text:
                parts.append(chat_pb2.ContentPart(type="text", text=text))
        elif kind == "reasoning":
            parts.append(_reasoning_part(item, what))
        elif kind == "compaction":
            parts.append(_compaction_part(item, what))
        else:
            out.tool_calls.append(chat_pb2.ChatToolCall(id=_required(item, "call_id", what),
                                                        name=_required(item, "name", what),
                                                        arguments=item.get("arguments") or ""))
    if any(p.type != "text" for p in parts):
        out.parts.extend(parts)  # in item order, so that each reasoning part keeps its place
    else:
        out.content = "\n".join(p.text for p in parts)
    return out


def to_responses(prompt: Prompt) -> ResponsesPrompt:
    """The prompt's wire messages as Responses API items (see the module)."""
    instructions: str | None = None
    items: list[dict[str, Any]] = []
    called: set[str] = set()
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
    texts = [p.text for p in m.parts if p.type == "text"] if m.parts else [m.content] if m.content else []
    # The reasoning and compaction the message still carries
    # (keep_thinking_turns clears reasoning).
    kept_opaque = [p.SerializeToString(deterministic=True) for p in m.parts if p.type in ("reasoning", "compaction")]
    out: list[dict[str, Any]] = []
    if not original:  # a message the history did not hold: its parts in order
        out.extend(item for item in map(_part_item, m.parts) if item is not None)
    pending_reasoning: list[dict[str, Any]] = []
    for item in original:
        kind = item.get("type") or "message"
        if kind in ("reasoning", "compaction"):
            read = _reasoning_part(item, kind) if kind == "reasoning" else _compaction_part(item, kind)
            key = read.SerializeToString(deterministic=True)
            if key in kept_opaque:
                kept_opaque.remove(key)
                pending_reasoning.append(copy.deepcopy(item))
            continue
        if kind == "message":
            if not _text(item.get("content"), "content"):
                continue  # no text part stood for it
            if not texts:
                continue  # the strategy dropped its text
            made = copy.deepcopy(item)
            text = texts.pop(0)
            if text != _text(item.get("content"), "content"):
                made["content"] = [{"type": "output_text", "text": text, "annotations": []}]
        else:
            call = calls.pop(item.get("call_id"), None)
            if call is None:
                continue  # the strategy dropped this call
            made = copy.deepcopy(item)
            made["name"], made["arguments"] = call.name, call.arguments
        out.extend(pending_reasoning)  # reasoning stays in front of what it preceded
        pending_reasoning = []
        out.append(made)
    out.extend(pending_reasoning)  # nothing followed it (a compaction alone)
    if texts:  # text the source did not hold goes before the calls
        at = next((n for n, item in enumerate(out) if item.get("type") == "function_call"), len(out))
        out.insert(at, {"role": "assistant", "content": "\n".join(texts)})
    for call in calls.values():  # calls the history did not hold (ids rewritten)
        out.append({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments})
    return out
