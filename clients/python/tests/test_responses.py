"""OpenAI Responses API items (and Agents SDK session items) through the
real server: recorded sessions come back with every item the strategy keeps
unchanged, reasoning stays in front of what it preceded, and no
function_call_output is sent without its call."""

from __future__ import annotations

import copy
import json

import pytest

import ptc_sidecar
from conftest import REPO
from ptc_sidecar._chat import Prompt
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2
from ptc_sidecar._responses import to_responses

SESSIONS = sorted((REPO / "clients" / "testdata" / "responses").glob("*.json"))

# A tool loop with reasoning in front of each call, in the documented shape
# of a reasoning model's output (no recorded session holds one).
REASONING_LOOP = [
    {"role": "developer", "content": "Answer with the tools."},
    {"role": "user", "content": "Where is order 4417 and when does it arrive?"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look the order up."}],
     "encrypted_content": "gAAAAAB-one"},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_order",
     "arguments": "{\"order_id\":\"4417\"}", "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1", "output": "{\"carrier\":\"DHL\",\"tracking\":\"JD0146\"}"},
    {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAAAB-two"},
    {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "track",
     "arguments": "{\"tracking\":\"JD0146\"}", "status": "completed"},
    {"type": "function_call_output", "call_id": "call_2", "output": "arrives Friday"},
    {"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": "gAAAAAB-three"},
    {"type": "message", "id": "msg_3", "role": "assistant", "status": "completed",
     "content": [{"type": "output_text", "text": "Order 4417 ships with DHL (JD0146) and arrives Friday.",
                  "annotations": []}]},
    {"role": "user", "content": "Thanks! And order 4418?"},
]


def load(path):
    session = json.loads(path.read_text())
    return session["items"], session.get("instructions")


# Settings under which the chat strategies drop or rewrite parts of these
# short sessions, besides their defaults.
PRESSED = {"token-budget": {"max_tokens": 120}, "clear-tool-results": {"trigger": 0, "keep": 0}}


def chat_strategies(client):
    """Every chat strategy with its options: defaults, then pressed, then
    keeping the reasoning of the latest assistant message only."""
    out = []
    for s in client.list_strategies():
        if s.input != "history":
            continue
        if s.name != "token-budget":
            out.append((s.name, {}))
        if s.name in PRESSED:
            out.append((s.name, PRESSED[s.name]))
        out.append((s.name, {**PRESSED.get(s.name, {}), "keep_thinking_turns": 1}))
    return out


def check_sendable(items):
    """No function_call_output before its call, no call without its output;
    each reasoning item is followed by an item that is not an output."""
    answered = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
    assert all(i["call_id"] in answered for i in items if i.get("type") == "function_call"), items
    called = set()
    for n, item in enumerate(items):
        kind = item.get("type")
        if kind == "function_call":
            called.add(item["call_id"])
        elif kind == "function_call_output":
            assert item["call_id"] in called, f"orphaned function_call_output at {n}: {item}"
        elif kind == "reasoning":
            after = items[n + 1] if n + 1 < len(items) else None
            assert after is not None and after.get("type") in (None, "message", "function_call", "reasoning"), \
                f"reasoning at {n} is not in front of what it preceded: {after}"


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_recorded_sessions_come_back_whole(client, path):
    items, instructions = load(path)
    before = copy.deepcopy(items)
    history = ptc_sidecar.from_responses(items, instructions=instructions)
    assert items == before  # reading does not touch the caller's items
    # clear-tool-results below its trigger keeps the history as it is, from
    # its last compaction item on (the items before it are replaced by it).
    compactions = [n for n, i in enumerate(items) if i.get("type") == "compaction"]
    kept = items[compactions[-1]:] if compactions else items
    prompt = client.to_messages(history=history, strategy="clear-tool-results").to_responses()
    assert (prompt.input, prompt.instructions) == (kept, instructions)
    assert prompt.params() == ({"input": kept, "instructions": instructions} if instructions else {"input": kept})
    originals = [json.dumps(i, sort_keys=True) for i in items]
    for strategy, options in chat_strategies(client):
        out = client.to_messages(history=history, strategy=strategy, **options).to_responses()
        check_sendable(out.input)
        # What a strategy keeps of a recorded item it keeps whole.
        for item in out.input:
            if "id" in item:
                assert json.dumps(item, sort_keys=True) in originals, f"{strategy}: {item} was changed"


