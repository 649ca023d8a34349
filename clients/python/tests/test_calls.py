"""How calls behave around the request: timeouts that cover the tools, retries
through a restart or a busy sidecar, errors that say what to do, async tools,
closed clients. Both clients, against the real server."""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import os
import socket
import threading
import time
from concurrent import futures

import grpc
import pytest

import ptc_sidecar
from conftest import REPO, Server
from ptc_sidecar._pb.ptcsidecar.v1 import service_pb2_grpc

PROTOCOLS = ["replay", "stream"]


def reply(program):
    """An LLM's reply holding program, as models write it."""
    return f"Here it is:\n```clojure\n{program}\n```"


def sleepy(seconds):
    time.sleep(seconds)
    return seconds


async def async_sleepy(seconds):
    await asyncio.sleep(seconds)
    return seconds


# ---- timeouts: the whole evaluation, tools included, on either protocol ----

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_timeout_covers_tool_time(target, protocol):
    with ptc_sidecar.Client(target, timeout=1) as client:
        turn = client.eval_turn("(tool/slow {:seconds 0.5})", tools={"slow": sleepy}, protocol=protocol)
        assert turn.success and turn.result == 0.5
        with pytest.raises(ptc_sidecar.DeadlineExceededError, match=r"tools' time included.* timeout of 1 s") as err:
            client.eval_turn("(tool/slow {:seconds 1.5})", tools={"slow": sleepy}, protocol=protocol)
        assert isinstance(err.value, TimeoutError) and err.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        # A call's own timeout replaces the client's; None is no deadline.
        assert client.eval_turn("(tool/slow {:seconds 1.5})", tools={"slow": sleepy}, protocol=protocol,
                                timeout=None).result == 1.5


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("tool", [sleepy, async_sleepy], ids=["sync tool", "async tool"])
def test_the_async_timeout_covers_tool_time(target, protocol, tool):
    async def main():
        async with ptc_sidecar.AsyncClient(target, timeout=1) as client:
            turn = await client.eval_turn("(tool/slow {:seconds 0.5})", tools={"slow": tool}, protocol=protocol)
            assert turn.success and turn.result == 0.5
            with pytest.raises(ptc_sidecar.DeadlineExceededError, match=r"tools' time included"):
                await client.eval_turn("(tool/slow {:seconds 1.5})", tools={"slow": tool}, protocol=protocol)

    asyncio.run(main())


# ---- async tools ----------------------------------------------------------

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_async_client_awaits_async_tools_and_runs_sync_ones_off_the_loop(target, protocol):
    threads = {}

    async def lookup(name):
        threads["async"] = threading.get_ident()
        await asyncio.sleep(0)
        return {"id": 7, "name": name}

    def orders(**kw):
        threads["sync"] = threading.get_ident()
        return [{"total": 30.5}, {"total": 12.0}]

    async def main():
        async with ptc_sidecar.AsyncClient(target) as client:
            turn = await client.eval_turn(
                '(def u (tool/lookup {:name "Ada"})) (reduce + (map :total (tool/orders {:user-id (:id u)})))',
                tools={"lookup": lookup, "orders": ptc_sidecar.Tool(orders, signature="(user-id :int) -> [:map]")},
                protocol=protocol)
            assert turn.success, turn.error
            assert turn.result == 42.5
            assert [c.name for c in turn.tool_calls] == ["lookup", "orders"]
            return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert threads["async"] == loop_thread
    assert threads["sync"] != loop_thread


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_sync_client_runs_async_tools(target, protocol):
    async def double(n):
        await asyncio.sleep(0)
        return n * 2

    with ptc_sidecar.Client(target) as client:
        assert client.eval_turn("(tool/double {:n 21})", tools={"double": double}, protocol=protocol).result == 42

        async def from_a_coroutine():  # the sync client called inside a running loop
            return client.eval_turn("(tool/double {:n 4})", tools={"double": double}, protocol=protocol).result

        assert asyncio.run(from_a_coroutine()) == 8


