"""The run object against the real server: the loop's bookkeeping, saving and
resuming (in another process, from the README's agent), and requests that
grow with the run, not its square."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import grpc
import pytest

import ptc_sidecar
from conftest import REPO, TESTS
from scripted_llm import MISSION, AsyncScriptedOpenAI

PROTOCOLS = ["replay", "stream"]
RUN_FIXTURE = REPO / "clients" / "testdata" / "run-v1.json"


def reply(program):
    return f"Sure.\n\n```clojure\n{program}\n```"



@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_run_keeps_the_loops_books(client, protocol):
    calls = []

    def double(n):
        calls.append(n)
        return n * 2

    run = client.run(mission="Double things", tools={"double": double}, data={"start": 5}, max_turns=4,
                     protocol=protocol, limits={"max_steps": 10_000})
    assert (run.status, run.done, run.turn_number, run.memory) == ("running", False, 1, None)
    with pytest.raises(ptc_sidecar.SidecarError, match="has not finished"):
        run.result

    prompt = run.next_messages()
    assert [m["role"] for m in prompt.messages] == ["system", "user"]
    assert "Double things" in prompt.messages[1]["content"] and "Turns left: 4" in prompt.messages[1]["content"]
    one = run.step(reply("(def x (tool/double {:n data/start})) x"))
    assert (one.number, one.success, one.result, calls) == (1, True, 10, [5])

    two = run.step({"role": "assistant", "content": reply("(+ x (:nope x))")})  # fails: memory stays
    assert (two.number, two.success) == (2, False)
    assert run.memory.names == ["x"]

    # *1 is the newest successful result (turn 1's), *2 none yet.
    three = run.step(reply("(def y (tool/double {:n *1})) [*1 *2 y]"))
    assert three.result == [10, None, 20]
    assert "FINAL TURN" in run.next_messages().messages[1]["content"]
    assert [t.number for t in run.turns] == [1, 2, 3]
    assert all(t.memory is None for t in run.turns)  # the run keeps its newest memory only

    four = run.step(reply("(return {:x x :y y :last *1})"))
    assert four.returned and run.status == "returned" and run.done
    assert run.result == {"x": 10, "y": 20, "last": [10, None, 20]}
    with pytest.raises(ptc_sidecar.RunFinishedError, match=r"run has ended \(returned after 4 turns\)"):
        run.step(reply("1"))
    with pytest.raises(ptc_sidecar.RunFinishedError):
        run.next_messages()


def test_a_run_that_fails_or_runs_out(client):
    failed = client.run(mission="m", max_turns=3)
    failed.step(reply('(fail {:reason "no data"})'))
    assert failed.status == "failed"
    with pytest.raises(ptc_sidecar.RunFailedError, match=r"failed on turn 1.*no data") as err:
        failed.result
    assert err.value.status == "failed" and err.value.turn.number == 1

    out = client.run(mission="m", max_turns=2)
    out.step(reply("(def a 1)"))
    out.step("I am not sure what to do.")  # no program: a failed turn the LLM reads about
    assert out.turns[-1].error.type == "no_program"
    assert out.status == "out_of_turns"
    with pytest.raises(ptc_sidecar.RunFailedError, match=r"used its 2 turns without returning; the last one failed "
                                                         r"\(no_program"):
        out.result


def test_run_arguments_are_checked(client):
    with pytest.raises(TypeError, match=r"unknown option 'mision' \(did you mean 'mission'\?\)"):
        client.run(mision="m")
    with pytest.raises(TypeError, match="unknown limit 'max_step'"):
        client.run(mission="m", limits={"max_step": 1})
    with pytest.raises(ValueError, match="max_turns must be a positive int"):
        client.run(mission="m", max_turns=0)
    with pytest.raises(ptc_sidecar.InvalidArgumentError, match="options.strategy"):
        client.run(mission="m", strategy="no-such").next_messages()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_resumed_run_goes_on_as_if_never_stopped(client, protocol):
    def tools():
        return {"inc": ptc_sidecar.Tool(lambda n: n + 1, signature="(n :int) -> :int")}

    programs = ["(def a (tool/inc {:n 1})) a", "(undefined-fn)", "(def b (tool/inc {:n *1})) [a b]",
                '(defn twice [v] (* 2 v)) (println "b is" b) (twice b)', "(return (+ *1 (first *2)))"]

    whole = client.run(mission="Count up", tools=tools(), data={"big": 2**63 - 1}, max_turns=6, protocol=protocol)
    resumed = client.run(mission="Count up", tools=tools(), data={"big": 2**63 - 1}, max_turns=6, protocol=protocol)
    for program in programs:
        saved = resumed.to_json()
        assert json.loads(saved)["version"] == 1
        resumed = client.resume(saved, tools=tools())
        assert resumed.next_messages() == whole.next_messages()  # the same prompt, the same stats
        whole.step(reply(program))
        resumed.step(reply(program))
    assert resumed.status == whole.status == "returned"
    assert resumed.result == whole.result == 8
    assert [comparable(t) for t in resumed.turns] == [comparable(t) for t in whole.turns]
    assert resumed.memory == whole.memory
    assert resumed.to_dict()["previous_results"] == whole.to_dict()["previous_results"]


def test_saved_runs_are_checked(client):
    run = client.run(mission="m", tools={"a": lambda: 1, "b": lambda: 2})
    saved = run.to_dict()
    with pytest.raises(ValueError, match=r"the saved run has tools a, b; missing b"):
        client.resume(saved, tools={"a": lambda: 1})
    with pytest.raises(ValueError, match="saved run of version 2; this ptc_sidecar reads version 1: upgrade"):
        client.resume({**saved, "version": 2}, tools={"a": lambda: 1, "b": lambda: 2})
    with pytest.raises(ValueError, match=r"turns\[0\]"):
        client.resume({**saved, "turns": [{"number": "one"}]}, tools={"a": lambda: 1, "b": lambda: 2})
    with pytest.raises(TypeError, match=r"AsyncRun.from_json: a Client runs a Run; use Run.from_json"):
        ptc_sidecar.AsyncRun.from_json(saved, client=client, tools={"a": lambda: 1, "b": lambda: 2})


def test_a_run_saved_by_either_client_resumes_in_both():
    """clients/testdata/run-v1.json is a run the Python client saved; the
    TypeScript tests read the same file. Reading and writing it again gives
    it back unchanged."""
    saved = json.loads(RUN_FIXTURE.read_text())
    run = ptc_sidecar.Run.from_dict(saved, client=None, tools={"inc": lambda n: n + 1})
    assert run.to_dict() == saved
    assert run.status == "running" and run.turn_number == 4
    assert [t.success for t in run.turns] == [True, False, True]
    assert run.memory.names == ["a", "twice", "big"]


def test_the_readme_agent_resumes_in_a_new_process_every_turn(target, tmp_path):
    """The agent of agent_step.py, one process per turn, each resuming the
    run the last one saved; then the same agent in one process, unsaved."""
    state, tool_log = tmp_path / "run.json", tmp_path / "tools.log"
    lines = []
    for _ in range(8):
        out = subprocess.run([sys.executable, str(TESTS / "agent_step.py"), str(state), target, str(tool_log)],
                             capture_output=True, text=True, timeout=60, env=os.environ.copy(), cwd=TESTS)
        assert out.returncode == 0, out.stderr
        lines.append(json.loads(out.stdout))
        if lines[-1]["status"] != "running":
            break
    assert [(x["turn"], x["success"], x["status"]) for x in lines] == [
        (1, True, "running"), (2, False, "running"), (3, True, "running"), (4, True, "returned")]
    assert lines[-1]["result"] == {"quarter": "Q3", "revenue": 12.5, "title": "Q3 report"}
    ran = [json.loads(line)[0] for line in tool_log.read_text().splitlines()]
    assert ran == ["search", "read", "read"]  # each call ran once

    saved = json.loads(state.read_text())
    assert saved["version"] == 1 and len(saved["turns"]) == 4
    assert not any("memory" in t for t in saved["turns"])
    assert {b["name"] for b in saved["memory"]["bindings"]} == {"hits", "doc"}

    # The same agent without saving: the same turns.
    sys.path.insert(0, str(TESTS))
    try:
        import agent_step
    finally:
        sys.path.remove(str(TESTS))

    async def in_one_process():
        llm = AsyncScriptedOpenAI(agent_step.MAX_TURNS)
        async with ptc_sidecar.AsyncClient(target) as sidecar:
            run = sidecar.run(mission=MISSION, tools=agent_step.TOOLS, data={"quarter": "Q3"},
                              max_turns=agent_step.MAX_TURNS)
            while not run.done:
                prompt = await run.next_messages()
                completion = await llm.chat.completions.create(model="gpt-4.1", messages=prompt.messages)
                await run.step(completion.choices[0].message)
            return run

    agent_step.TOOL_LOG = tmp_path / "again.log"
    run = asyncio.run(in_one_process())
    assert [comparable(ptc_sidecar.Turn.from_dict(t)) for t in saved["turns"]] == [comparable(t) for t in run.turns]


class RequestSizes(grpc.UnaryUnaryClientInterceptor):
    """Records each ToMessages request."""

    def __init__(self):
        self.requests = []

    def intercept_unary_unary(self, continuation, details, request):
        if details.method.endswith("/ToMessages"):
            self.requests.append(request)
        return continuation(details, request)


def test_a_300_turn_run_sends_requests_that_grow_linearly(target):
    sizes = RequestSizes()
    with ptc_sidecar.Client(target, interceptors=[sizes]) as client:
        run = client.run(mission="Fill memory", max_turns=300)
        while not run.done:
            run.next_messages()
            n = run.turn_number
            run.step(reply(f'(def v{n} (vec (range 40))) (println "turn" {n}) {n}'))
    assert run.status == "out_of_turns" and len(run.turns) == 300
    assert len(run.memory) == 300

    requests = sizes.requests
    assert len(requests) == 300
    for r in requests[2:]:
        # The memory goes once, and once more as the second-to-last turn's.
        with_memory = [i for i, t in enumerate(r.turns) if t.HasField("memory")]
        assert with_memory == [len(r.turns) - 2]
        assert len(r.memory.bindings) == len(r.turns)
    bytes_at = {len(r.turns): r.ByteSize() for r in requests}
    growth = bytes_at[299] / bytes_at[149]
    assert 1.8 < growth < 2.2, bytes_at  # linear: twice the turns, twice the bytes
    assert bytes_at[299] < 1 << 20  # far below the sidecar's 16 MiB
    # Each turn defined one name, so turn k's snapshot was the first k
    # bindings. Sent with every snapshot, the last request would be over
    # forty times larger.
    last = requests[-1]
    every = type(last)()
    every.CopyFrom(last)
    for k, t in enumerate(every.turns):
        t.memory.bindings.extend(last.memory.bindings[:k + 1])
    assert every.ByteSize() > 40 * last.ByteSize()


def comparable(turn):
    """A turn's wire record without its timings, which differ from run to run."""
    data = turn.to_dict()
    data.pop("duration_ms", None)
    data.pop("memory", None)
    for call in data.get("tool_calls", []):
        call.pop("duration_ms", None)
    return data


def write_run_fixture(target):
    """Writes clients/testdata/run-v1.json: PTC_SIDECAR_WRITE_FIXTURE=1."""
    def inc(n):
        time.sleep(0.02)  # a duration_ms to write
        return n + 1

    with ptc_sidecar.Client(target) as client:
        run = client.run(mission="Count up", tools={"inc": ptc_sidecar.Tool(inc, signature="(n :int) -> :int")},
                         data={"big": 2**63 - 1, "note": "héllo"}, max_turns=6, limits={"max_steps": 100_000})
        for program in ["(def a (tool/inc {:n 1})) a", "(undefined-fn)",
                        "(defn twice [v] (* 2 v)) (def big data/big) [(twice *1) {1 :int-key}]"]:
            run.step(reply(program))
    RUN_FIXTURE.parent.mkdir(exist_ok=True)
    RUN_FIXTURE.write_text(json.dumps(run.to_dict(), indent=2, ensure_ascii=False) + "\n")


@pytest.mark.skipif(not os.environ.get("PTC_SIDECAR_WRITE_FIXTURE"), reason="writes the fixture when asked")
def test_write_run_fixture(target):
    write_run_fixture(target)
