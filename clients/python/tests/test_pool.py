"""A pool of three real servers: 20 concurrent agent runs over all three, one
replica killed mid-run (SIGKILL, as a crash or a lost node), and every run
ends as it does on one server: the same turns, the same prompts, each tool
run once per call."""

from __future__ import annotations

import logging
import re
import threading
import urllib.request

import pytest

import ptc_sidecar
from conftest import Server

RUNS = 20
# Only guards a hang: on a busy machine a call takes what it takes.
HANG = 600.0

SCRIPT = [
    '(def hits (tool/search {:query data/query}))\n(println "found" (count hits))\n(count hits)',
    "(def doc (tool/read {:id (:id (first hits))}))\n(:revenue doc)",
    # The replica is killed while every run waits in this turn's tool.
    '(def total (tool/settle {:amount *1 :run data/run}))\n(println "settled" total)\ntotal',
    "(def doubled (* 2 total))\n(+ doubled (count hits))",
    "(return {:run data/run :total total :doubled doubled :last *1})",
]


def reply(program: str) -> str:
    return f"Turn.\n\n```clojure\n{program}\n```"


class Agent:
    """One run's tools and what they were asked; turn 3's tool waits at the
    gate when there is one."""

    def __init__(self, i: int, gate: "Gate | None"):
        self.i = i
        self.gate = gate
        self.calls: list[tuple] = []

    def search(self, query):
        self.calls.append(("search", query))
        return [{"id": f"doc-{self.i}-{k}", "title": f"{query} {k}"} for k in range(1 + self.i % 4)]

    def read(self, id):
        self.calls.append(("read", id))
        return {"title": id, "revenue": 10.5 + self.i}

    def settle(self, amount, run):
        self.calls.append(("settle", amount, run))
        if self.gate is not None:
            self.gate.arrive()
        return amount * 3 + run

    def tools(self):
        return {"search": ptc_sidecar.Tool(self.search, signature="(query :string) -> [{id :string, title :string}]"),
                "read": ptc_sidecar.Tool(self.read, signature="(id :string) -> {title :string, revenue :float}"),
                "settle": ptc_sidecar.Tool(self.settle, signature="(amount :float, run :int) -> :float")}


class Gate:
    """Holds every run in turn 3's tool until all have arrived and the
    replica is gone, so that the kill comes mid-run for all of them."""

    def __init__(self, parties: int):
        self.ready = threading.Barrier(parties + 1)
        self.open = threading.Event()

    def arrive(self):
        self.ready.wait(timeout=HANG)
        assert self.open.wait(timeout=HANG), "the gate never opened"


def protocol_of(i: int) -> str:
    return "stream" if i % 2 else "replay"


def drive(client: ptc_sidecar.Client, i: int, gate: Gate | None):
    """Runs agent i to its end; returns what a caller sees of it."""
    agent = Agent(i, gate)
    run = client.run(mission=f"Settle account {i}", tools=agent.tools(), data={"query": f"account {i}", "run": i},
                     max_turns=len(SCRIPT), protocol=protocol_of(i))
    prompts, turns = [], []
    for program in SCRIPT:
        prompts.append(run.next_messages(timeout=HANG).messages)
        turn = run.step(reply(program), timeout=HANG)
        turns.append((turn.number, turn.success, turn.result, turn.prints, turn.error,
                      [(c.name, c.args, c.result, c.error) for c in turn.tool_calls]))
    return {"status": run.status, "result": run.result, "prompts": prompts, "turns": turns,
            "memory": run.memory.to_dict(),
            "tool_calls": agent.calls}


def drive_all(client: ptc_sidecar.Client, gate: Gate | None):
    """Starts the runs, each on a thread of its own; returns the threads,
    the list each run's outcome goes in and the errors."""
    results: list = [None] * RUNS
    errors: list = []

    def one(i):
        try:
            results[i] = drive(client, i, gate)
        except BaseException as err:  # reported below, with the run
            errors.append((i, err))
            if gate is not None:
                gate.ready.abort()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(RUNS)]
    for t in threads:
        t.start()
    return threads, results, errors


