"""What a long run sends to ToMessages, with and without turn memory snapshots.

Runs one agent of TURNS turns (each defines one 40-element vector, so the
memory grows by one binding a turn) on the ptc_sidecar package, records
every ToMessages request, and prints the size of some of them next to the
size the same request would have if every turn carried its memory snapshot
(turn k's snapshot holds the first k bindings), the total of both over the
run, and its wall time.

    PYTHONPATH=clients/python/src /usr/bin/python3 clients/python/bench/long_run.py [--turns 300]

It starts the real server itself (PTC_SIDECAR_BIN, or a `go build`).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import grpc  # noqa: E402
from conftest import running_server  # noqa: E402  (the test suite's server starter)

import ptc_sidecar  # noqa: E402


class Recorder(grpc.UnaryUnaryClientInterceptor):
    def __init__(self):
        self.requests = []

    def intercept_unary_unary(self, continuation, details, request):
        if details.method.endswith("/ToMessages"):
            self.requests.append(request)
        return continuation(details, request)


def with_every_snapshot(request):
    """The request with turn k's memory snapshot on every turn k."""
    out = type(request)()
    out.CopyFrom(request)
    for k, turn in enumerate(out.turns):
        turn.memory.Clear()
        turn.memory.bindings.extend(request.memory.bindings[:k + 1])
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()
    recorder = Recorder()
    with running_server() as target, ptc_sidecar.Client(target, interceptors=[recorder]) as client:
        run = client.run(mission="Fill memory", max_turns=args.turns)
        started = time.perf_counter()
        while not run.done:
            run.next_messages()
            n = run.turn_number
            run.step(f'```clojure\n(def v{n} (vec (range 40))) (println "turn" {n}) {n}\n```')
        elapsed = time.perf_counter() - started
    print("| turns in the request | bytes sent | with every snapshot | ratio |\n|---|---|---|---|")
    sent = every = 0
    for request in recorder.requests:
        full = with_every_snapshot(request).ByteSize()
        sent, every = sent + request.ByteSize(), every + full
        if len(request.turns) in (20, 100, args.turns // 2, args.turns - 1):
            print(f"| {len(request.turns)} | {request.ByteSize():,} | {full:,} | {full / request.ByteSize():.1f} |")
    print(f"\n{len(recorder.requests)} ToMessages requests: {sent / 1e6:.1f} MB sent, {every / 1e6:.0f} MB with every "
          f"snapshot; the run took {elapsed:.1f} s")


if __name__ == "__main__":
    main()
