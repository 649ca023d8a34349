"""AsyncClient: Client's calls on grpc.aio, for asyncio programs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import grpc
import grpc.aio

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
from ptc_sidecar._chat import History
from ptc_sidecar._client import Protocol, check_protocol, messages, strategies
from ptc_sidecar._errors import SidecarError, deadline_error
from ptc_sidecar._models import Messages, Strategy, Turn
from ptc_sidecar._pb.ptcsidecar.v1 import compression_pb2, eval_pb2, service_pb2_grpc, strategies_pb2, turn_pb2
from ptc_sidecar._requests import (
    ToolsArg,
    eval_request,
    log,
    read_history,
    run_tool_async,
    summariser_text,
    summary_message,
    to_messages_request,
)

if TYPE_CHECKING:
    from ptc_sidecar._run import AsyncRun


class AsyncClient:
    """A connection to ptc-sidecar over grpc.aio: Client's methods as
    coroutines.

    Tools may be async functions, awaited on the running loop, or plain
    ones, run in a worker thread (asyncio.to_thread) so that they do not
    block it. An async context manager, which closes the channel on exit.
    Create it inside the event loop that uses it.

        async with ptc_sidecar.AsyncClient("127.0.0.1:50051") as client:
            run = client.run(mission="...", tools={"search": search})
            messages = await run.next_messages()
    """

    def __init__(self, target: str | Sequence[str] | None = None, *, timeout: float | None = DEFAULT_TIMEOUT,
                 max_retries: int = DEFAULT_MAX_RETRIES, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                 credentials: grpc.ChannelCredentials | None = None,
                 channel_options: Sequence[tuple[str, Any]] = (),
                 interceptors: Sequence[Any] = (), balancing: str = "by_run"):
        """As Client's: target (an address, a list of a pool's addresses or
        "dns:///name:port"), timeout (seconds, per call, tools included),
        max_retries, credentials, channel_options, grpc.aio client
        interceptors and balancing."""
        self._settings = Settings(resolve_target(target), timeout, max_retries)
        _base.check_balancing(balancing)
        self._open_args = (max_message_bytes, tuple(channel_options), credentials, list(interceptors) or None)
        self._channel, self._stub = self._open(self._settings.target, "round_robin")
        self._pins = _base.Pins(self._settings.target) if balancing == "by_run" else None
        self._pool = _base.names_a_pool(self._settings.target)
        self._closed = False

    def _open(self, target: str, policy: str) -> tuple[grpc.aio.Channel, service_pb2_grpc.SidecarServiceStub]:
        max_message_bytes, extra, credentials, interceptors = self._open_args
        options = _base.channel_options(max_message_bytes, extra, policy, self._settings.max_retries > 0)
        if credentials is None:
            channel = grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)
        else:
            channel = grpc.aio.secure_channel(target, credentials, options=options, interceptors=interceptors)
        return channel, service_pb2_grpc.SidecarServiceStub(channel)

    def _route(self, call: Call) -> tuple[grpc.aio.Channel, service_pb2_grpc.SidecarServiceStub]:
        """As Client._route. (Pins may resolve a name: a moment on the
        loop, at most once a second after a failure, or every 30 seconds.)"""
        pinned = self._pins.made_for(call.key, self._open) if self._pins is not None else None
        return pinned or (self._channel, self._stub)

    @property
    def target(self) -> str:
        return self._settings.target

    async def close(self) -> None:
        """Closes the channel; later calls raise ClientClosedError."""
        self._closed = True
        await self._channel.close()
        for channel, _ in self._pins.close() if self._pins is not None else ():
            await channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- calls --------------------------------------------------------

    async def eval_turn(self, program: str | None = None, *, raw_response: str | None = None,
                        tools: ToolsArg | None = None, memory: Any = None, data: Any = None, turn_number: int = 1,
                        protocol: Protocol = "replay", limits: Mapping[str, int] | None = None,
                        previous_results: Sequence[Any] = (), program_call: Any = None,
                        timeout: float | None | NotGiven = NOT_GIVEN) -> Turn:
        """Client.eval_turn, awaited. timeout covers the whole evaluation:
        an async tool still running when it ends is cancelled; a plain one
        finishes in its thread, unheard."""
        check_protocol(protocol)
        tools = dict(tools or {})
        request = eval_request(program, raw_response, tools, memory, data, turn_number, limits, previous_results,
                               program_call)
        return await self._evaluate(request, tools, protocol, self._settings.call("EvalTurn", timeout))

    async def to_messages(self, turns: Sequence[Turn] = (), memory: Any = None, *, history: Any = None,
                          summary: Any = None, summariser: Callable[[list[dict[str, Any]]], Any] | None = None,
                          timeout: float | None | NotGiven = NOT_GIVEN, **options: Any) -> Messages:
        """Client.to_messages, awaited; the summariser may be a plain or an
        async function."""
        wire_history = read_history(history)
        request = to_messages_request(turns, memory, None, wire_history, options)
        wire_summary = summary_message(summary)
        if wire_summary is not None:
            request.summary.CopyFrom(wire_summary)
        return await self._to_messages(request, wire_history, lambda: self._settings.call("ToMessages", timeout),
                                       summariser)

    async def list_strategies(self, *, timeout: float | None | NotGiven = NOT_GIVEN) -> list[Strategy]:
        """The compression strategies the sidecar offers."""
        call = self._settings.call("ListStrategies", timeout)
        response = await self._unary(call, "ListStrategies", strategies_pb2.ListStrategiesRequest())
        return strategies(response)

    def run(self, *, mission: str = "", tools: ToolsArg | None = None, data: Any = None,
            limits: Mapping[str, int] | None = None, strategy: str = "", max_turns: int = 5,
            protocol: Protocol = "replay", summariser: Callable[[list[dict[str, Any]]], Any] | None = None,
            **options: Any) -> "AsyncRun":
        """A new agent run, as Client.run, whose calls are awaited."""
        from ptc_sidecar._run import AsyncRun

        return AsyncRun(self, mission=mission, tools=tools, data=data, limits=limits, strategy=strategy,
                        max_turns=max_turns, protocol=protocol, summariser=summariser, **options)

    def resume(self, saved: str | Mapping[str, Any], *, tools: ToolsArg | None = None,
               summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> "AsyncRun":
        """The run that saved holds (run.to_json() or run.to_dict()), to go on with."""
        from ptc_sidecar._run import AsyncRun

        return AsyncRun.from_json(saved, client=self, tools=tools, summariser=summariser)

    # ---- machinery ----------------------------------------------------

    def _check_open(self, method: str) -> None:
        if self._closed:
            raise closed_error(method)

    async def _unary(self, call: Call, method: str, request: Any) -> Any:
        while True:
            self._check_open(call.method)
            channel, stub = self._route(call)
            started = time.monotonic()
            try:
                response = await getattr(stub, method)(request, timeout=call.remaining())
            except (grpc.RpcError, grpc.aio.UsageError) as err:
                await self._back_off(err, call.retry_delay(err, self._closed), channel)
                continue
            if log.isEnabledFor(logging.DEBUG):  # ByteSize walks the request
                log.debug("%s: %d bytes sent, answered in %.1f ms", call.method, request.ByteSize(),
                          (time.monotonic() - started) * 1000)
            call.progressed()
            return response

    async def _back_off(self, err: BaseException, delay: float, channel: grpc.aio.Channel) -> None:
        """As Client._back_off: after UNAVAILABLE the wait ends once the
        channel has connected again (a pool's: after the delay)."""
        unavailable = isinstance(err, grpc.RpcError) and err.code() == grpc.StatusCode.UNAVAILABLE
        if unavailable and channel is not self._channel and self._pins is not None:
            self._pins.failed()
        if unavailable and not self._pool:
            try:
                await asyncio.wait_for(channel.channel_ready(), delay)
            except TimeoutError:
                pass
        else:
            await asyncio.sleep(delay)

    async def _to_messages(self, request: compression_pb2.ToMessagesRequest, history: History,
                           call: Callable[[], Call],
                           summariser: Callable[[list[dict[str, Any]]], Any] | None = None) -> Messages:
        # As Client._to_messages; an async summariser is awaited.
        result = messages(await self._unary(call(), "ToMessages", request), history, request)
        if summariser is None or result.summary_request is None:
            return result
        text = summariser(result.summary_request.messages)
        if inspect.isawaitable(text):
            text = await text
        summary = result.summary_request.summary(summariser_text(text))
        again = compression_pb2.ToMessagesRequest()
        again.CopyFrom(request)
        again.summary.CopyFrom(summary.wire())
        return messages(await self._unary(call(), "ToMessages", again), history, again)

    async def _evaluate(self, request: eval_pb2.EvalTurnRequest, tools: ToolsArg, protocol: Protocol,
                        call: Call) -> Turn:
        # As Client._evaluate; the deadline also cancels a tool still awaited.
        limit = (contextlib.nullcontext() if call.timeout is None else
                 asyncio.timeout_at(asyncio.get_running_loop().time() + call.timeout))
        try:
            async with limit:
                while True:
                    self._check_open(call.method)
                    channel, stub = self._route(call)
                    answered = len(request.tool_results)
                    try:
                        if protocol == "stream" and answered == 0:
                            return Turn.from_proto(await self._stream(stub, request, tools, call))
                        return Turn.from_proto(await self._replay(stub, request, tools, call))
                    except (grpc.RpcError, grpc.aio.UsageError) as err:
                        if len(request.tool_results) > answered:
                            call.progressed()
                        await self._back_off(err, call.retry_delay(err, self._closed), channel)
        except TimeoutError as err:
            if isinstance(err, SidecarError):
                raise
            raise deadline_error(call.context()) from None

    async def _replay(self, stub: service_pb2_grpc.SidecarServiceStub, request: eval_pb2.EvalTurnRequest,
                      tools: ToolsArg, call: Call) -> turn_pb2.Turn:
        while True:
            response = await stub.EvalTurn(request, timeout=call.remaining())
            if log.isEnabledFor(logging.DEBUG):
                log.debug("EvalTurn: %d bytes sent, %s", request.ByteSize(),
                          "turn" if response.HasField("turn") else f"{len(response.pending.calls)} pending")
            call.progressed()
            if response.HasField("turn"):
                return response.turn
            for pending in response.pending.calls:
                request.tool_results.append(await run_tool_async(tools, pending))
                call.remaining()

    async def _stream(self, stub: service_pb2_grpc.SidecarServiceStub, request: eval_pb2.EvalTurnRequest,
                      tools: ToolsArg, call: Call) -> turn_pb2.Turn:
        stream = stub.EvalTurnStream(timeout=call.remaining())
        turn = None
        try:
            await stream.write(eval_pb2.EvalTurnStreamRequest(start=request))
            while True:
                message = await stream.read()
                if message is grpc.aio.EOF:
                    break
                if message.HasField("tool_call"):
                    answer = await run_tool_async(tools, message.tool_call)
                    request.tool_results.append(answer)
                    call.remaining()
                    await stream.write(eval_pb2.EvalTurnStreamRequest(tool_result=answer))
                elif message.HasField("turn"):
                    turn = message.turn
                    await stream.done_writing()
        finally:
            if not stream.done():
                stream.cancel()
        if turn is None:
            raise SidecarError("INTERNAL: EvalTurnStream ended without a turn", code=grpc.StatusCode.INTERNAL)
        return turn
