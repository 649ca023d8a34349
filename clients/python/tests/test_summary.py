"""Summaries written by the caller's model, against the real server: a chat
agent and a run object each go 30 turns with a summariser, and every call
between two summaries reads the whole previous prompt from the cache
(stable_prefix_tokens); a summary sent back with other messages is refused
naming summary.digest."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

import ptc_sidecar

INSTRUCTION = "Summarise the conversation above"


def value_summary(messages):
    """A deterministic summariser: the values the messages hold (words with
    a digit), each once. The last message is the instruction."""
    assert messages[-1]["role"] == "user" and messages[-1]["content"].startswith(INSTRUCTION)
    seen = []
    for m in messages[:-1]:
        if m["role"] == "system":
            continue
        text = (m.get("content") or "") + " ".join(c["function"]["arguments"] for c in m.get("tool_calls") or [])
        for word in re.findall(r"[A-Za-z_-]*\d[\w-]*", text):
            if word not in seen:
                seen.append(word)
    return "Values: " + ", ".join(seen[-60:])


def turn_messages(i):
    """The assistant's tool call of turn i and its result."""
    call = {"id": f"call_{i}", "type": "function",
            "function": {"name": "get_order", "arguments": json.dumps({"order_id": f"ORD-{i:04d}"})}}
    result = json.dumps({"order_id": f"ORD-{i:04d}", "tracking": f"TRK{i * 7919:07d}",
                         "lines": [f"item {k} of order {i} costs {100 + i * k}.99" for k in range(10)]})
    return [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": result}]


def check_prefixes(prompts):
    """Between two summaries each call reads everything the previous one
    sent; a new summary keeps the system prompt only."""
    summaries = 0
    for prev, cur in zip(prompts, prompts[1:]):
        if cur.summary == prev.summary:
            assert cur.stats["stable_prefix_tokens"] == prev.stats["tokens_after"]
        else:
            summaries += 1
            assert 0 < cur.stats["stable_prefix_tokens"] < prev.stats["tokens_after"]
            assert cur.summary.text in cur.messages[1]["content"]
    return summaries


def test_a_chat_agent_runs_30_turns_with_a_summariser(client):
    history = [{"role": "system", "content": "You track orders."},
               {"role": "user", "content": "Find the delayed orders of customer C-1042."}]
    asked = []

    def summariser(messages):
        asked.append(messages)
        return value_summary(messages)

    prompts, summary = [], None
    for i in range(30):
        prompt = client.to_messages(history=history, strategy="summarize", summary_trigger=1500,
                                    summary_keep=2, summary=summary, summariser=summariser)
        assert prompt.summary_request is None and prompt.stats["tokens_after"] <= 1500
        prompts.append(prompt)
        summary = prompt.summary
        history += turn_messages(i)
    assert check_prefixes(prompts) >= 3 and len(asked) >= 3
    # Each request is a prompt a call sent before, then the instruction.
    sent = [p.messages for p in prompts]
    for request in asked:
        assert request[:-1] in sent

    # The summary of other messages is refused, naming the field.
    other = [dict(m) for m in history]
    other[3] = {**other[3], "content": "another result"}
    with pytest.raises(ptc_sidecar.InvalidArgumentError) as err:
        client.to_messages(history=other, strategy="summarize", summary_trigger=1500, summary=summary)
    assert err.value.violations[0].field == "summary.digest"


def test_without_a_summariser_the_request_is_returned(client):
    history = [{"role": "user", "content": "Go."}]
    for i in range(8):
        history += turn_messages(i)
    prompt = client.to_messages(history=history, strategy="summarize", summary_trigger=500, summary_keep=2)
    request = prompt.summary_request
    assert request is not None and prompt.summary is None and prompt.stats["summary_requested"]
    assert request.messages[:-1] == prompt.messages[:len(request.messages) - 1]
    summary = request.summary("the orders ORD-0000 to ORD-0006")
    again = client.to_messages(history=history, strategy="summarize", summary_trigger=500, summary=summary.to_dict())
    assert again.summary == summary and again.stats["messages_summarized"] == request.through
    with pytest.raises(TypeError, match="summary"):
        client.to_messages(history=history, strategy="summarize", summary="text")


def test_both_summary_request_forms_ask_the_same(client, target):
    """The default summary request names the prompt by its count of the
    answer's messages; "whole" repeats it. The client rebuilds the same
    messages from both, and summary_request_messages does for a caller of
    the generated stubs."""
    history = [{"role": "user", "content": "Go."}]
    for i in range(8):
        history += turn_messages(i)
    asked = {}
    for form in ("prefix", "whole"):
        prompt = client.to_messages(history=history, strategy="summarize", summary_trigger=500, summary_keep=2,
                                    summary_request_form=form)
        asked[form] = prompt.summary_request
    assert asked["prefix"] is not None and asked["prefix"] == asked["whole"]

    import grpc
    from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2, compression_pb2, service_pb2_grpc

    wire = [chat_pb2.ChatMessage(role=m["role"], content=m.get("content") or "", tool_call_id=m.get("tool_call_id", ""),
                                 tool_calls=[chat_pb2.ChatToolCall(id=c["id"], name=c["function"]["name"],
                                                                   arguments=c["function"]["arguments"])
                                             for c in m.get("tool_calls") or []])
            for m in history]
    with grpc.insecure_channel(target) as channel:
        stub = service_pb2_grpc.SidecarServiceStub(channel)
        rebuilt = {}
        for form in ("prefix", "whole"):
            options = compression_pb2.Options(strategy="summarize", summary_trigger=500, summary_keep=2,
                                              summary_request_form=form)
            response = stub.ToMessages(compression_pb2.ToMessagesRequest(history=wire, options=options))
            rebuilt[form] = ptc_sidecar.summary_request_messages(response)
            assert response.summary_request.prefix_messages == (0 if form == "whole" else len(rebuilt[form]) - 1)
        assert rebuilt["prefix"] == rebuilt["whole"] and len(rebuilt["prefix"]) > 2
        assert rebuilt["prefix"][-1].content.startswith(INSTRUCTION)


def fetch(n):
    return {"shipment": f"SHP-{n:04d}", "crates": [f"crate {n}-{k} weighs {100 + k} kg" for k in range(12)]}


def program(i):
    return f"Next.\n\n```clojure\n(tool/fetch {{:n {i}}})\n```"


def test_a_run_with_a_summariser_keeps_one_prefix(client):
    calls = []

    def summariser(messages):
        calls.append(len(messages))
        return value_summary(messages)

    run = client.run(mission="Weigh the shipments", tools={"fetch": fetch}, max_turns=40,
                     summariser=summariser, summary_trigger=3000, summary_keep=2)
    prompts = []
    for i in range(30):
        prompts.append(run.next_messages())
        assert run.step(program(i)).success
    assert check_prefixes(prompts) >= 2 and run.summary is not None
    assert prompts[-1].stats["strategy"] == "summarize-turns"

    saved = run.to_json()
    resumed = client.resume(saved, tools={"fetch": fetch}, summariser=summariser)
    assert resumed.summary == run.summary
    assert resumed.next_messages().messages == run.next_messages().messages
    with pytest.raises(ValueError, match="summarize-turns"):
        client.run(mission="x", strategy="full", summariser=summariser)


def test_an_async_run_awaits_its_summariser(target):
    async def main():
        async def summariser(messages):
            await asyncio.sleep(0)
            return value_summary(messages)

        async with ptc_sidecar.AsyncClient(target) as client:
            run = client.run(mission="Weigh the shipments", tools={"fetch": fetch}, max_turns=40,
                             summariser=summariser, summary_trigger=3000, summary_keep=2)
            prompts = []
            for i in range(30):
                prompts.append(await run.next_messages())
                assert (await run.step(program(i))).success
            return prompts

    assert check_prefixes(asyncio.run(main())) >= 2
