"""Chat messages between the providers' shapes and the sidecar's wire.

In: OpenAI Chat Completions messages (dicts, or the SDK's model objects),
or Anthropic Messages messages through from_anthropic. Out: OpenAI message
dicts (Messages.messages) or Anthropic parameters (Messages.to_anthropic).

The wire ChatMessage holds text, tool calls, a name, reasoning and content
parts (images, audio, files, documents, thinking blocks with their
signatures, redacted thinking, compaction blocks); a provider message can
hold more (a tool result's is_error, cache_control). Nothing is guessed: a
message the strategy leaves unchanged comes back as the caller's own
message, whole; a message the strategy changed or made is written fresh
from the wire, its parts in order, each rebuilt from the part's fields and
the provider's own fields the part carries in provider_json.
"""

from __future__ import annotations

import bisect
import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2

_ROLES = ("system", "user", "assistant", "tool")


def as_dict(message: Any, what: str) -> dict[str, Any]:
    """A message as a dict: a Mapping as a copy, an SDK model object by its
    model_dump (the fields it was given or received), else TypeError."""
    if isinstance(message, Mapping):
        return copy.deepcopy(dict(message))
    dump = getattr(message, "model_dump", None)
    if callable(dump):
        return dump(exclude_unset=True)
    to_dict = getattr(message, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"{what}: a {type(message).__name__} is not a message: pass dicts or the SDK's message objects")


@dataclass
class Source:
    """Where one wire message came from: the caller's message (as a dict),
    which of the caller's messages it was, and in which shape."""

    original: Any
    group: int
    format: str  # "openai" or "anthropic"
    size: int = 1  # how many wire messages the caller's message made


@dataclass
class History:
    """A caller's chat log on the wire, with the source of each message."""

    wire: list[chat_pb2.ChatMessage] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)

    def add(self, message: chat_pb2.ChatMessage, source: Source) -> None:
        self.wire.append(message)
        self.sources.append(source)


# ---- OpenAI Chat Completions --------------------------------------------


def read_openai(messages: Sequence[Any], what: str = "history") -> History:
    """The wire form of OpenAI Chat Completions messages. The developer role
    is the system role on the wire (and comes back as developer when the
    message is unchanged); the deprecated function role is refused."""
    if isinstance(messages, (str, bytes, Mapping)):
        raise TypeError(f"{what}: want a list of messages, got a {type(messages).__name__}")
    out = History()
    for i, m in enumerate(messages):
        here = f"{what}[{i}]"
        d = as_dict(m, here)
        role = d.get("role")
        if role == "developer":
            role = "system"
        elif role == "function":
            raise ValueError(f"{here}.role: the function role (deprecated function calling) has no place on the "
                             "wire: send the result as a tool message answering a tool_call_id")
        elif role not in _ROLES:
            raise ValueError(f"{here}.role: {role!r} is not a chat role (want system, developer, user, assistant "
                             "or tool)")
        content = d.get("content")
        wire = chat_pb2.ChatMessage(role=role, name=_str(d, "name", here), tool_call_id=_str(d, "tool_call_id", here),
                                    reasoning=_str(d, "reasoning", here), source=_str(d, "source", here),
                                    sender_id=_str(d, "sender_id", here))
        if _has_media(content):
            wire.parts.extend(_openai_part(p, f"{here}.content[{j}]") for j, p in enumerate(content))
        else:
            wire.content = _openai_text(content, f"{here}.content")
        for j, call in enumerate(d.get("tool_calls") or ()):
            wire.tool_calls.append(_openai_tool_call(call, f"{here}.tool_calls[{j}]"))
        out.add(wire, Source(d, i, "openai"))
    return out


def _has_media(content: Any) -> bool:
    """Whether content is a list of parts holding more than text: then it
    goes on the wire as parts, in order; text alone goes as a string."""
    if content is None or isinstance(content, str) or not isinstance(content, Sequence):
        return False
    return any(as_dict(p, "content").get("type") not in ("text", "refusal") for p in content)