def counted(server: Server, name: str, method: str = "") -> int:
    """A counter of the server's own metrics, summed over its series (of
    method alone when given)."""
    with urllib.request.urlopen(f"http://{server.metrics}/metrics", timeout=HANG) as page:
        text = page.read().decode()
    method = re.escape(method) if method else '[^"]*'
    found = re.findall(rf'^{name}{{[^}}]*grpc_method="{method}"[^}}]*}} (\S+)$', text, re.M)
    return sum(int(float(v)) for v in found)


def open_streams(server: Server) -> int:
    """The EvalTurnStream calls the server has started and not finished."""
    return (counted(server, "grpc_server_started_total", "EvalTurnStream")
            - counted(server, "grpc_server_handled_total", "EvalTurnStream"))


def kill_the_busiest(replicas: list[Server]) -> Server:
    """SIGKILLs the replica with the most streams waiting on a tool, which
    the kill breaks (half the runs stream), and returns it."""
    streams = [open_streams(r) for r in replicas]
    assert sum(streams) == RUNS // 2, streams
    victim = replicas[streams.index(max(streams))]
    victim.process.kill()
    victim.process.wait()
    return victim


@pytest.mark.parametrize("balancing", ["by_run", "round_robin"])
def test_twenty_runs_survive_losing_one_of_three_replicas(binary, balancing, caplog):
    caplog.set_level(logging.INFO, logger="ptc_sidecar")
    metrics = ("--metrics-listen", "127.0.0.1:0")
    with Server(binary, *metrics) as a, Server(binary, *metrics) as b, Server(binary, *metrics) as c:
        replicas = [a, b, c]
        # The reference: the same runs on one server.
        with ptc_sidecar.Client(a.target) as one:
            threads, expected, errors = drive_all(one, None)
            for t in threads:
                t.join()
        assert not errors, errors
        assert all(r["status"] == "returned" for r in expected)

        gate = Gate(RUNS)
        with ptc_sidecar.Client([r.target for r in replicas], balancing=balancing) as pool:
            threads, got, errors = drive_all(pool, gate)
            try:
                gate.ready.wait(timeout=HANG)  # every run is in turn 3's tool, its stream open if it streams
                victim = kill_the_busiest(replicas)
            finally:
                gate.open.set()  # also when the test failed: the runs end
                for t in threads:
                    t.join()

            # A new run's calls: on one replica when kept there, else on both left.
            alive = [r for r in replicas if r is not victim]
            before = [counted(r, "grpc_server_handled_total") for r in alive]
            drive(pool, 0, None)
            served = [counted(r, "grpc_server_handled_total") - n for r, n in zip(alive, before)]
            assert sum(served) >= 2 * len(SCRIPT) and (served.count(0) == 1) == (balancing == "by_run"), served
        assert not errors, errors
        # The broken streams went on by replay on the other replicas.
        assert "EvalTurn to ipv4:" in caplog.text and "UNAVAILABLE; retrying" in caplog.text
        for i in range(RUNS):
            assert got[i] == expected[i], f"run {i} ({protocol_of(i)}) differs from the run on one server"
        # Each tool ran once per call: the answers given before the loss were
        # kept, not asked for again.
        assert all(len(r["tool_calls"]) == 3 for r in got)



def test_runs_are_kept_on_replicas_by_rendezvous_hashing():
    from ptc_sidecar._base import Pins

    three = ["127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"]
    pins = Pins("ipv4:" + ",".join(three))
    keys = [f"run-{i}" for i in range(300)]

    def first(p, key):
        return p.target_for(key).split(":", 1)[1].split(",")[0]

    firsts = {k: first(pins, k) for k in keys}
    assert all(first(pins, k) == firsts[k] for k in keys)  # a run stays where it is
    share = {a: list(firsts.values()).count(a) for a in three}
    assert all(60 <= n <= 140 for n in share.values()), share
    assert pins.generation == 1  # the addresses did not change: the channels made for them stay
    assert pins.target_for(None) is None  # calls outside a run: round-robin
    assert Pins("127.0.0.1:7001").target_for("run-1") is None  # one address: nothing to pin

    # Without the third replica, only its runs move, and they spread over both others.
    two = Pins("ipv4:" + ",".join(three[:2]))
    moved = {first(two, k) for k in keys if firsts[k] == three[2]}
    assert all(first(two, k) == firsts[k] for k in keys if firsts[k] != three[2])
    assert moved == set(three[:2])


