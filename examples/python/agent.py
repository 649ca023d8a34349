#!/usr/bin/python3
"""A PTC-Lisp shopping agent that uses ptc-sidecar for its prompts and its sandbox.

The loop, once per turn:

    messages = ToMessages(turns, memory, options)   # [SYSTEM, USER], compressed
    reply    = llm(messages)                        # here: a scripted fake LLM
    turn     = EvalTurn(reply, prelude=memory, ...) # tools run here, in Python
    turns.append(turn); memory = turn.memory

until the program calls (return ...) or (fail ...), or the turns run out.

Usage:
    /usr/bin/python3 examples/python/agent.py --target 127.0.0.1:50051 [--protocol replay|stream|both]

It checks what it expects at every step and exits 1 on any surprise, so it
doubles as an end-to-end test (make test-python).
"""

import argparse
import os
import sys

# The generated stubs live in gen/python at the repository's root. A project
# of your own would vendor that folder or put it on PYTHONPATH instead.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "gen", "python"))

import grpc  # noqa: E402
from ptcsidecar.v1 import compression_pb2, eval_pb2, service_pb2_grpc, turn_pb2, values_pb2  # noqa: E402

import edn  # noqa: E402
import sidecar  # noqa: E402
from fake_llm import ScriptedLLM, UnexpectedPrompt  # noqa: E402
from shop import TOOL_SPECS, Shop  # noqa: E402

MISSION = "Find the best-rated headphones within the budget and add one to the cart."
MAX_TURNS = 6
# The task's input data. Values may be sent as JSON; the sidecar answers in EDN.
DATA = values_pb2.Value(json='{"category": "headphones", "budget": 100}')

PROTOCOLS = {"replay": sidecar.eval_turn_replay, "stream": sidecar.eval_turn_stream}


class Surprise(Exception):
    """Something the example expects did not happen."""


def check(condition, message):
    if not condition:
        raise Surprise(message)


def run_agent(stub, protocol, llm, shop, say=print):
    """Runs the agent loop to the end; returns the turns."""
    evaluate = PROTOCOLS[protocol]
    options = compression_pb2.Options(mission=MISSION, tools=TOOL_SPECS, data=DATA, max_turns=MAX_TURNS)
    turns = []
    memory = turn_pb2.Memory()
    previous_results = []  # results of the successful turns, newest first: *1, *2, *3

    for number in range(1, MAX_TURNS + 1):
        # 1. The prompt: the whole run so far, compressed into one USER message.
        prompt = stub.ToMessages(
            compression_pb2.ToMessagesRequest(turns=turns, memory=memory, options=options),
            timeout=sidecar.RPC_TIMEOUT_SECONDS,
        )
        stats = prompt.stats
        say(f"\n=== turn {number} ({protocol}) ===")
        say(f"--- prompt: {stats.tokens_after} tokens, SYSTEM and USER (the uncompressed history: "
            f"{stats.messages_before} messages, {stats.tokens_before} tokens); the USER message:")
        say(_indent(prompt.messages[1].content, "  |"))

        # 2. The LLM's reply.
        reply = llm.complete(prompt.messages)

        # 3. The program, evaluated in the sidecar; tool calls come back here.
        request = eval_pb2.EvalTurnRequest(
            raw_response=reply,
            prelude=memory,
            data=DATA,
            tools=TOOL_SPECS,
            turn_number=number,
            previous_results=previous_results,
        )
        turn = evaluate(stub, request, shop)
        say("--- program:")
        say(_indent(turn.program, "  >"))
        for call in turn.tool_calls:
            outcome = f"error: {call.error}" if call.error else _short(call.result.edn)
            say(f"--- tool {call.index}: {call.name} {call.args.edn} -> {outcome}")
        if turn.success:
            say(f"--- result: {turn.result.edn}")
        else:
            say(f"--- FAILED ({turn.error.type}): {turn.error.message}")

        # 4. The turn joins the history as it came; memory moves on. A failed
        # turn's memory is the prelude unchanged, so taking it is always right.
        turns.append(turn)
        memory = turn.memory
        if turn.success:
            previous_results.insert(0, turn.result)
        if turn.returned or turn.failed:
            break
    return turns


def check_run(turns, shop):
    """The run went as the script intends: a failure on turn 2, recovered on
    turn 3, the item bought exactly once, and the right answer returned."""
    check(len(turns) == 4, f"the run took {len(turns)} turns, want 4")
    check([t.success for t in turns] == [True, False, True, True], f"successes {[t.success for t in turns]}")
    check(turns[1].error.type == "tool_error", f"turn 2 error {turns[1].error}")
    check(not turns[1].HasField("result"), "a failed turn has no result")
    check(turns[3].returned, "the last turn did not return")
    check([b.name for b in turns[3].memory.bindings] == ["candidates", "avg-rating", "best"],
          f"memory after the run: {[b.name for b in turns[3].memory.bindings]}")
    answer = edn.loads(turns[3].result.edn)
    check(answer == {"product-id": "p1", "rating": 4.5, "cart-size": 1}, f"returned {answer}")
    # Tools ran once per call made, never again on replay: 1 search, 1 failed
    # review lookup, 3 review lookups, 1 add to cart.
    check(dict(shop.runs) == {"search-products": 1, "get-reviews": 4, "add-to-cart": 1}, f"tool runs {dict(shop.runs)}")
    check(shop.cart == [("p1", 1)], f"cart {shop.cart}")


def comparable(turn):
    """A turn without its timings, which differ from run to run."""
    out = turn_pb2.Turn()
    out.CopyFrom(turn)
    out.duration_ms = 0
    for call in out.tool_calls:
        call.duration_ms = 0
    return out


def _indent(text, prefix):
    return "\n".join(prefix + (" " + line if line else "") for line in text.split("\n"))


def _short(text, limit=100):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="127.0.0.1:50051", help="the sidecar's address (default %(default)s)")
    parser.add_argument("--protocol", choices=["replay", "stream", "both"], default="both",
                        help="the tool protocol: unary EvalTurn with replay, EvalTurnStream, or both in turn (default)")
    parser.add_argument("--quiet", action="store_true", help="print only the outcome")
    args = parser.parse_args()
    say = (lambda *a: None) if args.quiet else print

    with grpc.insecure_channel(args.target) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        stub = service_pb2_grpc.SidecarServiceStub(channel)
        protocols = ["replay", "stream"] if args.protocol == "both" else [args.protocol]
        runs = {}
        try:
            for protocol in protocols:
                shop = Shop()
                turns = run_agent(stub, protocol, ScriptedLLM(), shop, say)
                check_run(turns, shop)
                runs[protocol] = turns
                print(f"{protocol}: ok, {len(turns)} turns, returned {turns[-1].result.edn}")
            if len(runs) == 2:
                same = [comparable(a) == comparable(b) for a, b in zip(runs["replay"], runs["stream"])]
                check(all(same), f"the protocols gave different turns: equal per turn {same}")
                print("replay and stream gave the same turns")
        except (Surprise, UnexpectedPrompt) as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
        except grpc.RpcError as e:
            print(f"FAIL: RPC error {e.code().name}: {e.details()}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