# ---- retries ----------------------------------------------------------------

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_sidecar_restarted_mid_run_is_retried(binary, caplog, protocol):
    caplog.set_level(logging.INFO, logger="ptc_sidecar")
    with Server(binary) as server:
        with ptc_sidecar.Client(server.target) as client:
            run = client.run(mission="Count", max_turns=1000, protocol=protocol)
            assert run.step(reply("(def n 0)")).success

            # A rolling update: the sidecar drains, exits and comes back on
            # the same address while the agent goes on stepping.
            def restart():
                server.stop()
                time.sleep(0.2)
                server.start()

            restarter = threading.Thread(target=restart)
            restarter.start()
            while restarter.is_alive():
                run.next_messages()
                assert run.step(reply("(def n (inc n))")).success
            run.next_messages()
            assert run.step(reply("(def n (inc n)) n")).result == run.turn_number - 2
            assert "UNAVAILABLE; retrying in" in caplog.text

            # A crash during an evaluation, while a tool runs.
            runs = []

            def crash(**kw):
                runs.append(kw)
                server.process.kill()
                server.process.wait()
                threading.Timer(0.2, server.start).start()
                return 40

            turn = client.eval_turn("(tool/crash {})", tools={"crash": crash}, protocol=protocol)
            assert turn.success and turn.result == 40
            assert len(runs) == 1  # the answer was kept, not asked for again


def test_async_client_retries_through_a_restart(binary):
    async def main(server):
        async with ptc_sidecar.AsyncClient(server.target) as client:
            assert (await client.eval_turn("(+ 1 2)")).result == 3
            server.process.kill()
            server.process.wait()
            threading.Timer(0.2, server.start).start()
            assert (await client.eval_turn("(+ 2 3)")).result == 5

    with Server(binary) as server:
        asyncio.run(main(server))


def test_nothing_listening_is_unavailable_with_advice():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with ptc_sidecar.Client(f"127.0.0.1:{port}", max_retries=1) as client:
        with pytest.raises(ptc_sidecar.UnavailableError) as err:
            client.eval_turn("(+ 1 2)")
    assert err.value.code == grpc.StatusCode.UNAVAILABLE
    assert f"127.0.0.1:{port}" in str(err.value) and "ptc-sidecar serve" in str(err.value)
    assert "2 attempts" in str(err.value)
    assert isinstance(err.value, ConnectionError)


class BusyFirst(service_pb2_grpc.SidecarServiceServicer):
    """A sidecar in front of the real one that is busy for its first calls,
    as the real one is when every evaluation slot is taken."""

    def __init__(self, target, busy):
        self.upstream = service_pb2_grpc.SidecarServiceStub(grpc.insecure_channel(target))
        self.busy = busy
        self.calls = 0

    def EvalTurn(self, request, context):
        self.calls += 1
        if self.calls <= self.busy:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "the server is running its most evaluations at once")
        return self.upstream.EvalTurn(request)


@pytest.fixture
def busy_sidecar(target):
    def start(busy):
        servicer = BusyFirst(target, busy)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        service_pb2_grpc.add_SidecarServiceServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        started.append(server)
        return f"127.0.0.1:{port}", servicer

    started = []
    yield start
    for server in started:
        server.stop(None)


def test_a_busy_sidecar_is_retried_with_backoff(busy_sidecar, caplog):
    caplog.set_level(logging.INFO, logger="ptc_sidecar")
    address, servicer = busy_sidecar(busy=2)
    with ptc_sidecar.Client(address) as client:
        started = time.monotonic()
        assert client.eval_turn("(* 6 7)").result == 42
        waited = time.monotonic() - started
    assert servicer.calls == 3
    assert waited >= 0.75 * (0.25 + 0.5)  # two backoffs, each at least 75% of its step
    assert caplog.text.count("RESOURCE_EXHAUSTED; retrying in") == 2

    address, servicer = busy_sidecar(busy=10)
    with ptc_sidecar.Client(address, max_retries=2) as client:
        with pytest.raises(ptc_sidecar.ResourceExhaustedError, match=r"still busy after 3 attempts.*max_retries"):
            client.eval_turn("(* 6 7)")
    assert servicer.calls == 3