def test_a_pool_target_is_checked():
    with pytest.raises(ValueError, match="not an ip:port address.*dns:///name:port"):
        ptc_sidecar.Client(["sidecar-0:50051", "sidecar-1:50051"])
    with pytest.raises(ValueError, match="mixes IPv4 and IPv6"):
        ptc_sidecar.Client(["127.0.0.1:1", "[::1]:2"])
    with pytest.raises(ValueError, match="balancing must be one of by_run, round_robin"):
        ptc_sidecar.Client("127.0.0.1:1", balancing="sticky")
    with ptc_sidecar.Client(["127.0.0.1:1", "127.0.0.1:2"]) as client:
        assert client.target == "ipv4:127.0.0.1:1,127.0.0.1:2"


@pytest.mark.parametrize("balancing", ["by_run", "round_robin"])
def test_async_runs_survive_losing_one_of_three_replicas(binary, balancing):
    import asyncio

    metrics = ("--metrics-listen", "127.0.0.1:0")

    async def drive_async(client, i, gate):
        calls = []

        async def search(query):
            calls.append(("search", query))
            return [{"id": f"doc-{i}-{k}", "title": f"{query} {k}"} for k in range(1 + i % 4)]

        async def read(id):
            calls.append(("read", id))
            return {"title": id, "revenue": 10.5 + i}

        async def settle(amount, run):
            calls.append(("settle", amount, run))
            if gate is not None:
                gate["arrived"] += 1
                if gate["arrived"] == RUNS:
                    gate["all"].set()
                await gate["open"].wait()
            return amount * 3 + run

        run = client.run(mission=f"Settle account {i}", tools={"search": search, "read": read, "settle": settle},
                         data={"query": f"account {i}", "run": i}, max_turns=len(SCRIPT), protocol=protocol_of(i))
        turns = []
        for program in SCRIPT:
            prompt = (await run.next_messages(timeout=HANG)).messages
            turn = await run.step(reply(program), timeout=HANG)
            turns.append((prompt, turn.number, turn.success, turn.result, turn.prints))
        return run.result, turns, calls

    async def main(replicas):
        async with ptc_sidecar.AsyncClient(replicas[0].target) as one:
            expected = await asyncio.gather(*(drive_async(one, i, None) for i in range(RUNS)))
        gate = {"arrived": 0, "all": asyncio.Event(), "open": asyncio.Event()}
        async with ptc_sidecar.AsyncClient([r.target for r in replicas], balancing=balancing) as pool:
            runs = asyncio.gather(*(drive_async(pool, i, gate) for i in range(RUNS)))
            try:
                arrived = asyncio.ensure_future(gate["all"].wait())
                await asyncio.wait([arrived, runs], timeout=HANG, return_when=asyncio.FIRST_COMPLETED)
                if runs.done():
                    runs.result()  # a run that failed before the gate says why
                assert arrived.done(), "the runs never reached the gate"
                kill_the_busiest(replicas)
            finally:
                gate["open"].set()
            got = await runs
        assert got == expected
        assert all(len(calls) == 3 for _, _, calls in got)

    with Server(binary, *metrics) as a, Server(binary, *metrics) as b, Server(binary, *metrics) as c:
        asyncio.run(main([a, b, c]))


def test_a_dns_name_is_a_target(target):
    port = target.rsplit(":", 1)[1]
    for balancing in ("by_run", "round_robin"):
        with ptc_sidecar.Client(f"dns:///localhost:{port}", balancing=balancing) as client:
            run = client.run(mission="Add", max_turns=2)
            run.next_messages()
            assert run.step(reply("(return (+ 1 2))")).result == 3


def test_grpc_retries_unavailable_unless_max_retries_is_0():
    import json

    from ptc_sidecar._base import channel_options

    def config(retries):
        return json.loads(dict(channel_options(1 << 20, (), "round_robin", retries))["grpc.service_config"])

    on = config(True)
    assert on["loadBalancingConfig"] == [{"round_robin": {}}]
    (methods,) = on["methodConfig"]
    assert methods["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert {n["method"] for n in methods["name"]} == {"EvalTurn", "ToMessages", "ListStrategies"}
    assert "methodConfig" not in config(False)