def test_a_compaction_item_opens_what_is_sent(client):
    items, instructions = load(REPO / "clients" / "testdata" / "responses" / "compaction-sums.json")
    history = ptc_sidecar.from_responses(items, instructions=instructions)
    assert [p.type for p in history._history.wire[3].parts] == ["compaction"]
    for strategy, options in chat_strategies(client):
        messages = client.to_messages(history=history, strategy=strategy, **options)
        out = messages.to_responses()
        # Whole, encrypted_content and id as recorded, with nothing before it.
        assert out.input[0] == items[2], strategy
        assert [i for i in out.input if i.get("type") == "compaction"] == [items[2]], strategy
        assert out.instructions == instructions
        assert messages.stats["compaction_replaced"] == 2, strategy


def test_a_later_compaction_replaces_an_earlier_one(client):
    items, _ = load(REPO / "clients" / "testdata" / "responses" / "compaction-sums.json")
    later = {"type": "compaction", "id": "cmp_2", "encrypted_content": "gAAAAAB-later"}
    loop = REASONING_LOOP[1:]
    # A compaction between responses, and one a response opened, its call
    # and reasoning after it in the same output.
    for history, replaced in ((items + loop[:9] + [later] + loop[9:], "call_2"),
                              (items + loop[:4] + [later] + loop[4:7] + loop[9:], "call_1")):
        wire = ptc_sidecar.from_responses(history)
        for strategy, options in chat_strategies(client):
            out = client.to_messages(history=wire, strategy=strategy, **options).to_responses().input
            check_sendable(out)
            assert out[0] == later and [i for i in out if i.get("type") == "compaction"] == [later], strategy
            assert replaced not in {i.get("call_id") for i in out}, strategy  # before it: replaced
            assert out[-1] == loop[9], strategy


def test_reasoning_items_are_reasoning_parts(client):
    history = ptc_sidecar.from_responses(REASONING_LOOP)._history
    first, last = history.wire[2], history.wire[6]
    assert [p.type for p in first.parts] == ["reasoning"] and first.content == ""
    assert first.parts[0].text == "Look the order up." and first.parts[0].data == "gAAAAAB-one"
    assert json.loads(first.parts[0].provider_json)["id"] == "rs_1"
    assert [p.type for p in last.parts] == ["reasoning", "text"]
    assert last.parts[1].text == "Order 4417 ships with DHL (JD0146) and arrives Friday."


def test_keep_thinking_turns_drops_older_reasoning_items_only(client):
    history = ptc_sidecar.from_responses(REASONING_LOOP)
    for strategy, options in chat_strategies(client):
        if options.get("keep_thinking_turns") != 1 or strategy == "token-budget":
            continue
        messages = client.to_messages(history=history, strategy=strategy, **options)
        out = messages.to_responses().input
        check_sendable(out)
        reasoning = [i for i in out if i.get("type") == "reasoning"]
        assert reasoning == [REASONING_LOOP[8]], strategy  # the latest, encrypted content and all
        # The calls that lost their reasoning are kept, with their own fields.
        kept = [i for i in out if i.get("type") == "function_call"]
        assert all(c in REASONING_LOOP for c in kept), strategy
        assert messages.stats["thinking_cleared"] >= 1, strategy
    # Each call keeps its place after what it followed; the answer follows the kept reasoning.
    out = client.to_messages(history=history, strategy="clear-tool-results",
                             keep_thinking_turns=1).to_responses().input
    assert out == [i for i in REASONING_LOOP if i.get("type") != "reasoning" or i["id"] == "rs_3"]