def test_a_request_over_the_size_limit_is_not_retried(binary, caplog):
    caplog.set_level(logging.INFO, logger="ptc_sidecar")
    with Server(binary, "--max-recv-bytes", "64KiB") as server, ptc_sidecar.Client(server.target) as client:
        with pytest.raises(ptc_sidecar.ResourceExhaustedError, match="larger than the sidecar accepts") as err:
            client.eval_turn("(count data/blob)", data={"blob": "x" * 100_000})
    assert "retrying" not in caplog.text  # a retry is logged before its backoff
    assert "max-recv-bytes" in str(err.value)


# ---- errors that name what to fix ------------------------------------------

def test_invalid_arguments_name_the_field(client):
    with pytest.raises(ptc_sidecar.InvalidArgumentError) as err:
        client.eval_turn("(+ 1 2)", data=[1, 2])
    assert err.value.field == "data" and "must be a map" in str(err.value)
    assert isinstance(err.value, ptc_sidecar.SidecarError) and isinstance(err.value, ValueError)
    assert err.value.violations[0].field == "data"


def test_a_typo_in_limits_lists_the_limits(client):
    with pytest.raises(TypeError, match=r"unknown limit 'max_step' \(did you mean 'max_steps'\?\); the limits are "
                                        r"max_steps, max_alloc_bytes, .*tool_timeout_ms"):
        client.eval_turn("(+ 1 2)", limits={"max_step": 10})
    with pytest.raises(TypeError, match="limits: max_steps must be an int"):
        client.eval_turn("(+ 1 2)", limits={"max_steps": "10"})
    with pytest.raises(TypeError, match=r"unknown option 'max_turnz' \(did you mean 'max_turns'\?\)"):
        client.to_messages([], max_turnz=3)


def test_memory_takes_a_turn_or_its_memory(client):
    one = client.eval_turn("(def x 40)")
    assert client.eval_turn("(+ x 2)", memory=one).result == 42
    assert client.eval_turn("(+ x 2)", memory=one.memory).result == 42
    with pytest.raises(TypeError, match=r"memory: want a Memory \(turn.memory\) or a Turn, got dict"):
        client.eval_turn("(+ x 2)", memory={"x": 40})
    assert one.memory.names == ["x"] and len(one.memory) == 1
    assert ptc_sidecar.Memory.from_dict(one.memory.to_dict()) == one.memory


def test_a_turn_carries_what_was_forgiven(client):
    turn = client.eval_turn("(+ 1 2))")
    assert turn.success and turn.result == 3
    assert [w.type for w in turn.warnings] == ["unmatched_closing_bracket"]
    assert "closing bracket" in turn.warnings[0].message
    assert client.eval_turn("(+ 1 2)").warnings == []


def test_a_closed_client_refuses_calls(target):
    client = ptc_sidecar.Client(target)
    client.close()
    with pytest.raises(ptc_sidecar.ClientClosedError, match="closed; open a new one"):
        client.eval_turn("(+ 1 2)")
    with pytest.raises(ptc_sidecar.ClientClosedError):
        client.list_strategies()

    async def main():
        async with ptc_sidecar.AsyncClient(target) as aclient:
            pass
        with pytest.raises(ptc_sidecar.ClientClosedError):
            await aclient.to_messages([])

    asyncio.run(main())


def test_version(target):
    assert ptc_sidecar.__version__.count(".") == 2
    if os.environ.get("PTC_SIDECAR_INSTALLED"):
        # make test-client-python runs the installed copy, not the sources.
        assert importlib.metadata.version("ptc_sidecar") == ptc_sidecar.__version__
        assert not ptc_sidecar.__file__.startswith(str(REPO))

