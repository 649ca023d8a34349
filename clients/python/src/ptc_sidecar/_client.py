"""The Client: whole turns with tools run in Python, and compressed history."""

from __future__ import annotations

import json
import queue
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence

import grpc

from ptc_sidecar._errors import SidecarError
from ptc_sidecar._pb.ptcsidecar.v1 import (
    chat_pb2,
    compression_pb2,
    eval_pb2,
    service_pb2_grpc,
    strategies_pb2,
    turn_pb2,
    values_pb2,
)
from ptc_sidecar._values import EDN, from_wire, to_wire

# Responses carry every value twice (EDN and JSON): room beyond gRPC's
# 4 MiB default receive limit.
DEFAULT_MAX_MESSAGE_BYTES = 64 << 20


@dataclass(frozen=True)
class Tool:
    """A tool with the signature and description the LLM is shown.

    A plain callable in a tools dict is a tool with neither.
    """

    fn: Callable[..., Any]
    signature: str = ""
    description: str = ""


ToolsArg = Mapping[str, "Callable[..., Any] | Tool"]


@dataclass(frozen=True)
class TurnError:
    """Why a turn failed, written for the LLM."""

    type: str
    message: str
    hint: str


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
class Turn:
    """The record of one evaluated program.

    result, and each tool call's args and result, are native values (dicts,
    lists, str, int, float, bool, None; an EDN object for a value with no
    JSON form). memory is opaque: pass it back as the next eval_turn's
    memory. proto is the wire Turn that to_messages sends back.
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
    memory: turn_pb2.Memory = field(repr=False)
    proto: turn_pb2.Turn = field(repr=False)

    @classmethod
    def from_proto(cls, t: turn_pb2.Turn) -> "Turn":
        """The Turn of a wire Turn."""
        error = TurnError(t.error.type, t.error.message, t.error.hint) if t.HasField("error") else None
        calls = [ToolCall(c.index, c.name, from_wire(c.args), from_wire(c.result), c.error, c.duration_ms)
                 for c in t.tool_calls]
        return cls(number=t.number, program=t.program, raw_response=t.raw_response, result=from_wire(t.result),
                   success=t.success, error=error, prints=list(t.prints), tool_calls=calls,
                   defined=list(t.defined), returned=t.returned, failed=t.failed, duration_ms=t.duration_ms,
                   memory=t.memory, proto=t)


@dataclass(frozen=True)
class Messages:
    """What to send the LLM next.

    messages are plain dicts in the chat-completions shape (role, content,
    and tool_calls or tool_call_id where set); stats says what the
    compression did, by the CompressionStats field names.
    """

    messages: list[dict[str, Any]]
    stats: dict[str, Any]


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


class Client:
    """A connection to ptc-sidecar.

    Usable as a context manager, which closes the channel on exit. One
    Client may be shared by threads: it holds no state between calls.

        with ptc_sidecar.Client("127.0.0.1:50051") as client:
            turn = client.eval_turn("(tool/add {:a 1 :b 2})", tools={"add": lambda a, b: a + b})
    """

    def __init__(self, target: str, *, timeout: float | None = 30.0,
                 max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 credentials: grpc.ChannelCredentials | None = None):
        """Opens a channel to target ("host:port").

        timeout bounds every RPC in seconds (None: no deadline); a replayed
        turn makes one RPC per tool call. credentials makes the channel TLS.
        """
        options = [("grpc.max_receive_message_length", max_message_bytes),
                   ("grpc.max_send_message_length", max_message_bytes)]
        if credentials is None:
            self._channel = grpc.insecure_channel(target, options=options)
        else:
            self._channel = grpc.secure_channel(target, credentials, options=options)
        self._stub = service_pb2_grpc.SidecarServiceStub(self._channel)
        self._timeout = timeout

    def close(self) -> None:
        """Closes the channel."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def eval_turn(self, program: str | None = None, *, raw_response: str | None = None,
                  tools: ToolsArg | None = None, memory: turn_pb2.Memory | None = None,
                  data: Any = None, turn_number: int = 1,
                  protocol: Literal["replay", "stream"] = "replay",
                  limits: Mapping[str, int] | None = None,
                  previous_results: Sequence[Any] = ()) -> Turn:
        """Evaluates one program, running its tool calls here, and returns the Turn.

        program is PTC-Lisp; or pass raw_response, the LLM's reply, and the
        sidecar extracts the program from it. tools maps a tool's name to a
        callable (or a Tool) that takes the call's arguments as keyword
        arguments; what it returns goes back to the program (as JSON; an
        EDN object as its text), and an exception it raises becomes a tool
        error the program sees. memory is the previous Turn's memory. data
        is the input the program reads as data/..., a dict. limits lowers
        the sandbox budgets (the Limits field names, e.g. max_steps).
        previous_results, newest first, are what *1, *2 and *3 read: Turns
        (their result goes back exactly as it came) or native values.

        protocol "replay" uses unary calls (one more per tool call, any
        replica can answer each); "stream" uses one EvalTurnStream.

        A program that fails is a Turn with success False, not an
        exception. Raises SidecarError when the sidecar refuses the request.
        """
        if protocol not in ("replay", "stream"):
            raise ValueError(f'protocol must be "replay" or "stream", got {protocol!r}')
        tools = dict(tools or {})
        request = eval_pb2.EvalTurnRequest(program=program or "", raw_response=raw_response or "",
                                           tools=tool_specs(tools), turn_number=turn_number)
        if memory is not None:
            request.prelude.CopyFrom(memory)
        if data is not None:
            request.data.CopyFrom(to_wire(data))
        if limits:
            request.limits.CopyFrom(eval_pb2.Limits(**limits))
        for previous in previous_results:
            request.previous_results.append(previous.proto.result if isinstance(previous, Turn) else to_wire(previous))
        try:
            if protocol == "stream":
                return Turn.from_proto(self._stream(request, tools))
            return Turn.from_proto(self._replay(request, tools))
        except grpc.RpcError as err:
            raise SidecarError.from_rpc_error(err) from None

    def _replay(self, request: eval_pb2.EvalTurnRequest, tools: ToolsArg) -> turn_pb2.Turn:
        # Each round answers one more call and the server's tool-call limit
        # fails a program that calls too often, so this loop ends.
        while True:
            response = self._stub.EvalTurn(request, timeout=self._timeout)
            if response.HasField("turn"):
                return response.turn
            for call in response.pending.calls:
                request.tool_results.append(run_tool(tools, call))

    def _stream(self, request: eval_pb2.EvalTurnRequest, tools: ToolsArg) -> turn_pb2.Turn:
        answers: queue.SimpleQueue[eval_pb2.ToolResult | None] = queue.SimpleQueue()

        def outgoing() -> Iterable[eval_pb2.EvalTurnStreamRequest]:
            # grpc reads this on its own thread: the request first, then one
            # answer per tool call, until None closes our side.
            yield eval_pb2.EvalTurnStreamRequest(start=request)
            while (answer := answers.get()) is not None:
                yield eval_pb2.EvalTurnStreamRequest(tool_result=answer)

        responses = self._stub.EvalTurnStream(outgoing(), timeout=self._timeout)
        turn = None
        try:
            for message in responses:
                if message.HasField("tool_call"):
                    answers.put(run_tool(tools, message.tool_call))
                elif message.HasField("turn"):
                    turn = message.turn
                    answers.put(None)
        finally:
            answers.put(None)  # ends the sender whatever happened
        if turn is None:
            raise SidecarError(grpc.StatusCode.INTERNAL, "EvalTurnStream ended without a turn")
        return turn

    def to_messages(self, turns: Sequence[Turn], memory: turn_pb2.Memory | None = None, *,
                    history: Sequence[Mapping[str, Any]] | None = None, **options: Any) -> Messages:
        """The messages to send the LLM next, compressed from the turns so far.

        turns are Turns eval_turn returned, in order. memory defaults to the
        last turn's. history is a chat agent's message log (chat-completions
        dicts) for the strategies that read history. options are the
        Options fields by their proto names: strategy, mission,
        system_prompt, tools (a tools dict as eval_turn takes, or a list of
        names), data (a native value), signature, max_turns, turns_left, ...
        Raises SidecarError on a bad request, TypeError on an unknown option.
        """
        if memory is None and turns:
            memory = turns[-1].memory
        request = compression_pb2.ToMessagesRequest(turns=[t.proto for t in turns], options=_options(options))
        if memory is not None:
            request.memory.CopyFrom(memory)
        for m in history or ():
            request.history.append(_chat_message(m))
        try:
            response = self._stub.ToMessages(request, timeout=self._timeout)
        except grpc.RpcError as err:
            raise SidecarError.from_rpc_error(err) from None
        return Messages([chat_dict(m) for m in response.messages], _fields_dict(response.stats))

    def list_strategies(self) -> list[Strategy]:
        """The compression strategies the sidecar offers."""
        try:
            response = self._stub.ListStrategies(strategies_pb2.ListStrategiesRequest(), timeout=self._timeout)
        except grpc.RpcError as err:
            raise SidecarError.from_rpc_error(err) from None
        return [Strategy(s.name, s.description, s.input,
                         [StrategyOption(o.name, o.default_value, o.description) for o in s.options])
                for s in response.strategies]


