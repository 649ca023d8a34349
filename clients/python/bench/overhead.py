"""What the ptc_sidecar client adds per turn over calling the raw stubs.

Runs the same 20-turn agent (each turn: a prompt from ToMessages, then a
program with two tool calls evaluated over replay) twice per round, once
with hand-written calls on the generated stubs and once with the package,
alternating, and prints the median time per turn of each and the
difference, in wall time and in this process's CPU time. Also prints how many lines one agent turn takes each way.

    PYTHONPATH=clients/python/src /usr/bin/python3 clients/python/bench/overhead.py [--rounds 15]

It starts the real server itself (PTC_SIDECAR_BIN, or a `go build`).
"""

from __future__ import annotations

import argparse
import inspect
import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import grpc  # noqa: E402
from conftest import running_server  # noqa: E402  (the test suite's server starter)

import ptc_sidecar  # noqa: E402
from ptc_sidecar._pb.ptcsidecar.v1 import (  # noqa: E402
    compression_pb2,
    eval_pb2,
    service_pb2_grpc,
    values_pb2,
)

TURNS = 20
PROGRAM = '(def p (tool/price {:sku "A-%d"})) (def s (tool/stock {:sku "A-%d"})) (println p s) {:n %d :value (* p s)}'
DATA = {"shop": "north", "currency": "EUR"}


def price(sku):
    return 12.5


def stock(sku):
    return 3


TOOLS = {"price": price, "stock": stock}


def raw_turn(stub, turns, memory, number):
    """One agent turn on the generated stubs, with the JSON forms."""
    options = compression_pb2.Options(mission="Value the stock", data=values_pb2.Value(json=json.dumps(DATA)),
                                      tools=[values_pb2.ToolSpec(name=n) for n in TOOLS])
    prompt = stub.ToMessages(compression_pb2.ToMessagesRequest(turns=turns, memory=memory, options=options), timeout=30)
    messages = [{"role": m.role, "content": m.content} for m in prompt.messages]
    request = eval_pb2.EvalTurnRequest(program=PROGRAM % (number, number, number), prelude=memory,
                                       data=values_pb2.Value(json=json.dumps(DATA)), turn_number=number,
                                       tools=[values_pb2.ToolSpec(name=n) for n in TOOLS])
    while True:
        response = stub.EvalTurn(request, timeout=30)
        if response.HasField("turn"):
            break
        for call in response.pending.calls:
            answer = eval_pb2.ToolResult(index=call.index, name=call.name, args=call.args)
            try:
                answer.result.json = json.dumps(TOOLS[call.name](**json.loads(call.args.json)))
            except Exception as e:
                answer.error = str(e)
            request.tool_results.append(answer)
    turn = response.turn
    return messages, turn, turn.memory, json.loads(turn.result.json) if turn.result.json else None


def client_turn(client, turns, memory, number):
    """The same turn with the package."""
    prompt = client.to_messages(turns, memory, mission="Value the stock", data=DATA, tools=TOOLS)
    turn = client.eval_turn(PROGRAM % (number, number, number), tools=TOOLS, memory=memory, data=DATA,
                            turn_number=number)
    return prompt.messages, turn, turn.memory, turn.result


def run(turn_fn, handle):
    """Wall time and this process's CPU time per turn of one 20-turn run."""
    turns, memory = [], None
    started, cpu = time.perf_counter(), time.process_time()
    for number in range(1, TURNS + 1):
        _, turn, memory, result = turn_fn(handle, turns, memory, number)
        assert result == {"n": number, "value": 37.5}, result
        turns.append(turn)
    return (time.perf_counter() - started) / TURNS, (time.process_time() - cpu) / TURNS


def code_lines(fn):
    """Lines of a function's body that are code (no docstring, blanks, comments)."""
    body = inspect.getsource(fn).split('"""')[2].splitlines()
    return sum(1 for line in body if line.strip() and not line.strip().startswith("#"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    with running_server() as target, grpc.insecure_channel(target) as channel, \
            ptc_sidecar.Client(target) as client:
        stub = service_pb2_grpc.SidecarServiceStub(channel)
        run(raw_turn, stub), run(client_turn, client)  # warm up
        raw_times, pkg_times = [], []
        for _ in range(args.rounds):
            raw_times.append(run(raw_turn, stub))
            pkg_times.append(run(client_turn, client))
    print(f"{TURNS}-turn run, 2 tool calls per turn (3 EvalTurn calls and 1 ToMessages), replay, "
          f"median of {args.rounds} rounds, per turn:")
    for label, index in (("wall time", 0), ("client CPU", 1)):
        r = statistics.median(t[index] for t in raw_times)
        p = statistics.median(t[index] for t in pkg_times)
        print(f"  {label:<10}  raw stubs {r * 1000:6.2f} ms   ptc_sidecar {p * 1000:6.2f} ms   "
              f"difference {(p - r) * 1000:+.2f} ms ({(p - r) / r * 100:+.0f}%)")
    print(f"lines of code for one agent turn: raw stubs {code_lines(raw_turn)}, ptc_sidecar {code_lines(client_turn)}")


if __name__ == "__main__":
    main()