def _without(d: Mapping[str, Any], taken: Mapping[str, Any]) -> Any:
    """d less the fields taken (a nested dict names the nested fields
    taken), or None when nothing is left: what provider_json carries."""
    rest = {}
    for k, v in d.items():
        t = taken.get(k)
        if t is True:
            continue
        if isinstance(t, Mapping) and isinstance(v, Mapping):
            v = _without(v, t)
            if v is None:
                continue
        rest[k] = v
    return rest or None


def _part(kind: str, original: Mapping[str, Any], taken: Mapping[str, Any], **fields: Any) -> chat_pb2.ContentPart:
    part = chat_pb2.ContentPart(type=kind, **{k: v for k, v in fields.items() if v})
    rest = _without(original, {"type": True, **taken})
    if rest is not None:
        part.provider_json = json.dumps(rest, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return part


def _merged(block: dict[str, Any], part: chat_pb2.ContentPart) -> dict[str, Any]:
    """block with the provider's own fields the part carried put back."""
    if not part.provider_json:
        return block

    def merge(into: dict[str, Any], extra: Mapping[str, Any]) -> None:
        for k, v in extra.items():
            if isinstance(v, Mapping) and isinstance(into.get(k), dict):
                merge(into[k], v)
            else:
                into[k] = copy.deepcopy(v)

    merge(block, json.loads(part.provider_json))
    return block


def _split_data_url(url: str) -> tuple[str, str] | None:
    """(media type, base64 data) of a data: URL, or None."""
    if url.startswith("data:") and ";base64," in url:
        head, data = url[5:].split(";base64,", 1)
        return head, data
    return None


def _openai_part(part: Any, what: str) -> chat_pb2.ContentPart:
    """An OpenAI content part as a wire part."""
    p = as_dict(part, what)
    kind = p.get("type")
    if kind == "text":
        return _part("text", p, {"text": True}, text=_str(p, "text", what))
    if kind == "refusal":  # the text of a refusal; provider_json says it was one
        return _part("text", p, {"refusal": True}, text=_str(p, "refusal", what))
    if kind == "image_url":
        image = as_dict(p.get("image_url") or {}, f"{what}.image_url")
        return _part("image", p, {"image_url": {"url": True, "detail": True}},
                     url=_str(image, "url", f"{what}.image_url"), detail=_str(image, "detail", f"{what}.image_url"))
    if kind == "input_audio":
        audio = as_dict(p.get("input_audio") or {}, f"{what}.input_audio")
        fmt = _str(audio, "format", f"{what}.input_audio")
        return _part("audio", p, {"input_audio": {"data": True, "format": True}},
                     data=_str(audio, "data", f"{what}.input_audio"), media_type=f"audio/{fmt}" if fmt else "")
    if kind == "file":
        f = as_dict(p.get("file") or {}, f"{what}.file")
        file_data = _str(f, "file_data", f"{what}.file")
        media_type, data = _split_data_url(file_data) or ("", file_data)
        return _part("file", p, {"file": {"file_data": True, "file_id": True}},
                     data=data, media_type=media_type, file_id=_str(f, "file_id", f"{what}.file"))
    raise ValueError(f"{what}.type: {kind!r} is not an OpenAI content part (want text, refusal, image_url, "
                     "input_audio or file)")


def _openai_block(part: chat_pb2.ContentPart) -> dict[str, Any] | None:
    """A wire part as an OpenAI content part, or None for a part OpenAI's
    Chat Completions has no place for (thinking, compaction)."""
    if part.type == "text":
        extra = json.loads(part.provider_json) if part.provider_json else {}
        if extra.get("type") == "refusal":
            return _merged({"type": "refusal", "refusal": part.text}, part)
        return _merged({"type": "text", "text": part.text}, part)
    if part.type == "image":
        url = part.url or (f"data:{part.media_type};base64,{part.data}" if part.data else "")
        image = {"url": url, **({"detail": part.detail} if part.detail else {})}
        return _merged({"type": "image_url", "image_url": image}, part)
    if part.type == "audio":
        fmt = part.media_type.removeprefix("audio/")
        return _merged({"type": "input_audio", "input_audio": {"data": part.data, "format": fmt}}, part)
    if part.type in ("file", "document") and not part.text:
        f: dict[str, Any] = {}
        if part.data:
            f["file_data"] = f"data:{part.media_type};base64,{part.data}" if part.media_type else part.data
        if part.file_id:
            f["file_id"] = part.file_id
        return _merged({"type": "file", "file": f}, part)
    if part.type in ("file", "document"):
        return {"type": "text", "text": part.text}
    return None


def _openai_text(content: Any, what: str, others: str = "refuse", kinds: tuple[str, ...] = ("text",),
                 hint: str = "send it as a content part") -> str:
    """The text of a message's content: a string, None, or content parts (or
    Anthropic blocks) whose text parts (of the types in kinds) are joined by
    newlines. Other parts are refused (others="refuse", with hint) or
    skipped (others="skip"), as in a reply whose program is in its text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, Sequence):
        raise TypeError(f"{what}: want a string, None or a list of content parts, got {type(content).__name__}")
    texts = []
    for j, part in enumerate(content):
        p = as_dict(part, f"{what}[{j}]")
        kind = p.get("type")
        if kind in kinds:
            texts.append(_str(p, "text", f"{what}[{j}]"))
        elif kind == "refusal" and others == "refuse":
            texts.append(_str(p, "refusal", f"{what}[{j}]"))
        elif others == "refuse":
            raise ValueError(f"{what}[{j}]: a {kind!r} part has no text: {hint}")
    return "\n".join(texts)


def _openai_tool_call(call: Any, what: str) -> chat_pb2.ChatToolCall:
    c = as_dict(call, what)
    kind = c.get("type", "function")
    if kind == "function":
        fn = as_dict(c.get("function") or {}, f"{what}.function")
        name, arguments = _str(fn, "name", f"{what}.function"), _str(fn, "arguments", f"{what}.function")
    elif kind == "custom":
        custom = as_dict(c.get("custom") or {}, f"{what}.custom")
        name, arguments = _str(custom, "name", f"{what}.custom"), _str(custom, "input", f"{what}.custom")
    else:
        raise ValueError(f"{what}.type: {kind!r} is not a tool call type (want function or custom)")
    if not c.get("id"):
        raise ValueError(f"{what}.id: empty: a tool call needs the id its tool message answers")
    return chat_pb2.ChatToolCall(id=_str(c, "id", what), name=name, arguments=arguments)


def _str(d: Mapping[str, Any], key: str, what: str) -> str:
    v = d.get(key)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise TypeError(f"{what}.{key}: want a string, got {type(v).__name__}")
    return v


def openai_message(m: chat_pb2.ChatMessage) -> dict[str, Any]:
    """A wire message as an OpenAI message dict: only fields the API takes,
    content None for an assistant message that only calls tools."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.parts:
        blocks = [b for b in map(_openai_block, m.parts) if b is not None]
        if all(b["type"] == "text" for b in blocks):
            out["content"] = "\n".join(b["text"] for b in blocks)
        else:
            out["content"] = blocks
    if m.name:
        out["name"] = m.name
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                             for c in m.tool_calls]
        if m.role == "assistant" and not out["content"]:
            out["content"] = None
    if m.tool_call_id:
        out["tool_call_id"] = m.tool_call_id
    return out


