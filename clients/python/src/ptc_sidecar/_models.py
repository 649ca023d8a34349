"""What calls return: turns, memory, prompts, strategies.

Each record keeps the wire message it came from, so that what goes back
to the sidecar is exactly what it sent (a value's EDN text, the order of a
map's keys), and each converts to plain JSON and back (to_dict and
from_dict, in the protobuf JSON mapping with the proto's field names).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from google.protobuf import json_format
from google.protobuf.message import Message

from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2, turn_pb2
from ptc_sidecar._responses import to_responses
from ptc_sidecar._toolcall import anthropic_tools, openai_tools, responses_tools
from ptc_sidecar._values import from_wire


def to_plain(message: Message) -> dict[str, Any]:
    """A wire message as plain JSON data, by the protobuf JSON mapping with
    the proto's field names (int64 fields as strings, defaults left out):
    the form the TypeScript client writes too."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def from_plain(data: Any, message: Message, what: str) -> Message:
    """Fills message from plain JSON data written by to_plain (either
    client's); fields a newer client added are skipped. Raises ValueError
    naming what when the data does not fit."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{what}: want a JSON object, got {type(data).__name__}")
    try:
        return json_format.ParseDict(data, message, ignore_unknown_fields=True)
    except json_format.ParseError as e:
        raise ValueError(f"{what}: {e}") from None


@dataclass(frozen=True)
class Tool:
    """A tool with the signature and description the LLM is shown.

    fn may be a plain function or an async one. A bare callable in a tools
    dict is a tool with neither signature nor description.
    """

    fn: Callable[..., Any]
    signature: str = ""
    description: str = ""


@dataclass(frozen=True)
class TurnError:
    """Why a turn failed, written for the LLM."""

    type: str
    message: str
    hint: str


@dataclass(frozen=True)
class TurnWarning:
    """Something the sidecar forgave in a turn that ran anyway (a stray
    closing bracket, code blocks joined), written for the LLM: the turn
    strategies show the last turn's warnings on the next prompt."""

    type: str
    message: str


@dataclass(frozen=True)
class ToolCall:
    """One tool call a program made, with native args and result."""

    index: int
    name: str
    args: Any
    result: Any
    error: str
    duration_ms: int


@dataclass(frozen=True)
class Binding:
    """One name a program defined: value is the EDN object of its text (a
    function's is its source); params, docstring and return_type describe
    a function."""

    name: str
    value: Any
    is_fn: bool
    params: tuple[str, ...]
    docstring: str
    return_type: str
    turn: int


class Memory:
    """What the run's programs have defined so far, as the sidecar sent it.

    Opaque to the agent: pass it back as the next eval_turn's memory (a
    Run does this itself). bindings lists the names for inspection;
    to_dict and Memory.from_dict keep it as plain JSON.
    """

    __slots__ = ("_proto",)

    def __init__(self, proto: turn_pb2.Memory | None = None):
        self._proto = proto if proto is not None else turn_pb2.Memory()

    @property
    def bindings(self) -> tuple[Binding, ...]:
        return tuple(Binding(b.name, from_wire(b.value), b.is_fn, tuple(b.params), b.docstring, b.return_type, b.turn)
                     for b in self._proto.bindings)

    @property
    def names(self) -> list[str]:
        """The defined names, in the order each was first defined."""
        return [b.name for b in self._proto.bindings]

    def to_dict(self) -> dict[str, Any]:
        return to_plain(self._proto)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Memory":
        return cls(from_plain(data, turn_pb2.Memory(), "memory"))

    def __len__(self) -> int:
        return len(self._proto.bindings)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Memory) and self._proto == other._proto

    def __hash__(self) -> int:
        return hash(self._proto.SerializeToString(deterministic=True))

    def __repr__(self) -> str:
        return f"Memory({', '.join(self.names)})"


