"""Run and AsyncRun: an agent's loop state in one object that can be saved.

The sidecar keeps nothing between calls, so a run's state is all on the
caller's side: the options it was started with, its turns, the memory its
programs built, and the results *1, *2 and *3 read. A run holds them,
updates them with each step, and writes them as plain JSON (to_json) that
from_json reads back, in this process or another.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ptc_sidecar._base import NOT_GIVEN, NotGiven
from ptc_sidecar._chat import History
from ptc_sidecar._errors import RunFailedError, RunFinishedError, SidecarError
from ptc_sidecar._models import Memory, Messages, Summary, Tool, Turn, from_plain, to_plain
from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2, eval_pb2, turn_pb2, values_pb2
from ptc_sidecar._toolcall import program_call
from ptc_sidecar._requests import ToolsArg, limits_message, options_message, to_messages_request, tool_specs

if TYPE_CHECKING:
    from ptc_sidecar._async_client import AsyncClient
    from ptc_sidecar._client import Client

# The version of the saved form; from_json refuses others.
RUN_VERSION = 1
# *1, *2 and *3.
_PREVIOUS = 3
# The strategy a run with a summariser compresses with.
SUMMARIZE_TURNS = "summarize-turns"


def new_key() -> str:
    """A run object's id, by which a client balancing "by_run" keeps its
    calls on one replica of a pool. Not saved: a resumed run picks its
    replica afresh, whose memo then reads the run once."""
    return secrets.token_hex(8)


def check_summariser(summariser: Any, strategy: str) -> str:
    """The strategy of a run with a summariser: summarize-turns, the one
    that asks for summaries of a run's turns."""
    if not callable(summariser):
        raise TypeError(f"summariser: want a function of the summary request's messages, got "
                        f"{type(summariser).__name__}")
    if strategy not in ("", SUMMARIZE_TURNS):
        raise ValueError(f'summariser: a run summarises with strategy "{SUMMARIZE_TURNS}", not {strategy!r}; '
                         "leave strategy unset")
    return SUMMARIZE_TURNS