# ---- Anthropic Messages -------------------------------------------------


class AnthropicHistory:
    """An Anthropic Messages conversation read for to_messages(history=...).

    Made by from_anthropic; holds the wire messages and, for each, the
    Anthropic message it came from, so that Messages.to_anthropic() gives
    unchanged messages back whole (thinking signatures, is_error, citations
    and cache_control included).
    """

    def __init__(self, history: History):
        self._history = history

    def __len__(self) -> int:
        return len(self._history.wire)


def from_anthropic(messages: Sequence[Any], *, system: Any = None) -> AnthropicHistory:
    """Reads an Anthropic Messages conversation (messages as for
    messages.create, dicts or the SDK's objects; system the system
    parameter, a string or text blocks) for to_messages(history=...).

    A user message's tool_result blocks become tool messages (before its
    text), an assistant message's tool_use blocks tool calls. A message
    holding only text (besides tool use and results) goes on the wire as
    text; one holding image, document, thinking, redacted_thinking or
    compaction blocks goes as parts, in order, each block's own fields the
    part does not hold kept in its provider_json. Other blocks are refused
    naming the message.
    """
    if isinstance(messages, (str, bytes, Mapping)):
        raise TypeError(f"messages: want a list of messages, got a {type(messages).__name__}")
    out = History()
    if system is not None:
        text = _anthropic_text(system, "system", allow_str=True)
        original = copy.deepcopy(system) if isinstance(system, (str, list)) else system
        out.add(chat_pb2.ChatMessage(role="system", content=text), Source(original, -1, "anthropic:system"))
    for i, m in enumerate(messages):
        here = f"messages[{i}]"
        d = as_dict(m, here)
        role = d.get("role")
        content = d.get("content")
        made: list[chat_pb2.ChatMessage] = []
        if role == "system":
            made.append(chat_pb2.ChatMessage(role="system", content=_anthropic_text(content, f"{here}.content", True)))
        elif role == "user":
            made.extend(_anthropic_user(content, f"{here}.content"))
        elif role == "assistant":
            made.append(_anthropic_assistant(content, f"{here}.content"))
        else:
            raise ValueError(f"{here}.role: {role!r} is not an Anthropic role (want user or assistant)")
        for wire in made:
            out.add(wire, Source(d, i, "anthropic", len(made)))
    return AnthropicHistory(out)


