"""A run driven by tool calls (program_form="tool_call") against the real
server: the LLM calls run_ptc_lisp in OpenAI's, Anthropic's or the
Responses API's shape, and the prompt renders each past turn as that call
and a tool message."""

from __future__ import annotations

import asyncio
import json

import pytest

import ptc_sidecar
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2
from ptc_sidecar._toolcall import program_call

ORDERS = [{"id": i, "total": i * 10} for i in range(1, 41)]


def openai_call(call_id, program, text=None):
    return {"choices": [{"message": {"role": "assistant", "content": text, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "run_ptc_lisp",
                                                         "arguments": json.dumps({"program": program})}}]}}]}


def anthropic_call(call_id, program, text="Summing."):
    return {"role": "assistant", "content": [{"type": "text", "text": text},
                                             {"type": "tool_use", "id": call_id, "name": "run_ptc_lisp",
                                              "input": {"program": program}}]}


def responses_call(call_id, program):
    return {"output": [{"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
                       {"type": "function_call", "id": "fc_1", "call_id": call_id, "name": "run_ptc_lisp",
                        "arguments": json.dumps({"program": program})}]}


@pytest.mark.parametrize("protocol", ["replay", "stream"])
@pytest.mark.parametrize("strategy", ["single-user-coalesced", "cache-stable"])
def test_a_run_driven_by_tool_calls(client, protocol, strategy):
    fetched = []

    def orders(since):
        fetched.append(since)
        return ORDERS

    run = client.run(mission="Sum the orders' totals.", tools={"orders": orders}, max_turns=5,
                     protocol=protocol, strategy=strategy, program_form="tool_call")
    prompt = run.next_messages()
    assert prompt.tools == [{"type": "function", "function": {
        "name": "run_ptc_lisp", "description": prompt.stats["program_tool"]["description"],
        "parameters": {"type": "object", "properties": {"program": {"type": "string", "description": "The PTC-Lisp program: one or more forms."}},
                       "required": ["program"], "additionalProperties": False}}}]
    assert prompt.anthropic_tools[0]["input_schema"]["required"] == ["program"]
    assert prompt.responses_tools[0]["name"] == "run_ptc_lisp"
    assert "run_ptc_lisp" in prompt.messages[0]["content"] and "```clojure" not in prompt.messages[0]["content"]

    one = run.step(openai_call("call_1", "(def all (tool/orders {:since 0})) all"))
    assert (one.success, fetched) == (True, [0])
    prompt = run.next_messages()
    roles = [m["role"] for m in prompt.messages]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    call = prompt.messages[2]["tool_calls"][0]
    assert (call["id"], call["function"]["name"]) == ("call_1", "run_ptc_lisp")
    assert json.loads(call["function"]["arguments"]) == {"program": "(def all (tool/orders {:since 0})) all"}
    result = prompt.messages[3]
    assert result["tool_call_id"] == "call_1" and "(40 items, showing first 3)" in result["content"]
    assert "all" in prompt.messages[4]["content"]  # the memory: the whole value is there

    # Anthropic's shape: tool_use in, tool_use and tool_result out.
    two = run.step(anthropic_call("toolu_2", "(reduce + (map :total al))"))
    assert not two.success
    anthropic = run.next_messages().to_anthropic()
    blocks = [b for m in anthropic.messages for b in (m["content"] if isinstance(m["content"], list) else [])]
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    assert [u["id"] for u in uses] == ["call_1", "toolu_2"] and uses[1]["input"] == {"program": "(reduce + (map :total al))"}
    answers = [b for b in blocks if b.get("type") == "tool_result"]
    assert [a["tool_use_id"] for a in answers] == ["call_1", "toolu_2"]
    assert "al" in json.dumps(answers[1]) and "Error" in json.dumps(answers[1])

    # The Responses API's shape; the transcript before is the previous prompt's.
    before = run.next_messages()
    three = run.step(responses_call("call_3", "(return (reduce + (map :total all)))"))
    assert three.returned and run.result == sum(o["total"] for o in ORDERS)
    assert run.turns[-1].raw_response == ""
    saved = json.loads(run.to_json())
    assert [t.get("program_call_id") for t in saved["turns"]] == ["call_1", "toolu_2", "call_3"]
    assert before.stats["stable_prefix_tokens"] > 0


def test_a_reply_without_a_call_falls_back_to_its_fenced_block(client):
    run = client.run(mission="m", max_turns=2, program_form="tool_call")
    turn = run.step("```clojure\n(+ 1 2)\n```")
    assert (turn.success, turn.result) == (True, 3)


def test_bad_arguments_are_a_turn_the_llm_reads(client):
    run = client.run(mission="m", max_turns=3, program_form="tool_call")
    bad = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "run_ptc_lisp", "arguments": '{"program": "(+ 1'}}]}
    turn = run.step(bad)
    assert turn.error.type == "no_program" and "program_call.arguments" in turn.error.message
    prompt = run.next_messages()
    assert "program_call.arguments" in prompt.messages[3]["content"]