class _RunState:
    """What Run and AsyncRun share: the state and the requests built from it."""

    def __init__(self, client: Any, *, mission: str = "", tools: ToolsArg | None = None, data: Any = None,
                 limits: Mapping[str, int] | None = None, strategy: str = "", max_turns: int = 5,
                 protocol: str = "replay", summariser: Callable[[list[dict[str, Any]]], Any] | None = None,
                 **options: Any):
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
            raise ValueError(f"max_turns must be a positive int, got {max_turns!r}")
        if protocol not in ("replay", "stream"):
            raise ValueError(f'protocol must be "replay" or "stream", got {protocol!r}')
        if "turns_left" in options:
            raise TypeError("turns_left: a run counts its turns itself; set max_turns")
        if summariser is not None:
            strategy = check_summariser(summariser, strategy)
        self._client = client
        self._key = new_key()
        self._tools: dict[str, Any] = dict(tools or {})
        self._options = options_message({**options, "mission": mission, "strategy": strategy,
                                         "tools": self._tools, "data": data, "max_turns": max_turns})
        self._limits = limits_message(limits)
        self._protocol = protocol
        self._turns: list[Turn] = []
        self._memory: turn_pb2.Memory | None = None
        self._prior: turn_pb2.Memory | None = None  # the memory the last turn started from
        self._previous: list[values_pb2.Value] = []  # the last successful results, newest first
        self._summariser = summariser
        self._summary: Summary | None = None  # the summary the prompt holds (summarize-turns)

    # ---- state --------------------------------------------------------

    @property
    def turns(self) -> list[Turn]:
        """The turns so far, oldest first (without memory; see memory)."""
        return list(self._turns)

    @property
    def memory(self) -> Memory | None:
        """What the programs have defined so far; None before the first turn."""
        return Memory(self._memory) if self._memory is not None else None

    @property
    def turn_number(self) -> int:
        """The number the next turn gets, from 1."""
        return len(self._turns) + 1

    @property
    def max_turns(self) -> int:
        return self._options.max_turns

    @property
    def status(self) -> str:
        """"running", "returned" (a program called return), "failed" (one
        called fail) or "out_of_turns" (max_turns used without either)."""
        if self._turns and self._turns[-1].returned:
            return "returned"
        if self._turns and self._turns[-1].failed:
            return "failed"
        if len(self._turns) >= self.max_turns:
            return "out_of_turns"
        return "running"

    @property
    def done(self) -> bool:
        """Whether the run has ended; step and next_messages refuse then."""
        return self.status != "running"

    @property
    def result(self) -> Any:
        """The value the run returned. Raises RunFailedError when it
        failed or ran out of turns, and SidecarError while it runs."""
        status = self.status
        if status == "returned":
            return self._turns[-1].result
        last = self._turns[-1] if self._turns else None
        if status == "failed":
            raise RunFailedError(f"the run failed on turn {last.number}: its program called (fail ...) with "
                                 f"{last.result!r}", status=status, turn=last)
        if status == "out_of_turns":
            how = f"failed ({last.error.type}: {last.error.message})" if last.error else "did not return"
            raise RunFailedError(f"the run used its {self.max_turns} turns without returning; the last one {how}. "
                                 "Start a run with more max_turns, or read run.turns to see why",
                                 status=status, turn=last)
        raise SidecarError(f"the run has not finished (next is turn {self.turn_number}): step it until run.done")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status}, {len(self._turns)} of {self.max_turns} turns>"

    # ---- requests -----------------------------------------------------

    def _check_running(self, what: str) -> None:
        if self.done:
            raise RunFinishedError(f"{what}: the run has ended ({self.status} after {len(self._turns)} turns); "
                                   "start a new run to go on")

    def _to_messages_request(self) -> compression_pb2.ToMessagesRequest:
        self._check_running("next_messages")
        request = to_messages_request(self._turns, None, self._prior, History(), {})
        request.options.CopyFrom(self._options)
        if self._memory is not None:
            request.memory.CopyFrom(self._memory)
        if self._summary is not None:
            request.summary.CopyFrom(self._summary.wire())
        return request

    def _prompted(self, prompt: Messages) -> Messages:
        if prompt.summary is not None:
            self._summary = prompt.summary
        return prompt

    @property
    def summary(self) -> Summary | None:
        """The summary the prompt holds in place of the run's first turns
        (a run with a summariser), or None."""
        return self._summary

    def _eval_request(self, reply: Any) -> eval_pb2.EvalTurnRequest:
        self._check_running("step")
        call, text = program_call(reply)  # program_form="tool_call": the run_ptc_lisp call
        request = eval_pb2.EvalTurnRequest(raw_response=text, tools=self._options.tools,
                                           turn_number=self.turn_number, previous_results=self._previous)
        if call is not None:
            request.program_call.CopyFrom(call)
        elif self._options.program_form == "tool_call":
            request.program_call.SetInParent()  # a reply without a call, so the hint says to make one
        if call is None and not request.raw_response:
            # An empty reply holds no program: a turn that says so to the LLM.
            request.raw_response = " "
        if self._memory is not None:
            request.prelude.CopyFrom(self._memory)
        if self._options.HasField("data"):
            request.data.CopyFrom(self._options.data)
        if self._limits is not None:
            request.limits.CopyFrom(self._limits)
        return request

    def _record(self, turn: Turn) -> Turn:
        self._prior = self._memory
        if turn.memory is not None:
            self._memory = turn.memory._proto
        if turn.success:
            self._previous = [turn._wire.result, *self._previous][:_PREVIOUS]
        self._turns.append(turn.without_memory())
        return turn

    # ---- saving -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The run as plain JSON data: the options it was started with, its
        turns, memory and previous results, under "version". Tools are
        functions and are not saved; give them again to from_json."""
        out: dict[str, Any] = {"version": RUN_VERSION, "protocol": self._protocol,
                               "options": to_plain(self._options)}
        if self._limits is not None:
            out["limits"] = to_plain(self._limits)
        out["turns"] = [to_plain(t._wire) for t in self._turns]
        if self._memory is not None:
            out["memory"] = to_plain(self._memory)
        if self._prior is not None:
            out["prior_memory"] = to_plain(self._prior)
        out["previous_results"] = [to_plain(v) for v in self._previous]
        if self._summary is not None:
            out["summary"] = self._summary.to_dict()
        return out

    def to_json(self, **dumps: Any) -> str:
        """to_dict() as a JSON string (json.dumps' keyword arguments apply)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, **dumps)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, client: Any, tools: ToolsArg | None = None,
                  summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> Any:
        """The run data holds (to_dict's, from either client), on client,
        with its tools (and summariser, for a run that had one) given again."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a saved run is a JSON object, got {type(data).__name__}")
        version = data.get("version")
        if version != RUN_VERSION:
            raise ValueError(f"a saved run of version {version!r}; this ptc_sidecar reads version {RUN_VERSION}"
                             + (": upgrade it" if isinstance(version, int) and version > RUN_VERSION else ""))
        from ptc_sidecar._async_client import AsyncClient

        if isinstance(client, AsyncClient) != (cls is AsyncRun) and client is not None:
            want = "an AsyncRun" if isinstance(client, AsyncClient) else "a Run"
            raise TypeError(f"{cls.__name__}.from_json: a {type(client).__name__} runs {want}; use "
                            f"{want.split()[1]}.from_json, or client.resume(saved, tools=...)")
        run = cls.__new__(cls)
        run._client = client
        run._key = new_key()
        run._protocol = data.get("protocol", "replay")
        if run._protocol not in ("replay", "stream"):
            raise ValueError(f"protocol: {run._protocol!r} is not replay or stream")
        run._options = from_plain(data.get("options", {}), compression_pb2.Options(), "options")
        run._limits = from_plain(data["limits"], eval_pb2.Limits(), "limits") if "limits" in data else None
        run._turns = [Turn.from_proto(from_plain(t, turn_pb2.Turn(), f"turns[{i}]"))
                      for i, t in enumerate(data.get("turns", []))]
        run._memory = from_plain(data["memory"], turn_pb2.Memory(), "memory") if "memory" in data else None
        run._prior = from_plain(data["prior_memory"], turn_pb2.Memory(), "prior_memory") \
            if "prior_memory" in data else None
        run._previous = [from_plain(v, values_pb2.Value(), f"previous_results[{i}]")
                         for i, v in enumerate(data.get("previous_results", []))]
        run._tools = dict(tools or {})
        run._adopt_tools()
        run._summary = Summary.from_dict(data["summary"]) if "summary" in data else None
        run._summariser = summariser
        if summariser is not None:
            check_summariser(summariser, run._options.strategy)
        return run

    @classmethod
    def from_json(cls, saved: str | bytes | Mapping[str, Any], *, client: Any, tools: ToolsArg | None = None,
                  summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> Any:
        """The run saved holds: to_json's text (or to_dict's data)."""
        return cls.from_dict(saved if isinstance(saved, Mapping) else json.loads(saved), client=client, tools=tools,
                             summariser=summariser)

    def _adopt_tools(self) -> None:
        """Checks that the tools given on resuming are the saved run's, by
        name; a Tool given anew brings its signature and description."""
        saved = [t.name for t in self._options.tools]
        given = list(self._tools)
        if sorted(saved) != sorted(given):
            missing = sorted(set(saved) - set(given))
            extra = sorted(set(given) - set(saved))
            raise ValueError("tools: the saved run has tools " + (", ".join(saved) or "none") +
                             (f"; missing {', '.join(missing)}" if missing else "") +
                             (f"; not in the run: {', '.join(extra)}" if extra else ""))
        specs = {s.name: s for s in tool_specs(self._tools)}
        for spec in self._options.tools:
            if isinstance(self._tools[spec.name], Tool):
                spec.CopyFrom(specs[spec.name])


class Run(_RunState):
    """An agent run on a Client: the loop in one object.

        run = client.run(mission="...", tools=tools, data=data, max_turns=6)
        while not run.done:
            prompt = run.next_messages()             # Messages: OpenAI dicts, stats
            turn = run.step(my_llm(prompt.messages))  # the reply: a str, or the SDK's message
            save(run.to_json())                       # all the state there is
        run.result                                    # or RunFailedError

    step evaluates the reply's program with the run's tools, data, limits
    and memory, records the turn, and moves memory, the turn number and
    *1 *2 *3 (the last three successful results, newest first) on. A run
    ends when a program calls return or fail, or after max_turns turns.
    """

    _client: "Client"

    def next_messages(self, *, timeout: float | None | NotGiven = NOT_GIVEN) -> Messages:
        """The prompt for the next turn: the run so far, compressed by the
        run's strategy (Messages: OpenAI message dicts and stats)."""
        request = self._to_messages_request()
        return self._prompted(self._client._to_messages(
            request, History(), lambda: self._client._settings.call("ToMessages", timeout, self._key),
            self._summariser))

    def step(self, reply: Any, *, timeout: float | None | NotGiven = NOT_GIVEN) -> Turn:
        """Evaluates the LLM's reply (a str, an OpenAI completion or its
        message, an Anthropic message, or a Responses API response or its
        output items), runs its tool calls, records the turn and returns
        it. The program is the reply's run_ptc_lisp call when it makes one
        (program_form="tool_call"), else its fenced block. Nothing changes
        when it raises."""
        request = self._eval_request(reply)
        turn = self._client._evaluate(request, self._tools, self._protocol,  # type: ignore[arg-type]
                                      self._client._settings.call("EvalTurn", timeout, self._key))
        return self._record(turn)

    @classmethod
    def from_json(cls, saved: str | bytes | Mapping[str, Any], *, client: "Client",
                  tools: ToolsArg | None = None,
                  summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> "Run":
        """The run saved holds (to_json's text or to_dict's data), on client,
        with the same tools by name (and its summariser)."""
        return super().from_json(saved, client=client, tools=tools, summariser=summariser)


class AsyncRun(_RunState):
    """Run for an AsyncClient: next_messages and step are awaited."""

    _client: "AsyncClient"

    async def next_messages(self, *, timeout: float | None | NotGiven = NOT_GIVEN) -> Messages:
        """Run.next_messages, awaited."""
        request = self._to_messages_request()
        return self._prompted(await self._client._to_messages(
            request, History(), lambda: self._client._settings.call("ToMessages", timeout, self._key),
            self._summariser))

    async def step(self, reply: Any, *, timeout: float | None | NotGiven = NOT_GIVEN) -> Turn:
        """Run.step, awaited; async tools are awaited, plain ones run in a
        worker thread."""
        request = self._eval_request(reply)
        turn = await self._client._evaluate(request, self._tools, self._protocol,  # type: ignore[arg-type]
                                            self._client._settings.call("EvalTurn", timeout, self._key))
        return self._record(turn)

    @classmethod
    def from_json(cls, saved: str | bytes | Mapping[str, Any], *, client: "AsyncClient",
                  tools: ToolsArg | None = None,
                  summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> "AsyncRun":
        """Run.from_json for an AsyncClient."""
        return super().from_json(saved, client=client, tools=tools, summariser=summariser)