def _blocks(content: Any, what: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, Sequence):
        raise TypeError(f"{what}: want a string or a list of content blocks, got {type(content).__name__}")
    return [as_dict(b, f"{what}[{j}]") for j, b in enumerate(content)]


def _refuse(block: Mapping[str, Any], what: str) -> ValueError:
    return ValueError(f"{what}: a {block.get('type')!r} block has no place on the wire (want text, image, "
                      "document, thinking, redacted_thinking, compaction, tool_use or tool_result)")


_MEDIA_BLOCKS = ("image", "document", "thinking", "redacted_thinking", "compaction")


def _anthropic_part(b: Mapping[str, Any], what: str) -> chat_pb2.ContentPart:
    """An Anthropic content block (not tool use or result) as a wire part."""
    kind = b.get("type")
    if kind == "text":
        return _part("text", b, {"text": True}, text=_str(b, "text", what))
    if kind in ("image", "document"):
        src = as_dict(b.get("source") or {}, f"{what}.source")
        st = src.get("type")
        if st == "base64":
            return _part(kind, b, {"source": {"type": True, "media_type": True, "data": True}},
                         media_type=_str(src, "media_type", f"{what}.source"), data=_str(src, "data", f"{what}.source"))
        if st == "url":
            return _part(kind, b, {"source": {"type": True, "url": True}}, url=_str(src, "url", f"{what}.source"))
        if st == "file":
            return _part(kind, b, {"source": {"type": True, "file_id": True}},
                         file_id=_str(src, "file_id", f"{what}.source"))
        if st == "text":
            return _part(kind, b, {"source": {"type": True, "media_type": True, "data": True}},
                         media_type=_str(src, "media_type", f"{what}.source"), text=_str(src, "data", f"{what}.source"))
        raise ValueError(f"{what}.source.type: {st!r} is not a source the wire holds (want base64, url, file or text)")
    if kind == "thinking":
        return _part("thinking", b, {"thinking": True, "signature": True},
                     text=_str(b, "thinking", what), signature=_str(b, "signature", what))
    if kind == "redacted_thinking":
        return _part("redacted_thinking", b, {"data": True}, data=_str(b, "data", what))
    if kind == "compaction":
        taken = {"content": True} if isinstance(b.get("content"), str) else {}
        return _part("compaction", b, {**taken, "signature": True},
                     text=b.get("content") if taken else "", signature=_str(b, "signature", what))
    raise _refuse(b, what)