def tool_specs(tools: ToolsArg | Iterable[str]) -> list[values_pb2.ToolSpec]:
    """The ToolSpecs of a tools dict (or of bare tool names)."""
    if isinstance(tools, Mapping):
        return [values_pb2.ToolSpec(name=name, signature=t.signature, description=t.description)
                if isinstance(t, Tool) else values_pb2.ToolSpec(name=name)
                for name, t in tools.items()]
    return [values_pb2.ToolSpec(name=name) for name in tools]


def run_tool(tools: ToolsArg, call: turn_pb2.ToolCall) -> eval_pb2.ToolResult:
    """Runs the tool a call names and returns the answer to send back.

    Arguments that are a map become keyword arguments; no arguments, none.
    A missing tool, an exception, or a result JSON cannot carry is a tool
    error, which the program sees (and the LLM reads) like any other.
    """
    answer = eval_pb2.ToolResult(index=call.index, name=call.name, args=call.args)
    started = time.monotonic()
    try:
        tool = tools.get(call.name)
        if tool is None:
            raise LookupError(f"no tool named {call.name!r} on the caller's side")
        fn = tool.fn if isinstance(tool, Tool) else tool
        args = from_wire(call.args)
        if isinstance(args, EDN):
            raise ValueError(f"the arguments {args.text} have no JSON form")
        if args is None:
            result = fn()
        elif isinstance(args, dict):
            result = fn(**args)
        else:
            result = fn(args)
        answer.result.CopyFrom(to_wire(result))
    except Exception as exc:  # the tool's failure is the program's to handle
        answer.ClearField("result")
        answer.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    answer.duration_ms = int((time.monotonic() - started) * 1000)
    return answer


