"""Client: the sidecar's calls on blocking gRPC, tools run on the caller's thread."""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import grpc

from ptc_sidecar import _base
from ptc_sidecar._base import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    NOT_GIVEN,
    Call,
    NotGiven,
    Settings,
    closed_error,
    resolve_target,
)
from ptc_sidecar._chat import History, Prompt
from ptc_sidecar._errors import SidecarError
from ptc_sidecar._models import Messages, Strategy, StrategyOption, Summary, SummaryRequest, Turn, stats_dict
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2, compression_pb2, eval_pb2, service_pb2_grpc, strategies_pb2, turn_pb2
from ptc_sidecar._requests import (
    ToolsArg,
    eval_request,
    log,
    read_history,
    run_tool,
    summariser_text,
    summary_message,
    to_messages_request,
)

if TYPE_CHECKING:
    from ptc_sidecar._run import Run

Protocol = Literal["replay", "stream"]


class Client:
    """A connection to ptc-sidecar over blocking gRPC.

    A context manager, which closes the channel on exit. One Client may be
    shared by threads: it holds no state between calls. AsyncClient has the
    same methods for asyncio.

        with ptc_sidecar.Client("127.0.0.1:50051") as client:
            run = client.run(mission="...", tools={"search": search})
    """

    def __init__(self, target: str | Sequence[str] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 credentials: grpc.ChannelCredentials | None = None,
                 channel_options: Sequence[tuple[str, Any]] = (),
                 interceptors: Sequence[Any] = (), balancing: str = "by_run"):
        """Opens a channel to target ("host:port"; default
        $PTC_SIDECAR_TARGET, else 127.0.0.1:50051). For a pool of replicas,
        target is a list of "ip:port" addresses or "dns:///name:port" (a
        headless Service): calls are spread round-robin over the replicas,
        and a call that fails because its replica went away is tried again
        on another. balancing "by_run" (the default) keeps a run's calls
        on one replica while it lives, whose memo then reads the run once;
        "round_robin" spreads them too.

        timeout is every call's deadline in seconds, unless the call passes
        its own (None: no deadline); an evaluation's covers its tools' time.
        max_retries is how often a call is tried again, with exponential
        backoff and jitter, when the sidecar is unavailable or busy (every
        call is pure, so a retry repeats no effect). credentials makes the
        channel TLS; channel_options and interceptors go to grpc.
        """
        self._settings = Settings(resolve_target(target), timeout, max_retries)
        _base.check_balancing(balancing)
        self._open_args = (max_message_bytes, tuple(channel_options), credentials, tuple(interceptors))
        self._channel, self._stub = self._open(self._settings.target, "round_robin")
        self._pins = _base.Pins(self._settings.target) if balancing == "by_run" else None
        self._pool = _base.names_a_pool(self._settings.target)
        self._closed = False

    def _open(self, target: str, policy: str) -> tuple[grpc.Channel, service_pb2_grpc.SidecarServiceStub]:
        max_message_bytes, extra, credentials, interceptors = self._open_args
        options = _base.channel_options(max_message_bytes, extra, policy, self._settings.max_retries > 0)
        if credentials is None:
            channel = grpc.insecure_channel(target, options=options)
        else:
            channel = grpc.secure_channel(target, credentials, options=options)
        called = grpc.intercept_channel(channel, *interceptors) if interceptors else channel
        return channel, service_pb2_grpc.SidecarServiceStub(called)

    def _route(self, call: Call) -> tuple[grpc.Channel, service_pb2_grpc.SidecarServiceStub]:
        """The channel and stub for call: its run's replica (see Pins),
        else the round-robin channel."""
        pinned = self._pins.made_for(call.key, self._open) if self._pins is not None else None
        return pinned or (self._channel, self._stub)

    @property
    def target(self) -> str:
        return self._settings.target

    def close(self) -> None:
        """Closes the channel; later calls raise ClientClosedError."""
        self._closed = True
        self._channel.close()
        for channel, _ in self._pins.close() if self._pins is not None else ():
            channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- calls --------------------------------------------------------

    def eval_turn(self, program: str | None = None, *, raw_response: str | None = None,
                  tools: ToolsArg | None = None, memory: Any = None, data: Any = None, turn_number: int = 1,
                  protocol: Protocol = "replay", limits: Mapping[str, int] | None = None,
                  previous_results: Sequence[Any] = (), program_call: Any = None,
                  timeout: float | None | NotGiven = NOT_GIVEN) -> Turn:
        """Evaluates one program, running its tool calls here, and returns the Turn.

        program is PTC-Lisp; or pass raw_response, the LLM's reply, and the
        sidecar extracts the program from it. tools maps a tool's name to a
        function (or a Tool) that takes the call's arguments as keyword
        arguments; what it returns goes back to the program (as JSON; an
        EDN object as its text), and an exception it raises becomes a tool
        error the program sees. An async tool is run to completion. memory
        is the previous Turn's memory (or that Turn). data is the input the
        program reads as data/..., a dict. limits lowers the sandbox budgets
        by the Limits field names (max_steps, timeout_ms, ...).
        previous_results, newest first, are what *1, *2 and *3 read: Turns
        (their result goes back exactly as it came) or native values.

        program_call, instead of program, is the LLM's run_ptc_lisp call in
        tool-call form (program_form="tool_call"): an OpenAI tool call, an
        Anthropic tool_use block or a Responses API function_call item (dicts
        or the SDKs' objects). The server runs its "program"; the Turn keeps
        the call's id as program_call_id. Arguments the LLM wrote wrong are a
        failed Turn telling it how to call the tool; a call of another tool
        is refused. An empty call, ChatToolCall(), with raw_response says
        the reply made none: a fenced program in its text still runs, and
        without one the no_program hint tells the LLM to call run_ptc_lisp.

        protocol "replay" uses unary calls (one more per tool call, any
        replica can answer each); "stream" uses one EvalTurnStream. timeout
        covers the whole evaluation, tools included, either way.

        A program that fails is a Turn with success False, not an exception.
        Raises InvalidArgumentError when the sidecar refuses the request.
        """
        check_protocol(protocol)
        tools = dict(tools or {})
        request = eval_request(program, raw_response, tools, memory, data, turn_number, limits, previous_results,
                               program_call)
        return self._evaluate(request, tools, protocol, self._settings.call("EvalTurn", timeout))

    def to_messages(self, turns: Sequence[Turn] = (), memory: Any = None, *, history: Any = None,
                    summary: Any = None, summariser: Callable[[list[dict[str, Any]]], str] | None = None,
                    timeout: float | None | NotGiven = NOT_GIVEN, **options: Any) -> Messages:
        """The messages to send the LLM next, compressed from the turns so far.

        turns are the Turns eval_turn returned, in order; memory defaults to
        the last one's. history is a chat agent's log, for the strategies
        that read history: OpenAI Chat Completions messages (dicts or the
        SDK's objects), or ptc_sidecar.from_anthropic(...). options are the
        Options fields by their proto names: strategy, mission,
        system_prompt, tools (a tools dict as eval_turn takes, or a list of
        names), data (a native value), signature, max_turns, ...

        With strategy summarize (or summarize-turns), summary is the
        previous call's Messages.summary, and summariser a function that
        takes the OpenAI messages of a summary request and returns the
        model's summary: when the sidecar asks for one, the summariser
        writes it and the prompt comes back with it in place (its
        Messages.summary is the new one). Without a summariser the request
        is left in Messages.summary_request.

        Raises TypeError for an unknown option (naming the valid ones),
        InvalidArgumentError when the sidecar refuses the request.
        """
        wire_history = read_history(history)
        request = to_messages_request(turns, memory, None, wire_history, options)
        wire_summary = summary_message(summary)
        if wire_summary is not None:
            request.summary.CopyFrom(wire_summary)
        return self._to_messages(request, wire_history, lambda: self._settings.call("ToMessages", timeout), summariser)

    def list_strategies(self, *, timeout: float | None | NotGiven = NOT_GIVEN) -> list[Strategy]:
        """The compression strategies the sidecar offers."""
        call = self._settings.call("ListStrategies", timeout)
        response = self._unary(call, "ListStrategies", strategies_pb2.ListStrategiesRequest())
        return strategies(response)

    def run(self, *, mission: str = "", tools: ToolsArg | None = None, data: Any = None,
            limits: Mapping[str, int] | None = None, strategy: str = "", max_turns: int = 5,
            protocol: Protocol = "replay", summariser: Callable[[list[dict[str, Any]]], Any] | None = None,
            **options: Any) -> "Run":
        """A new agent run: the loop's state (turns, memory, *1 *2 *3) in one
        object. See Run. options are further Options fields (system_prompt,
        signature, prompt, ...)."""
        from ptc_sidecar._run import Run

        return Run(self, mission=mission, tools=tools, data=data, limits=limits, strategy=strategy,
                   max_turns=max_turns, protocol=protocol, summariser=summariser, **options)

    def resume(self, saved: str | Mapping[str, Any], *, tools: ToolsArg | None = None,
               summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> "Run":
        """The run that saved (run.to_json() or run.to_dict()) holds, to go
        on with; tools are the same tools by name (functions are not saved)."""
        from ptc_sidecar._run import Run

        return Run.from_json(saved, client=self, tools=tools, summariser=summariser)

    # ---- machinery ----------------------------------------------------

    def _check_open(self, method: str) -> None:
        if self._closed:
            raise closed_error(method)

    def _unary(self, call: Call, method: str, request: Any) -> Any:
        while True:
            self._check_open(call.method)
            channel, stub = self._route(call)
            started = time.monotonic()
            try:
                response = getattr(stub, method)(request, timeout=call.remaining())
            except (grpc.RpcError, ValueError) as err:  # ValueError: the channel closed under the call
                self._back_off(err, call.retry_delay(err, self._closed), channel)
                continue
            if log.isEnabledFor(logging.DEBUG):  # ByteSize walks the request
                log.debug("%s: %d bytes sent, answered in %.1f ms", call.method, request.ByteSize(),
                          (time.monotonic() - started) * 1000)
            call.progressed()
            return response

    def _back_off(self, err: BaseException, delay: float, channel: grpc.Channel) -> None:
        """Waits delay before a retry. After UNAVAILABLE, the wait ends as
        soon as the channel has connected again: gRPC does not reconnect
        by itself until a call asks it to. A pool's channel is still
        connected to the other replicas, which the retry goes to: it waits
        the delay."""
        unavailable = isinstance(err, grpc.RpcError) and err.code() == grpc.StatusCode.UNAVAILABLE
        if unavailable and channel is not self._channel and self._pins is not None:
            self._pins.failed()
        if unavailable and not self._pool:
            ready = grpc.channel_ready_future(channel)
            try:
                ready.result(timeout=delay)
            except grpc.FutureTimeoutError:
                pass
            finally:
                ready.cancel()
        else:
            time.sleep(delay)

    def _to_messages(self, request: compression_pb2.ToMessagesRequest, history: History, call: Callable[[], Call],
                     summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> Messages:
        # A summary request answered by the summariser is a second call with
        # the summary in place; request is left as it was.
        result = messages(self._unary(call(), "ToMessages", request), history, request)
        if summariser is None or result.summary_request is None:
            return result
        summary = result.summary_request.summary(summariser_text(summariser(result.summary_request.messages)))
        again = compression_pb2.ToMessagesRequest()
        again.CopyFrom(request)
        again.summary.CopyFrom(summary.wire())
        return messages(self._unary(call(), "ToMessages", again), history, again)

    def _evaluate(self, request: eval_pb2.EvalTurnRequest, tools: ToolsArg, protocol: Protocol, call: Call) -> Turn:
        # A failed RPC is tried again from the answers so far: tools that
        # ran are not run again. A stream that broke after some answers
        # goes on by replay, which takes them all in one request.
        while True:
            self._check_open(call.method)
            channel, stub = self._route(call)
            answered = len(request.tool_results)
            try:
                if protocol == "stream" and answered == 0:
                    return Turn.from_proto(self._stream(stub, request, tools, call))
                return Turn.from_proto(self._replay(stub, request, tools, call))
            except (grpc.RpcError, ValueError) as err:
                if isinstance(err, ValueError) and not self._closed:
                    raise
                if len(request.tool_results) > answered:
                    call.progressed()
                self._back_off(err, call.retry_delay(err, self._closed), channel)

    def _replay(self, stub: service_pb2_grpc.SidecarServiceStub, request: eval_pb2.EvalTurnRequest,
                tools: ToolsArg, call: Call) -> turn_pb2.Turn:
        # Each round answers one more call and the server's tool-call limit
        # fails a program that calls too often, so this loop ends.
        while True:
            response = stub.EvalTurn(request, timeout=call.remaining())
            if log.isEnabledFor(logging.DEBUG):
                log.debug("EvalTurn: %d bytes sent, %s", request.ByteSize(),
                          "turn" if response.HasField("turn") else f"{len(response.pending.calls)} pending")
            call.progressed()
            if response.HasField("turn"):
                return response.turn
            for pending in response.pending.calls:
                request.tool_results.append(run_tool(tools, pending))
                call.remaining()  # the tool may have used the rest of the time

    def _stream(self, stub: service_pb2_grpc.SidecarServiceStub, request: eval_pb2.EvalTurnRequest,
                tools: ToolsArg, call: Call) -> turn_pb2.Turn:
        answers: queue.SimpleQueue[eval_pb2.ToolResult | None] = queue.SimpleQueue()
        start = eval_pb2.EvalTurnStreamRequest(start=request)

        def outgoing() -> Iterator[eval_pb2.EvalTurnStreamRequest]:
            # grpc reads this on its own thread: the request first, then one
            # answer per tool call, until None closes our side.
            yield start
            while (answer := answers.get()) is not None:
                yield eval_pb2.EvalTurnStreamRequest(tool_result=answer)

        responses = stub.EvalTurnStream(outgoing(), timeout=call.remaining())
        turn = None
        try:
            for message in responses:
                if message.HasField("tool_call"):
                    answer = run_tool(tools, message.tool_call)
                    request.tool_results.append(answer)
                    call.remaining()
                    answers.put(answer)
                elif message.HasField("turn"):
                    turn = message.turn
                    answers.put(None)
        finally:
            answers.put(None)  # ends the sender whatever happened
            responses.cancel()  # a no-op once the call is over
        if turn is None:
            raise SidecarError("INTERNAL: EvalTurnStream ended without a turn", code=grpc.StatusCode.INTERNAL)
        return turn


def check_protocol(protocol: str) -> None:
    if protocol not in ("replay", "stream"):
        raise ValueError(f'protocol must be "replay" or "stream", got {protocol!r}')


def messages(response: compression_pb2.ToMessagesResponse, history: History,
             request: compression_pb2.ToMessagesRequest) -> Messages:
    """The Messages of a ToMessagesResponse, for the request (and its
    history) it answers."""
    prompt = Prompt(response.messages, history)
    summary = Summary.from_wire(request.summary) if request.HasField("summary") else None
    wanted = None
    if response.HasField("summary_request"):
        r = response.summary_request
        wanted = SummaryRequest(Prompt(summary_request_messages(response), history).openai_messages(),
                                r.through, r.asked_at, r.digest)
    return Messages(prompt.openai_messages(), stats_dict(response.stats), prompt, summary, wanted)


def summary_request_messages(response: compression_pb2.ToMessagesResponse) -> list[chat_pb2.ChatMessage]:
    """The wire messages a ToMessagesResponse's summary_request asks the
    caller's model to summarise: the response's first prefix_messages
    messages, then the request's own (the instruction). Either form of
    summary request (options summary_request_form "prefix" or "whole")
    gives the same list; [] when the response asks for no summary."""
    if not response.HasField("summary_request"):
        return []
    r = response.summary_request
    if r.prefix_messages > len(response.messages):
        raise ValueError(f"summary_request.prefix_messages is {r.prefix_messages}, "
                         f"but the response holds {len(response.messages)} messages")
    return list(response.messages[:r.prefix_messages]) + list(r.messages)


def strategies(response: strategies_pb2.ListStrategiesResponse) -> list[Strategy]:
    return [Strategy(s.name, s.description, s.input,
                     [StrategyOption(o.name, o.default_value, o.description) for o in s.options])
            for s in response.strategies]