def _anthropic_block(part: chat_pb2.ContentPart) -> dict[str, Any]:
    """A wire part as an Anthropic content block."""
    if part.type == "text":
        return _merged({"type": "text", "text": part.text}, part)
    if part.type in ("image", "document", "file", "audio"):
        kind = "image" if part.type == "image" else "document"
        if part.data:
            src = {"type": "base64", "media_type": part.media_type, "data": part.data}
        elif part.file_id:
            src = {"type": "file", "file_id": part.file_id}
        elif part.url and _split_data_url(part.url):
            media_type, data = _split_data_url(part.url)
            src = {"type": "base64", "media_type": media_type, "data": data}
        elif part.url:
            src = {"type": "url", "url": part.url}
        else:
            src = {"type": "text", "media_type": part.media_type or "text/plain", "data": part.text}
        return _merged({"type": kind, "source": src}, part)
    if part.type == "thinking":
        return _merged({"type": "thinking", "thinking": part.text, "signature": part.signature}, part)
    if part.type == "redacted_thinking":
        return _merged({"type": "redacted_thinking", "data": part.data}, part)
    if part.type == "compaction":
        block: dict[str, Any] = {"type": "compaction"}
        if part.text:
            block["content"] = part.text
        if part.signature:
            block["signature"] = part.signature
        return _merged(block, part)
    return _merged({"type": "text", "text": part.text}, part)  # reasoning: its summary


def _anthropic_text(content: Any, what: str, allow_str: bool = True) -> str:
    if content is None:
        return ""
    texts = []
    for j, b in enumerate(_blocks(content, what)):
        if b.get("type") != "text":
            raise _refuse(b, f"{what}[{j}]")
        texts.append(_str(b, "text", f"{what}[{j}]"))
    return "\n".join(texts)


def _anthropic_parts(blocks: list[dict[str, Any]], what: str, into: chat_pb2.ChatMessage,
                     skip: tuple[str, ...] = ()) -> None:
    """Sets into's content from blocks (less those of the types skip): their
    text joined when they hold only text, else every block as a part."""
    kept = [(j, b) for j, b in enumerate(blocks) if b.get("type") not in skip]
    if any(b.get("type") in _MEDIA_BLOCKS for _, b in kept):
        into.parts.extend(_anthropic_part(b, f"{what}[{j}]") for j, b in kept)
        return
    texts = []
    for j, b in kept:
        if b.get("type") != "text":
            raise _refuse(b, f"{what}[{j}]")
        texts.append(_str(b, "text", f"{what}[{j}]"))
    into.content = "\n".join(texts)


def _anthropic_user(content: Any, what: str) -> list[chat_pb2.ChatMessage]:
    out = []
    blocks = _blocks(content, what)
    for j, b in enumerate(blocks):
        if b.get("type") == "tool_result":
            result = chat_pb2.ChatMessage(role="tool", tool_call_id=_str(b, "tool_use_id", f"{what}[{j}]"))
            if b.get("content") is not None:
                _anthropic_parts(_blocks(b.get("content"), f"{what}[{j}].content"), f"{what}[{j}].content", result)
            out.append(result)
    user = chat_pb2.ChatMessage(role="user")
    _anthropic_parts(blocks, what, user, skip=("tool_result",))
    if user.content or user.parts or not out:
        out.append(user)
    return out