def chat_dict(m: chat_pb2.ChatMessage) -> dict[str, Any]:
    """A ChatMessage in the chat-completions shape."""
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": c.name, "arguments": c.arguments}}
                             for c in m.tool_calls]
    if m.tool_call_id:
        out["tool_call_id"] = m.tool_call_id
    return out


def _chat_message(m: Mapping[str, Any]) -> chat_pb2.ChatMessage:
    calls = [chat_pb2.ChatToolCall(id=c.get("id", ""), name=c.get("function", c).get("name", ""),
                                   arguments=c.get("function", c).get("arguments", ""))
             for c in m.get("tool_calls") or ()]
    return chat_pb2.ChatMessage(role=m.get("role", ""), content=m.get("content") or "",
                                source=m.get("source", ""), sender_id=m.get("sender_id", ""),
                                tool_calls=calls, tool_call_id=m.get("tool_call_id", ""),
                                reasoning=m.get("reasoning", ""))


def _options(options: Mapping[str, Any]) -> compression_pb2.Options:
    fields = dict(options)
    known = compression_pb2.Options.DESCRIPTOR.fields_by_name
    unknown = sorted(set(fields) - set(known))
    if unknown:
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; Options has {', '.join(sorted(known))}")
    if "tools" in fields:
        fields["tools"] = tool_specs(fields["tools"])
    if "data" in fields:
        fields["data"] = to_wire(fields["data"])
    return compression_pb2.Options(**fields)


def _fields_dict(message: Any) -> dict[str, Any]:
    """Every field of a flat message by name, set or not."""
    return {f.name: getattr(message, f.name) for f in message.DESCRIPTOR.fields}
