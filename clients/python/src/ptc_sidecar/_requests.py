"""Requests built from the caller's arguments, and tools run for a call:
what Client and AsyncClient share."""

from __future__ import annotations

import asyncio
import difflib
import inspect
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable

from ptc_sidecar._chat import AnthropicHistory, History, read_openai
from ptc_sidecar._responses import ResponsesHistory
from ptc_sidecar._toolcall import tool_call
from ptc_sidecar._models import Memory, Summary, Tool, Turn
from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2, eval_pb2, turn_pb2, values_pb2
from ptc_sidecar._values import EDN, from_wire, to_wire

log = logging.getLogger("ptc_sidecar")

ToolsArg = Mapping[str, "Callable[..., Any] | Tool"]

LIMIT_NAMES = tuple(f.name for f in eval_pb2.Limits.DESCRIPTOR.fields)
OPTION_NAMES = tuple(f.name for f in compression_pb2.Options.DESCRIPTOR.fields)


def unknown_names(kind: str, given: Iterable[str], known: Sequence[str]) -> str | None:
    """The complaint about names in given that are not in known, with the
    closest known name for each and the whole list; None when all are known."""
    bad = [n for n in given if n not in known]
    if not bad:
        return None
    hints = []
    for n in bad:
        close = difflib.get_close_matches(n, known, n=1)
        hints.append(f"{n!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"unknown {kind} {', '.join(hints)}; the {kind}s are {', '.join(known)}"


def limits_message(limits: Mapping[str, int] | None) -> eval_pb2.Limits | None:
    """The Limits of a dict by field name; TypeError naming every valid
    name for a name that is not one."""
    if not limits:
        return None
    if not isinstance(limits, Mapping):
        raise TypeError(f"limits: want a dict of limits by name, got {type(limits).__name__}")
    problem = unknown_names("limit", limits, LIMIT_NAMES)
    if problem:
        raise TypeError(f"limits: {problem}")
    for name, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"limits: {name} must be an int, got {type(value).__name__}")
    return eval_pb2.Limits(**limits)


def memory_message(memory: Any) -> turn_pb2.Memory | None:
    """The wire Memory of what eval_turn and to_messages accept as memory:
    a Memory, a Turn (its memory) or None."""
    if memory is None:
        return None
    if isinstance(memory, Memory):
        return memory._proto
    if isinstance(memory, Turn):
        if memory.memory is None:
            raise ValueError("memory: this Turn carries no memory (a Run keeps only its newest memory): pass "
                             "run.memory, or the Turn that eval_turn returned")
        return memory.memory._proto
    if isinstance(memory, turn_pb2.Memory):
        return memory
    raise TypeError(f"memory: want a Memory (turn.memory) or a Turn, got {type(memory).__name__}")


def tool_specs(tools: ToolsArg | Iterable[str] | None) -> list[values_pb2.ToolSpec]:
    """The ToolSpecs of a tools dict (or of bare tool names)."""
    if tools is None:
        return []
    if isinstance(tools, Mapping):
        out = []
        for name, t in tools.items():
            if not isinstance(t, Tool) and not callable(t):
                raise TypeError(f"tools[{name!r}]: want a function or a Tool, got {type(t).__name__}")
            out.append(values_pb2.ToolSpec(name=name, signature=t.signature, description=t.description)
                       if isinstance(t, Tool) else values_pb2.ToolSpec(name=name))
        return out
    if isinstance(tools, str):
        raise TypeError("tools: want a dict of tools by name (or a list of names), got a str")
    return [values_pb2.ToolSpec(name=name) for name in tools]


def options_message(options: Mapping[str, Any]) -> compression_pb2.Options:
    """The Options of to_messages' keyword arguments, by their proto names."""
    problem = unknown_names("option", options, OPTION_NAMES)
    if problem:
        raise TypeError(problem)
    fields = dict(options)
    if "tools" in fields:
        fields["tools"] = tool_specs(fields["tools"])
    if fields.get("data") is not None:
        fields["data"] = to_wire(fields["data"])
    else:
        fields.pop("data", None)
    try:
        return compression_pb2.Options(**{k: v for k, v in fields.items() if v is not None})
    except (TypeError, ValueError) as e:
        raise TypeError(f"options: {e}") from None


def eval_request(program: str | None, raw_response: str | None, tools: ToolsArg, memory: Any, data: Any,
                 turn_number: int, limits: Mapping[str, int] | None,
                 previous_results: Sequence[Any], program_call: Any = None) -> eval_pb2.EvalTurnRequest:
    """An EvalTurnRequest from eval_turn's arguments."""
    if program is not None and program_call is not None:
        raise ValueError("program_call: pass program or program_call, not both: the call carries the program")
    if program is not None and not isinstance(program, str):
        raise TypeError(f"program: want a str, got {type(program).__name__}")
    if raw_response is not None and not isinstance(raw_response, str):
        raise TypeError(f"raw_response: want a str (the reply's text), got {type(raw_response).__name__}")
    request = eval_pb2.EvalTurnRequest(program=program or "", raw_response=raw_response or "",
                                       tools=tool_specs(tools), turn_number=turn_number)
    if program_call is not None:
        request.program_call.CopyFrom(tool_call(program_call))
    prelude = memory_message(memory)
    if prelude is not None:
        request.prelude.CopyFrom(prelude)
    if data is not None:
        request.data.CopyFrom(to_wire(data))
    wire_limits = limits_message(limits)
    if wire_limits is not None:
        request.limits.CopyFrom(wire_limits)
    for previous in previous_results:
        request.previous_results.append(previous._wire.result if isinstance(previous, Turn) else
                                        previous if isinstance(previous, values_pb2.Value) else to_wire(previous))
    return request