def _anthropic_assistant(content: Any, what: str) -> chat_pb2.ChatMessage:
    out = chat_pb2.ChatMessage(role="assistant")
    blocks = _blocks(content, what)
    for j, b in enumerate(blocks):
        if b.get("type") == "tool_use":
            out.tool_calls.append(chat_pb2.ChatToolCall(
                id=_str(b, "id", f"{what}[{j}]"), name=_str(b, "name", f"{what}[{j}]"),
                arguments=json.dumps(b.get("input", {}), ensure_ascii=False, separators=(",", ":"))))
    _anthropic_parts(blocks, what, out, skip=("tool_use",))
    return out


@dataclass
class AnthropicPrompt:
    """A prompt as Anthropic Messages parameters."""

    system: str | list[dict[str, Any]] | None
    messages: list[dict[str, Any]]

    def params(self) -> dict[str, Any]:
        """system and messages as keyword arguments of messages.create."""
        out: dict[str, Any] = {"messages": self.messages}
        if self.system is not None:
            out["system"] = self.system
        return out


@dataclass
class _Block:
    """One emitted block that may carry cache_control, with the stretch of
    the wire message's content it holds: [start, end) in code points, or
    end None when it follows the content (a tool_use block)."""

    blocks: list[dict[str, Any]]
    index: int
    wire: int
    start: int
    end: int | None
    text: bool  # a text block, which can be split


class Prompt:
    """A ToMessages response with what is needed to write it for either
    provider: the output wire messages, and for each the history message
    it repeats unchanged (or None)."""

    def __init__(self, wire: Sequence[chat_pb2.ChatMessage], history: History | None):
        self.wire = list(wire)
        self.history = history or History()
        self.repeats = _match(self.wire, self.history.wire)

    def nudge_index(self) -> int | None:
        """Where the synthetic nudge is: the last message, a user message the
        strategy made (source "system", repeating nothing in the history).
        Ledger notes are marked the same way but never come last."""
        k = len(self.wire) - 1
        if k >= 0 and self.repeats[k] is None and self.wire[k].role == "user" and self.wire[k].source == "system":
            return k
        return None

    def openai_messages(self) -> list[dict[str, Any]]:
        out = []
        for m, j in zip(self.wire, self.repeats):
            if j is not None and self.history.sources[j].format == "openai":
                out.append(copy.deepcopy(self.history.sources[j].original))
            else:
                out.append(openai_message(m))
        return out

    def to_anthropic(self, breakpoints: Sequence[Mapping[str, int]], ttl: str | None) -> AnthropicPrompt:
        system: list[dict[str, Any]] = []
        system_original: Any = None
        messages: list[dict[str, Any]] = []
        marks: list[_Block] = []
        as_text: list[dict[str, Any]] = []  # originals whose content was a string
        whole = self._whole_groups()
        k = 0
        while k < len(self.wire):
            m = self.wire[k]
            source = self.history.sources[self.repeats[k]] if self.repeats[k] is not None else None
            if source is not None and source.format == "anthropic:system" and not system:
                system_original = copy.deepcopy(source.original)
                system.extend(_blocks(system_original, "system"))
                _text_marks(marks, system, 0, k)
                k += 1
                continue
            if m.role == "system":
                start = len(system)
                if m.content:
                    system.append({"type": "text", "text": m.content})
                _text_marks(marks, system, start, k)
                system_original = None
                k += 1
                continue
            if k in whole:
                group = self.history.sources[self.repeats[k]]
                original = copy.deepcopy(group.original)
                blocks = _blocks(original.get("content"), "content")
                target = _open(messages, original.get("role"))
                start = len(target)
                target.extend(blocks)
                if start == 0:
                    messages[-1] = {**original, "content": target}
                    if isinstance(original.get("content"), str):
                        as_text.append(messages[-1])
                _original_marks(marks, target, start, k, self.wire[k:k + group.size])
                k += group.size
                continue
            _fresh(messages, m, k, marks)
            k += 1
        control: dict[str, Any] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
        for point in breakpoints:
            _mark(marks, int(point.get("message_index", 0)), int(point.get("offset", 0)), control)
        for message in as_text:  # a string content stays one unless it was split or marked
            content = message["content"]
            if len(content) == 1 and set(content[0]) == {"type", "text"}:
                message["content"] = content[0]["text"]
        if not system:
            out_system: Any = None
        elif system_original is not None and not _any_cached(system):
            out_system = system_original
        elif len(system) == 1 and not _any_cached(system) and set(system[0]) == {"type", "text"}:
            out_system = system[0]["text"]
        else:
            out_system = system
        return AnthropicPrompt(out_system, messages)

    def _whole_groups(self) -> set[int]:
        """The output positions where an Anthropic message starts that comes
        back whole: every wire message it made, unchanged and in a row."""
        out = set()
        for k, j in enumerate(self.repeats):
            if j is None:
                continue
            source = self.history.sources[j]
            if source.format != "anthropic" or (j > 0 and self.history.sources[j - 1] is not None
                                                and self.history.sources[j - 1].group == source.group
                                                and self.history.sources[j - 1].format == "anthropic"):
                continue
            if all(k + n < len(self.repeats) and self.repeats[k + n] == j + n for n in range(source.size)):
                out.add(k)
        return out