@dataclass(frozen=True, eq=False)
class Turn:
    """The record of one evaluated program.

    result, and each tool call's args and result, are native values (dicts,
    lists, str, int, float, bool, None; an EDN object for a value with no
    JSON form). memory is what the program left defined: pass it to the
    next eval_turn, or let a Run do it. A Run keeps only its newest memory,
    so the turns in run.turns have memory None.
    """

    number: int
    program: str
    raw_response: str
    result: Any
    success: bool
    error: TurnError | None
    prints: list[str]
    tool_calls: list[ToolCall]
    defined: list[str]
    returned: bool
    failed: bool
    duration_ms: int
    warnings: list[TurnWarning]
    memory: Memory | None = field(repr=False)
    # The wire Turn without its memory, sent back as it came.
    _wire: turn_pb2.Turn = field(repr=False)

    @classmethod
    def from_proto(cls, t: turn_pb2.Turn) -> "Turn":
        """The Turn of a wire Turn (its memory included when set)."""
        wire = turn_pb2.Turn()
        wire.CopyFrom(t)
        wire.ClearField("memory")
        memory = None
        if t.HasField("memory"):
            memory = Memory(turn_pb2.Memory())
            memory._proto.CopyFrom(t.memory)
        error = TurnError(t.error.type, t.error.message, t.error.hint) if t.HasField("error") else None
        calls = [ToolCall(c.index, c.name, from_wire(c.args), from_wire(c.result), c.error, c.duration_ms)
                 for c in t.tool_calls]
        return cls(number=t.number, program=t.program, raw_response=t.raw_response, result=from_wire(t.result),
                   success=t.success, error=error, prints=list(t.prints), tool_calls=calls,
                   defined=list(t.defined), returned=t.returned, failed=t.failed, duration_ms=t.duration_ms,
                   warnings=[TurnWarning(w.type, w.message) for w in t.warnings], memory=memory, _wire=wire)

    def without_memory(self) -> "Turn":
        """This turn with memory None: what a run keeps of past turns."""
        if self.memory is None:
            return self
        return Turn(**{**self.__dict__, "memory": None})

    def wire(self, with_memory: bool) -> turn_pb2.Turn:
        """The wire Turn, with its memory only when asked: ToMessages needs
        one snapshot at most (see to_messages), and the rest would make a
        long run's requests grow with the square of its length."""
        if not with_memory or self.memory is None:
            return self._wire
        out = turn_pb2.Turn()
        out.CopyFrom(self._wire)
        out.memory.SetInParent()  # set even when empty: an empty memory is not a missing one
        out.memory.MergeFrom(self.memory._proto)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The turn as plain JSON data, memory included when set."""
        return to_plain(self.wire(True))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Turn":
        return cls.from_proto(from_plain(data, turn_pb2.Turn(), "turn"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Turn) and self.wire(True) == other.wire(True)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Messages:
    """What to send the LLM next.

    messages are dicts in the OpenAI Chat Completions shape (role, content,
    and name, tool_calls or tool_call_id where set), ready for
    chat.completions.create. A history message the strategy left as it was
    comes back as the caller gave it (a model object as its model_dump);
    an assistant message with tool calls and no text has content None.

    stats says what the compression did, by the CompressionStats field
    names (numbers as numbers; cache_breakpoint a dict or None).

    nudge is the synthetic nudge a chat strategy added when the history
    had no user message to open the prompt with, else None: send it, but do
    not store it in the history as if the user had written it.

    to_anthropic() gives the same prompt as Anthropic Messages parameters.
    """

    messages: list[dict[str, Any]]
    stats: dict[str, Any]
    # How to rebuild the prompt for another provider (see _chat).
    _prompt: Any = field(repr=False, compare=False, default=None)
    # Strategies summarize and summarize-turns: the summary these messages
    # hold (pass it as the next call's summary), and the summary the
    # sidecar asks for when no summariser answered it.
    summary: "Summary | None" = None
    summary_request: "SummaryRequest | None" = None

    @property
    def nudge(self) -> dict[str, Any] | None:
        if not self.stats.get("synthetic_nudge") or self._prompt is None:
            return None
        k = self._prompt.nudge_index()
        return None if k is None else self.messages[k]

    def to_responses(self) -> "Any":
        """The prompt as OpenAI Responses API parameters: .instructions (the
        system prompt) and .input (the items; .params() for
        responses.create(**...)). Items read with from_responses that the
        strategy kept come back whole (reasoning with its encrypted_content
        next to what it preceded, compaction items); a function_call_output
        whose call is not sent is left out."""
        return to_responses(self._prompt)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """With program_form="tool_call": the program tool run_ptc_lisp as
        Chat Completions tools, to pass with messages; [] otherwise."""
        return openai_tools(self.stats.get("program_tool"))

    @property
    def anthropic_tools(self) -> list[dict[str, Any]]:
        """tools as Anthropic Messages tools (name, description, input_schema)."""
        return anthropic_tools(self.stats.get("program_tool"))

    @property
    def responses_tools(self) -> list[dict[str, Any]]:
        """tools as OpenAI Responses API (and Agents SDK) function tools."""
        return responses_tools(self.stats.get("program_tool"))

    def to_anthropic(self, *, cache: bool = True, ttl: str | None = None) -> "Any":
        """The prompt as Anthropic Messages parameters: .system and
        .messages (and .params(), a dict for messages.create(**...)).

        With cache (the default), cache_control marks where the sidecar
        says the prompt's stable prefix ends (stats cache_breakpoint: what
        the previous call wrote, to read it) and where the part the next
        call will repeat ends (next_cache_breakpoint: to write it), each
        splitting a text block there if need be, so that the provider
        caches what is sent again and nothing more. ttl ("5m" or "1h") sets
        the cache's lifetime; price it with the pricing option
        ("anthropic-1h").
        """
        points = []
        if cache:
            for name in ("cache_breakpoint", "next_cache_breakpoint"):
                point = self.stats.get(name)
                if point is not None and point not in points:
                    points.append(point)
        return self._prompt.to_anthropic(points, ttl)


@dataclass(frozen=True)
class Summary:
    """A summary the caller's model wrote for a SummaryRequest (strategies
    summarize and summarize-turns): its text, and through, asked_at and
    digest copied from the request, by which the sidecar checks that it is
    sent with the messages it covers. Pass it as to_messages(summary=...);
    to_dict and from_dict save it."""

    text: str
    through: int
    asked_at: int
    digest: str

    def wire(self) -> compression_pb2.Summary:
        return compression_pb2.Summary(text=self.text, through=self.through, asked_at=self.asked_at,
                                       digest=self.digest)

    def to_dict(self) -> dict[str, Any]:
        return to_plain(self.wire())

    @classmethod
    def from_wire(cls, wire: compression_pb2.Summary) -> "Summary":
        return cls(wire.text, wire.through, wire.asked_at, wire.digest)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Summary":
        return cls.from_wire(from_plain(data, compression_pb2.Summary(), "summary"))


@dataclass(frozen=True)
class SummaryRequest:
    """The summary the sidecar asks the caller's model for: send messages
    (OpenAI message dicts: a prompt an earlier call sent, then the
    instruction) to the model, and the answer back as summary(text)."""

    messages: list[dict[str, Any]]
    through: int
    asked_at: int
    digest: str

    def summary(self, text: str) -> Summary:
        """The Summary that sends text back for this request."""
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"a summary is the text the model wrote (a non-empty str), got {text!r:.80}")
        return Summary(text, self.through, self.asked_at, self.digest)


@dataclass(frozen=True)
class StrategyOption:
    """One option a strategy honours."""

    name: str
    default_value: str
    description: str


@dataclass(frozen=True)
class Strategy:
    """A compression strategy: its name, what it reads ("turns" or
    "history") and the options it honours."""

    name: str
    description: str
    input: str
    options: list[StrategyOption]


def stats_dict(message: Message) -> dict[str, Any]:
    """Every field of a CompressionStats by name, set or not; a message
    field as a dict of its fields, or None when unset."""
    out: dict[str, Any] = {}
    for f in message.DESCRIPTOR.fields:
        if f.message_type is not None and f.label != f.LABEL_REPEATED:
            out[f.name] = stats_dict(getattr(message, f.name)) if message.HasField(f.name) else None
        elif f.label == f.LABEL_REPEATED:
            out[f.name] = list(getattr(message, f.name))
        else:
            out[f.name] = getattr(message, f.name)
    return out