def summary_message(summary: Any) -> compression_pb2.Summary | None:
    """The wire Summary of to_messages' summary argument: a Summary, its
    to_dict() form, or None."""
    if summary is None:
        return None
    if isinstance(summary, Mapping):
        summary = Summary.from_dict(summary)
    if not isinstance(summary, Summary):
        raise TypeError(f"summary: want a Summary (Messages.summary), its to_dict() or None, "
                        f"got {type(summary).__name__}")
    return summary.wire()


def summariser_text(text: Any) -> str:
    """What a summariser returned, checked: the summary's text."""
    if not isinstance(text, str):
        raise TypeError(f"summariser: must return the summary as a str, returned {type(text).__name__}")
    return text


def read_history(history: Any) -> History:
    """The wire form of a chat log: OpenAI messages, or what from_anthropic
    or from_responses made."""
    if history is None:
        return History()
    if isinstance(history, (AnthropicHistory, ResponsesHistory)):
        return history._history
    return read_openai(history, "history")


def to_messages_request(turns: Sequence[Turn], memory: Any, prior: turn_pb2.Memory | None, history: History,
                        options: Mapping[str, Any]) -> compression_pb2.ToMessagesRequest:
    """A ToMessagesRequest. Past turns go without their memory snapshots,
    which no strategy reads; only the second-to-last turn carries its own
    (prior, when given: the memory the last turn started from), from which
    the sidecar rebuilds the previous call's prompt to find the stable
    prefix. The request grows with the run, not with its square."""
    request = compression_pb2.ToMessagesRequest(options=options_message(options))
    for i, t in enumerate(turns):
        if not isinstance(t, Turn):
            raise TypeError(f"turns[{i}]: want a Turn, got {type(t).__name__}")
        if i == len(turns) - 2 and prior is not None:
            wire = request.turns.add()
            wire.CopyFrom(t._wire)
            wire.memory.SetInParent()  # set even when empty: the sidecar reads "no memory" as unknown
            wire.memory.MergeFrom(prior)
        else:
            request.turns.append(t.wire(with_memory=i == len(turns) - 2))
    wire_memory = memory_message(memory)
    if wire_memory is None and turns and turns[-1].memory is not None:
        wire_memory = turns[-1].memory._proto
    if wire_memory is not None:
        request.memory.CopyFrom(wire_memory)
    request.history.extend(history.wire)
    return request


# ---- tools ------------------------------------------------------------


def _resolve(tools: ToolsArg, call: turn_pb2.ToolCall) -> tuple[Callable[..., Any], Any]:
    tool = tools.get(call.name)
    if tool is None:
        raise LookupError(f"no tool named {call.name!r} on the caller's side")
    fn = tool.fn if isinstance(tool, Tool) else tool
    args = from_wire(call.args)
    if isinstance(args, EDN):
        raise ValueError(f"the arguments {args.text} have no JSON form")
    return fn, args


def _invoke(fn: Callable[..., Any], args: Any) -> Any:
    """Calls a tool the way the program called it: a map's entries as
    keyword arguments, no arguments as none, anything else as one."""
    if args is None:
        return fn()
    if isinstance(args, dict):
        return fn(**args)
    return fn(args)


def _answer(call: turn_pb2.ToolCall, started: float, result: Any = None, error: BaseException | None = None
            ) -> eval_pb2.ToolResult:
    answer = eval_pb2.ToolResult(index=call.index, name=call.name, args=call.args)
    if error is None:
        try:
            answer.result.CopyFrom(to_wire(result))
        except (TypeError, ValueError) as e:
            error = e
    if error is not None:
        answer.ClearField("result")
        answer.error = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    answer.duration_ms = int((time.monotonic() - started) * 1000)
    log.debug("tool %s (call %d): %s in %d ms", call.name, call.index, "error" if answer.error else "ok",
              answer.duration_ms)
    return answer


def run_tool(tools: ToolsArg, call: turn_pb2.ToolCall) -> eval_pb2.ToolResult:
    """Runs the tool a call names, here on the caller's thread, and returns
    the answer. An async tool runs to completion on an event loop of its
    own. A missing tool, an exception, or a result JSON cannot carry is a
    tool error, which the program sees (and the LLM reads) like any other."""
    started = time.monotonic()
    try:
        fn, args = _resolve(tools, call)
        result = _invoke(fn, args)
        if inspect.isawaitable(result):
            result = _wait(result)
    except Exception as exc:  # the tool's failure is the program's to handle
        return _answer(call, started, error=exc)
    return _answer(call, started, result)


def _wait(awaitable: Any) -> Any:
    async def wait() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    # The sync Client called from inside an event loop: that loop is
    # blocked in this call, so the tool gets a loop on a thread of its own.
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(wait())
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    thread = threading.Thread(target=target, name="ptc_sidecar-async-tool")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


async def run_tool_async(tools: ToolsArg, call: turn_pb2.ToolCall) -> eval_pb2.ToolResult:
    """Runs the tool a call names: an async tool is awaited on the running
    loop, a plain function runs in a worker thread (asyncio.to_thread) so
    that it does not block the loop."""
    started = time.monotonic()
    try:
        fn, args = _resolve(tools, call)
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):
            result = await _invoke(fn, args)
        else:
            result = await asyncio.to_thread(_invoke, fn, args)
            if inspect.isawaitable(result):
                result = await result
    except Exception as exc:  # the tool's failure is the program's to handle
        return _answer(call, started, error=exc)
    return _answer(call, started, result)
