#!/usr/bin/python3
"""A PTC-Lisp shopping agent on the ptc_sidecar package.

The loop, on a run object that keeps the turns, memory and *1 *2 *3:

    run = client.run(mission=..., tools=..., data=..., max_turns=6)
    while not run.done:
        prompt = run.next_messages()          # [SYSTEM, USER], compressed
        reply = llm(prompt.messages)          # here: a scripted fake LLM
        turn = run.step(reply)                # evaluated in the sidecar; tools run here

until a program calls (return ...) or (fail ...), or the turns run out.

Usage:
    /usr/bin/python3 examples/python/agent.py [--target ADDRESS] [--protocol replay|stream|both] [--quiet]

--target defaults to $PTC_SIDECAR_TARGET, else 127.0.0.1:50051.

with clients/python installed (pip install ./clients/python) or on PYTHONPATH
(clients/python/src). It checks what it expects at every step and exits 1 on
any surprise, so it doubles as an end-to-end test (make test-python).
"""

import argparse
import json
import os
import sys

import ptc_sidecar
from fake_llm import ScriptedLLM, UnexpectedPrompt
from shop import Shop

MISSION = "Find the best-rated headphones within the budget and add one to the cart."
MAX_TURNS = 6
DATA = {"category": "headphones", "budget": 100}


class Surprise(Exception):
    """Something the example expects did not happen."""


def check(condition, message):
    if not condition:
        raise Surprise(message)


def run_agent(client, protocol, llm, shop, say=print):
    """Runs the agent loop to the end; returns the run."""
    run = client.run(mission=MISSION, tools=shop.tools, data=DATA, max_turns=MAX_TURNS, protocol=protocol)
    while not run.done:
        # 1. The prompt: the whole run so far, compressed into one USER message.
        prompt = run.next_messages()
        stats = prompt.stats
        say(f"\n=== turn {run.turn_number} ({protocol}) ===")
        say(f"--- prompt: {stats['tokens_after']} tokens, SYSTEM and USER (the uncompressed history: "
            f"{stats['messages_before']} messages, {stats['tokens_before']} tokens); the USER message:")
        say(_indent(prompt.messages[1]["content"], "  |"))

        # 2. The LLM's reply.
        reply = llm.complete(prompt.messages)

        # 3. The program, evaluated in the sidecar; its tool calls run here.
        # The run records the turn and moves memory and *1 *2 *3 on.
        turn = run.step(reply)
        say("--- program:")
        say(_indent(turn.program, "  >"))
        for call in turn.tool_calls:
            outcome = f"error: {call.error}" if call.error else _short(json.dumps(call.result))
            say(f"--- tool {call.index}: {call.name} {json.dumps(call.args)} -> {outcome}")
        if turn.success:
            say(f"--- result: {json.dumps(turn.result)}")
        else:
            say(f"--- FAILED ({turn.error.type}): {turn.error.message}")
    return run


def check_run(run, shop):
    """The run went as the script intends: a failure on turn 2, recovered on
    turn 3, the item bought exactly once, and the right answer returned."""
    turns = run.turns
    check(len(turns) == 4, f"the run took {len(turns)} turns, want 4")
    check([t.success for t in turns] == [True, False, True, True], f"successes {[t.success for t in turns]}")
    check(turns[1].error.type == "tool_error", f"turn 2 error {turns[1].error}")
    check(turns[1].result is None, "a failed turn has no result")
    check(run.status == "returned", f"the run ended {run.status}")
    check(run.memory.names == ["candidates", "avg-rating", "best"], f"memory after the run: {run.memory.names}")
    answer = run.result
    check(answer == {"product-id": "p1", "rating": 4.5, "cart-size": 1}, f"returned {answer}")
    # Tools ran once per call made, never again on replay: 1 search, 1 failed
    # review lookup, 3 review lookups, 1 add to cart.
    check(dict(shop.runs) == {"search-products": 1, "get-reviews": 4, "add-to-cart": 1}, f"tool runs {dict(shop.runs)}")
    check(shop.cart == [("p1", 1)], f"cart {shop.cart}")


def comparable(turn):
    """A turn's record without its timings, which differ from run to run."""
    out = turn.to_dict()
    out.pop("duration_ms", None)
    for call in out.get("tool_calls", []):
        call.pop("duration_ms", None)
    return out


def _indent(text, prefix):
    return "\n".join(prefix + (" " + line if line else "") for line in text.split("\n"))


def _short(text, limit=100):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default=os.environ.get("PTC_SIDECAR_TARGET") or "127.0.0.1:50051",
                        help="the sidecar's address (default $PTC_SIDECAR_TARGET, else 127.0.0.1:50051; now %(default)s)")
    parser.add_argument("--protocol", choices=["replay", "stream", "both"], default="both",
                        help="the tool protocol: unary EvalTurn with replay, EvalTurnStream, or both in turn (default)")
    parser.add_argument("--quiet", action="store_true", help="print only the outcome")
    args = parser.parse_args()
    say = (lambda *a: None) if args.quiet else print

    protocols = ["replay", "stream"] if args.protocol == "both" else [args.protocol]
    runs = {}
    with ptc_sidecar.Client(args.target) as client:
        try:
            for protocol in protocols:
                shop = Shop()
                run = run_agent(client, protocol, ScriptedLLM(), shop, say)
                check_run(run, shop)
                runs[protocol] = run.turns
                print(f"{protocol}: ok, {len(run.turns)} turns, returned {json.dumps(run.result)}")
            if len(runs) == 2:
                same = [comparable(a) == comparable(b) for a, b in zip(runs["replay"], runs["stream"])]
                check(all(same), f"the protocols gave different turns: equal per turn {same}")
                print("replay and stream gave the same turns")
        except (Surprise, UnexpectedPrompt) as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
        except ptc_sidecar.SidecarError as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