def test_program_call_reads_every_shape():
    assert program_call("text") == (None, "text")
    call, text = program_call(anthropic_call("t1", "(+ 1 2)", text="Here."))
    assert (call.id, json.loads(call.arguments), text) == ("t1", {"program": "(+ 1 2)"}, "Here.")
    call, text = program_call(openai_call("c1", "1", text="ok")["choices"][0]["message"])
    assert (call.id, call.arguments, text) == ("c1", '{"program": "1"}', "ok")
    call, _ = program_call(responses_call("c3", "2")["output"])
    assert call.id == "c3"
    other = {"role": "assistant", "content": None,
             "tool_calls": [{"id": "x", "type": "function", "function": {"name": "search", "arguments": "{}"}}]}
    assert program_call(other) == (None, "")


def test_program_form_is_checked(client):
    with pytest.raises(ptc_sidecar.SidecarError, match="program_form"):
        client.run(mission="m", program_form="json").next_messages()


def test_an_async_run_takes_the_call(target):
    async def main():
        async with ptc_sidecar.AsyncClient(target) as client:
            run = client.run(mission="m", max_turns=2, program_form="tool_call")
            prompt = await run.next_messages()
            assert prompt.tools[0]["function"]["name"] == "run_ptc_lisp"
            turn = await run.step(anthropic_call("toolu_9", "(return (* 6 7))"))
            return turn, run.result

    turn, result = asyncio.run(main())
    assert (turn.returned, result) == (True, 42)


def test_eval_turn_takes_the_call_in_every_shape(client):
    fetched = []

    def orders(since):
        fetched.append(since)
        return ORDERS[:3]

    program = "(reduce + (map :total (tool/orders {:since 2})))"
    shapes = [openai_call("call_1", program)["choices"][0]["message"]["tool_calls"][0],
              anthropic_call("toolu_2", program)["content"][1],
              responses_call("call_3", program)["output"][1],
              chat_pb2.ChatToolCall(id="call_4", name="run_ptc_lisp", arguments=json.dumps({"program": program}))]
    for n, call in enumerate(shapes, 1):
        for protocol in ("replay", "stream"):
            turn = client.eval_turn(program_call=call, tools={"orders": orders}, protocol=protocol)
            assert (turn.success, turn.result) == (True, 60), (n, protocol, turn.error)
            assert turn._wire.program_call_id == ["call_1", "toolu_2", "call_3", "call_4"][n - 1]
            assert turn.program == program
    assert fetched == [2] * 8


def test_eval_turn_with_a_call_the_llm_wrote_wrong_or_of_another_tool(client):
    bad = {"id": "c1", "type": "function", "function": {"name": "run_ptc_lisp", "arguments": '{"code": "1"}'}}
    turn = client.eval_turn(program_call=bad)
    assert not turn.success and turn.error.type == "no_program" and "program_call.arguments" in turn.error.message
    other = {"type": "tool_use", "id": "t", "name": "search", "input": {"q": "x"}}
    with pytest.raises(ptc_sidecar.InvalidArgumentError, match="program_call.name"):
        client.eval_turn(program_call=other)
    with pytest.raises(ValueError, match="program or program_call, not both"):
        client.eval_turn("1", program_call=bad)
    with pytest.raises(TypeError, match="program_call: want a tool call"):
        client.eval_turn(program_call="(+ 1 2)")
    with pytest.raises(ValueError, match=r"program_call.type: 'text'"):
        client.eval_turn(program_call={"type": "text", "text": "hi"})


def test_an_async_client_evaluates_a_call(target):
    async def main():
        async with ptc_sidecar.AsyncClient(target) as client:
            return await client.eval_turn(program_call=anthropic_call("toolu_7", "(* 6 7)")["content"][1])

    turn = asyncio.run(main())
    assert (turn.result, turn._wire.program_call_id) == (42, "toolu_7")


@pytest.mark.parametrize("protocol", ["replay", "stream"])
def test_a_reply_without_a_call_is_told_to_call_the_tool(client, protocol):
    run = client.run(mission="m", max_turns=3, program_form="tool_call", protocol=protocol)
    turn = run.step({"role": "assistant", "content": "I will add them up."})
    assert turn.error.type == "no_program" and "made no run_ptc_lisp call" in turn.error.message
    assert 'call run_ptc_lisp with arguments {"program"' in turn.error.hint and "fenced" not in turn.error.hint
    assert run.step("").error.hint == turn.error.hint  # an empty reply too
    prompt = run.next_messages()
    assert any('call run_ptc_lisp with arguments {"program"' in (m.get("content") or "") for m in prompt.messages)
    fenced = client.run(mission="m", max_turns=3, protocol=protocol).step("I will add them up.")
    assert "fenced block" in fenced.error.hint
    # The plain client says the same given an empty call beside the reply's text.
    plain = client.eval_turn(raw_response="I will add them up.", program_call=chat_pb2.ChatToolCall(), protocol=protocol)
    assert plain.error.hint == turn.error.hint