def _open(messages: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    """The content block list new blocks of role go into: the last
    message's when it has the same role (tool results and the user's text
    after them share one user message), else a new message's."""
    if messages and messages[-1]["role"] == role:
        last = messages[-1]
        if isinstance(last["content"], str):
            last["content"] = [{"type": "text", "text": last["content"]}]
        return last["content"]
    messages.append({"role": role, "content": []})
    return messages[-1]["content"]


def _fresh(messages: list[dict[str, Any]], m: chat_pb2.ChatMessage, k: int, marks: list[_Block]) -> None:
    if m.role == "tool":
        blocks = _open(messages, "user")
        result: Any = [_anthropic_block(p) for p in m.parts] if m.parts else m.content
        blocks.append({"type": "tool_result", "tool_use_id": m.tool_call_id, "content": result})
        marks.append(_Block(blocks, len(blocks) - 1, k, 0, len(m.content), False))
        return
    blocks = _open(messages, m.role)
    if m.content:
        blocks.append({"type": "text", "text": m.content})
        marks.append(_Block(blocks, len(blocks) - 1, k, 0, len(m.content), True))
    for part in m.parts:  # a message of parts: a breakpoint at its end (offset 0) marks its last block
        blocks.append(_anthropic_block(part))
        marks.append(_Block(blocks, len(blocks) - 1, k, 0, 0, False))
    for n, call in enumerate(m.tool_calls):
        try:
            arguments = json.loads(call.arguments) if call.arguments else {}
        except ValueError:
            raise ValueError(f"messages[{k}].tool_calls[{n}].arguments: not JSON, and Anthropic's tool_use input "
                             f"must be a JSON object: {call.arguments[:80]!r}") from None
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
        marks.append(_Block(blocks, len(blocks) - 1, k, 0, None, False))
    if not blocks:
        messages.pop()  # Anthropic refuses a message without content


def _text_marks(marks: list[_Block], blocks: list[dict[str, Any]], start: int, k: int) -> None:
    """Marks for the text blocks blocks[start:], which hold wire message
    k's content joined by newlines."""
    pos = 0
    for i in range(start, len(blocks)):
        text = blocks[i].get("text", "")
        marks.append(_Block(blocks, i, k, pos, pos + len(text), True))
        pos += len(text) + 1


def _original_marks(marks: list[_Block], blocks: list[dict[str, Any]], start: int, k: int,
                    wire: Sequence[chat_pb2.ChatMessage]) -> None:
    """Marks for the blocks blocks[start:] of an Anthropic message given back
    whole, which made the wire messages wire (from k on) as from_anthropic
    reads it: one tool message per tool_result, then one message holding
    the text (and the tool uses of an assistant message)."""
    results = sum(1 for b in blocks[start:] if b.get("type") == "tool_result")
    r = pos = 0
    for i in range(start, len(blocks)):
        kind = blocks[i].get("type")
        if kind == "tool_result":
            marks.append(_Block(blocks, i, k + r, 0, len(wire[r].content), False))
            r += 1
        elif results < len(wire) and wire[results].parts and kind != "tool_use":
            marks.append(_Block(blocks, i, k + results, 0, 0, False))
        elif kind == "text":
            text = blocks[i].get("text", "")
            marks.append(_Block(blocks, i, k + results, pos, pos + len(text), True))
            pos += len(text) + 1
        elif kind == "tool_use":
            marks.append(_Block(blocks, i, k + results, 0, None, False))


def _mark(marks: list[_Block], index: int, offset: int, control: dict[str, Any]) -> None:
    """Puts cache_control at a breakpoint (wire message index, offset code
    points into its content): on the text block that holds that point,
    split there, else on the last block that ends at or before it. Never
    after it: a cached prefix the next call does not repeat is paid for and
    never read."""
    best = None
    for n, b in enumerate(marks):
        block = b.blocks[b.index]
        if b.wire == index and b.text and b.start < offset < b.end and not block.get("citations"):
            cut = offset - b.start
            head = {**block, "text": block["text"][:cut], "cache_control": control}
            tail = {**block, "text": block["text"][cut:]}  # keeps a mark it had: it ends where the block did
            if "cache_control" not in block:
                tail.pop("cache_control", None)
            b.blocks[b.index:b.index + 1] = [head, tail]
            for m in marks:
                if m.blocks is b.blocks and m.index > b.index:
                    m.index += 1
            marks.insert(n + 1, _Block(b.blocks, b.index + 1, b.wire, offset, b.end, True))
            b.end = offset
            return
        if b.wire < index or (b.wire == index and b.end is not None and b.end <= offset):
            best = b
    if best is not None:
        best.blocks[best.index]["cache_control"] = control


def _any_cached(blocks: list[dict[str, Any]]) -> bool:
    return any("cache_control" in b for b in blocks)


def _match(outputs: Sequence[chat_pb2.ChatMessage], inputs: Sequence[chat_pb2.ChatMessage]) -> list[int | None]:
    """For each output message, the input message it repeats unchanged, or
    None. Strategies keep the history's order, so each match is the first
    equal input after the previous match."""
    where: dict[bytes, list[int]] = {}
    for j, m in enumerate(inputs):
        where.setdefault(m.SerializeToString(deterministic=True), []).append(j)
    out: list[int | None] = []
    last = -1
    for m in outputs:
        candidates = where.get(m.SerializeToString(deterministic=True), [])
        n = bisect.bisect_right(candidates, last)
        if n < len(candidates):
            last = candidates[n]
            out.append(last)
        else:
            out.append(None)
    return out


def reply_text(reply: Any) -> str:
    """The text of an LLM's reply: a str as it is; an OpenAI ChatCompletion
    (its first choice), its message, or an Anthropic Message (its text
    blocks), as dicts or the SDKs' objects."""
    if isinstance(reply, str):
        return reply
    d = as_dict(reply, "reply")
    if "choices" in d:
        choices = d.get("choices") or []
        if not choices:
            raise ValueError("reply: the completion has no choices")
        d = as_dict(as_dict(choices[0], "reply.choices[0]").get("message") or {}, "reply.choices[0].message")
    return _openai_text(d.get("content"), "reply.content", others="skip")