def test_reasoning_stays_with_the_call_a_strategy_rewrote(client):
    history = ptc_sidecar.from_responses(REASONING_LOOP)
    unchanged = client.to_messages(history=history, strategy="clear-tool-results").to_responses()
    assert unchanged.instructions is None and unchanged.input == REASONING_LOOP
    cleared = client.to_messages(history=history, strategy="clear-tool-results", trigger=0, keep=0,
                                 clear_tool_inputs=True).to_responses().input
    check_sendable(cleared)
    kinds = [(i.get("type"), i.get("id")) for i in cleared]
    assert kinds[2:10] == [("reasoning", "rs_1"), ("function_call", "fc_1"), ("function_call_output", None),
                           ("reasoning", "rs_2"), ("function_call", "fc_2"), ("function_call_output", None),
                           ("reasoning", "rs_3"), ("message", "msg_3")]
    calls = [i for i in cleared if i.get("type") == "function_call"]
    assert [c["status"] for c in calls] == ["completed", "completed"]  # the call's own fields stay
    assert all(c["arguments"] != REASONING_LOOP[3]["arguments"] for c in calls[:1])  # its inputs were cleared
    assert [i["encrypted_content"] for i in cleared if i.get("type") == "reasoning"] == \
        ["gAAAAAB-one", "gAAAAAB-two", "gAAAAAB-three"]
    outputs = [i for i in cleared if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_1", "call_2"] and outputs[0]["output"] == "[cleared]"


def test_an_output_whose_call_is_gone_is_not_sent():
    history = ptc_sidecar.from_responses(REASONING_LOOP)._history
    tool = history.wire[5]  # the output answering call_2
    assert tool.role == "tool" and tool.tool_call_id == "call_2"
    prompt = Prompt([history.wire[1], tool, history.wire[-1]], history)
    out = to_responses(prompt).input
    assert [i.get("type", "message") for i in out] == ["message", "message"]


def test_a_run_in_tool_call_form_as_responses_items(client):
    run = client.run(mission="Add.", max_turns=3, program_form="tool_call")
    run.step({"output": [{"type": "function_call", "call_id": "call_a", "name": "run_ptc_lisp",
                          "arguments": json.dumps({"program": "(def x (+ 1 2))"})}]})
    prompt = run.next_messages().to_responses()
    assert "run_ptc_lisp" in prompt.instructions
    kinds = [i.get("type", "message") for i in prompt.input]
    assert kinds == ["message", "function_call", "function_call_output", "message"]
    assert prompt.input[1]["call_id"] == prompt.input[2]["call_id"] == "call_a"
    assert json.loads(prompt.input[1]["arguments"]) == {"program": "(def x (+ 1 2))"}


def test_items_the_sidecar_cannot_read_are_refused():
    with pytest.raises(ValueError, match=r"items\[1\].type: a 'web_search_call' item"):
        ptc_sidecar.from_responses([{"role": "user", "content": "hi"}, {"type": "web_search_call", "id": "ws_1"}])
    with pytest.raises(ValueError, match=r"items\[0\].content\[0\]: a 'input_image' part"):
        ptc_sidecar.from_responses([{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}])
    with pytest.raises(ValueError, match=r"items\[0\].call_id"):
        ptc_sidecar.from_responses([{"type": "function_call_output", "output": "x"}])
    with pytest.raises(TypeError, match="want a list"):
        ptc_sidecar.from_responses({"role": "user", "content": "hi"})


def test_the_wire_of_a_response_run():
    history = ptc_sidecar.from_responses(REASONING_LOOP)._history
    roles = [m.role for m in history.wire]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "user"]
    first = history.wire[2]
    assert first.parts[0].text == "Look the order up." and first.tool_calls[0] == chat_pb2.ChatToolCall(
        id="call_1", name="get_order", arguments="{\"order_id\":\"4417\"}")


def test_parts_made_without_a_source_become_items():
    history = ptc_sidecar.from_responses(REASONING_LOOP + [
        {"type": "compaction", "id": "cmp_9", "encrypted_content": "gAAAAAB-nine", "created_by": "server"}])._history
    made = [history.wire[6], history.wire[-1]]  # rebuilt from their parts alone
    out = to_responses(Prompt([chat_pb2.ChatMessage(**{"role": m.role, "parts": m.parts}) for m in made],
                              ptc_sidecar.from_responses([])._history)).input
    assert out == [REASONING_LOOP[8], {"role": "assistant", "content": REASONING_LOOP[9]["content"][0]["text"]},
                   {"type": "compaction", "id": "cmp_9", "encrypted_content": "gAAAAAB-nine", "created_by": "server"}]
