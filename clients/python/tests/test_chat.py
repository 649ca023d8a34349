"""Chat messages in the providers' shapes: OpenAI Chat Completions and
Anthropic Messages, in and out, through the real server and through the
adapters alone."""

from __future__ import annotations

import copy

import pytest

import ptc_sidecar
from ptc_sidecar._chat import Prompt, read_openai
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2
from scripted_llm import Model


def call(id_, name, arguments):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


OPENAI_HISTORY = [
    {"role": "developer", "content": "You are a shop assistant."},
    {"role": "user", "name": "ada", "content": [{"type": "text", "text": "Find headphones"},
                                                {"type": "text", "text": "under 100 EUR."}]},
    # A response object of the SDK, as agents append it.
    Model(role="assistant", content=None, refusal=None,
          tool_calls=[Model(id="call_1", type="function",
                            function=Model(name="search", arguments='{"q":"headphones"}'))]),
    {"role": "tool", "tool_call_id": "call_1", "content": '[{"id":"p1"}]'},
]


def test_openai_history_comes_back_as_it_went_in(client):
    out = client.to_messages(history=OPENAI_HISTORY, strategy="loop-slice")
    want = [OPENAI_HISTORY[0], OPENAI_HISTORY[1], OPENAI_HISTORY[2].model_dump(exclude_unset=True), OPENAI_HISTORY[3]]
    assert out.messages == want
    assert out.messages[2]["content"] is None and out.messages[2]["tool_calls"][0]["id"] == "call_1"
    assert out.nudge is None
    # Copies: changing what came back changes nothing the caller holds.
    out.messages[1]["content"][0]["text"] = "changed"
    assert OPENAI_HISTORY[1]["content"][0]["text"] == "Find headphones"


def test_a_changed_message_is_written_fresh(client):
    history = [{"role": "system", "content": "s"}, {"role": "user", "content": "go"},
               {"role": "assistant", "content": None, "tool_calls": [call("c1", "fetch", '{"url":"x"}')]},
               {"role": "tool", "tool_call_id": "c1", "content": "x" * 400},
               {"role": "assistant", "content": None, "tool_calls": [call("c2", "fetch", '{"url":"y"}')]},
               {"role": "tool", "tool_call_id": "c2", "content": "y"}]
    # Priced as a provider that caches nothing, so that clearing needs no
    # later calls to pay back its rewrite.
    out = client.to_messages(history=history, strategy="clear-tool-results", trigger=1, keep=1,
                             clear_tool_inputs=True, pricing="none")
    assert out.stats["tool_uses_cleared"] == 1
    # The cleared call and its result are new messages in the OpenAI shape.
    assert out.messages[2] == {"role": "assistant", "content": None, "tool_calls": [call("c1", "fetch", "{}")]}
    assert out.messages[3] == {"role": "tool", "content": "[cleared]", "tool_call_id": "c1"}
    assert out.messages[4:] == history[4:]


def test_the_synthetic_nudge_is_named(client):
    history = [{"role": "system", "content": "s"},
               {"role": "assistant", "content": None, "tool_calls": [call("c1", "f", "{}")]},
               {"role": "tool", "tool_call_id": "c1", "content": "42"}]
    out = client.to_messages(history=history, strategy="loop-slice", nudge_attempt=2, provider="openai")
    assert out.stats["synthetic_nudge"] is True
    # It is the last message: the turn's prompt, never before the model's own words.
    assert out.nudge is out.messages[-1]
    assert out.nudge["role"] == "user" and "respond" in out.nudge["content"]
    assert set(out.nudge) == {"role", "content"}  # nothing the API would refuse
    assert out.messages[1:-1] == history[1:]
    # With no provider named, the conversation opens with the user's words:
    # the loop travels as a note, and the nudge is still last.
    anyone = client.to_messages(history=history, strategy="loop-slice", nudge_attempt=2)
    assert anyone.nudge is anyone.messages[-1]
    assert anyone.messages[1]["role"] == "user" and anyone.stats["units_noted"] == 1
    # With a prompt to open with, there is none.
    asked = [history[0], {"role": "user", "content": "Find it."}, *history[1:]]
    assert client.to_messages(history=asked, strategy="loop-slice").nudge is None


def test_openai_unknown_parts_are_refused_naming_the_message(client):
    history = [{"role": "user", "content": "look"},
               {"role": "user", "content": [{"type": "text", "text": "this:"},
                                            {"type": "video_url", "video_url": {"url": "https://x/y.mp4"}}]}]
    with pytest.raises(ValueError, match=r"history\[1\]\.content\[1\]\.type: 'video_url' is not an OpenAI content part"):
        client.to_messages(history=history, strategy="loop-slice")
    with pytest.raises(ValueError, match=r"history\[0\]\.role: the function role"):
        client.to_messages(history=[{"role": "function", "name": "f", "content": "1"}], strategy="loop-slice")
    with pytest.raises(TypeError, match=r"history\[0\]: a int is not a message"):
        client.to_messages(history=[7], strategy="loop-slice")


def test_openai_adapter_keeps_name_and_null_content_on_the_wire():
    wire = read_openai([{"role": "user", "name": "ada", "content": "hi"},
                        {"role": "assistant", "content": None, "tool_calls": [call("c1", "f", "{}")]},
                        {"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
                       ).wire
    assert wire[0].name == "ada"
    assert wire[1].content == "" and wire[1].tool_calls[0].id == "c1"
    assert wire[2].role == "system" and wire[2].content == "a\nb"
    # Written fresh (as a strategy's own message would be): name kept,
    # content None for a message that only calls tools.
    fresh = Prompt(wire, None).openai_messages()
    assert fresh[0] == {"role": "user", "content": "hi", "name": "ada"}
    assert fresh[1] == {"role": "assistant", "content": None, "tool_calls": [call("c1", "f", "{}")]}


# ---- Anthropic ------------------------------------------------------------

ANTHROPIC_SYSTEM = "You are a shop assistant."
ANTHROPIC_MESSAGES = [
    {"role": "user", "content": "Find headphones under 100 EUR."},
    Model(role="assistant", content=[
        Model(type="thinking", thinking="Search first.", signature="c2lnbmF0dXJl"),
        Model(type="text", text="Searching.", citations=None),
        Model(type="tool_use", id="toolu_1", name="search", input={"q": "headphones", "max": 100}),
    ]),
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": '[{"id":"p1"}]'}],
         "is_error": False},
        {"type": "text", "text": "Pick the cheapest."},
    ]},
]


def test_anthropic_history_comes_back_whole(client):
    history = ptc_sidecar.from_anthropic(ANTHROPIC_MESSAGES, system=ANTHROPIC_SYSTEM)
    out = client.to_messages(history=history, strategy="clear-tool-results")
    # On the wire: system, user, assistant (reasoning, tool call), tool, user.
    assert [m["role"] for m in out.messages] == ["system", "user", "assistant", "tool", "user"]
    assert out.messages[2]["tool_calls"][0]["function"] == {"name": "search", "arguments": '{"q":"headphones","max":100}'}
    anthropic = out.to_anthropic(cache=False)
    assert anthropic.system == ANTHROPIC_SYSTEM
    assert anthropic.messages == [ANTHROPIC_MESSAGES[0], ANTHROPIC_MESSAGES[1].model_dump(exclude_unset=True),
                                  ANTHROPIC_MESSAGES[2]]
    assert anthropic.params() == {"system": ANTHROPIC_SYSTEM, "messages": anthropic.messages}


def test_anthropic_messages_written_fresh():
    wire = [chat_pb2.ChatMessage(role="system", content="sys"),
            chat_pb2.ChatMessage(role="user", content="go"),
            chat_pb2.ChatMessage(role="assistant", content="", tool_calls=[
                chat_pb2.ChatToolCall(id="t1", name="f", arguments='{"a":1}'),
                chat_pb2.ChatToolCall(id="t2", name="g", arguments="{}")]),
            chat_pb2.ChatMessage(role="tool", tool_call_id="t1", content="1"),
            chat_pb2.ChatMessage(role="tool", tool_call_id="t2", content="2"),
            chat_pb2.ChatMessage(role="user", content="Continue.", source="system")]
    out = Prompt(wire, None).to_anthropic([], None)
    assert out.system == "sys"
    assert out.messages == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
                                          {"type": "tool_use", "id": "t2", "name": "g", "input": {}}]},
        # Both results, then the text, in the one user message Anthropic wants.
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1"},
                                     {"type": "tool_result", "tool_use_id": "t2", "content": "2"},
                                     {"type": "text", "text": "Continue."}]},
    ]
    bad = [chat_pb2.ChatMessage(role="assistant", tool_calls=[chat_pb2.ChatToolCall(id="t", name="f", arguments="[cut")])]
    with pytest.raises(ValueError, match=r"messages\[0\]\.tool_calls\[0\]\.arguments: not JSON"):
        Prompt(bad, None).to_anthropic([], None)


def test_anthropic_blocks_without_a_place_are_refused_naming_the_message():
    image = {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}
    search = {"type": "search_result", "source": "https://x", "title": "t", "content": []}
    with pytest.raises(ValueError, match=r"messages\[1\]\.content\[1\]: a 'search_result' block has no place"):
        ptc_sidecar.from_anthropic([{"role": "user", "content": "a"}, {"role": "user", "content": [image, search]}])
    with pytest.raises(ValueError, match=r"messages\[0\]\.content\[0\]\.content\[1\]: a 'search_result' block"):
        ptc_sidecar.from_anthropic([{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [image, search]}]}])
    with pytest.raises(ValueError, match=r"messages\[0\]\.role"):
        ptc_sidecar.from_anthropic([{"role": "robot", "content": "beep"}])


def prompt_of(*contents: str) -> Prompt:
    roles = ["system", "user", "assistant", "user"]
    return Prompt([chat_pb2.ChatMessage(role=roles[i], content=c) for i, c in enumerate(contents)], None)


def test_cache_control_marks_the_stable_prefix():
    # Inside a message: the text block is split where the prefix ends.
    out = prompt_of("SYSTEM", "stable part|new part").to_anthropic([{"message_index": 1, "offset": 12}], None)
    assert out.system == "SYSTEM"
    assert out.messages == [{"role": "user", "content": [
        {"type": "text", "text": "stable part|", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "new part"}]}]
    # At a message's end: its block, whole; the system prompt as blocks.
    out = prompt_of("SYSTEM", "next").to_anthropic([{"message_index": 0, "offset": 6}], "1h")
    assert out.system == [{"type": "text", "text": "SYSTEM", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    assert out.messages == [{"role": "user", "content": [{"type": "text", "text": "next"}]}]
    # At a message's start: the end of the block before it.
    out = prompt_of("SYSTEM", "a", "b").to_anthropic([{"message_index": 2, "offset": 0}], None)
    assert out.messages[0]["content"] == [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]
    assert out.messages[1]["content"] == [{"type": "text", "text": "b"}]
    # Offsets count code points, as the sidecar does.
    out = prompt_of("S", "héllo wörld 🎧 tail").to_anthropic([{"message_index": 1, "offset": 14}], None)
    assert out.messages[0]["content"][0]["text"] == "héllo wörld 🎧 "
    # A breakpoint inside a tool call's message marks the last block before it.
    wire = [chat_pb2.ChatMessage(role="user", content="u"),
            chat_pb2.ChatMessage(role="assistant", content="", tool_calls=[
                chat_pb2.ChatToolCall(id="t", name="f", arguments="{}")]),
            chat_pb2.ChatMessage(role="tool", tool_call_id="t", content="result text")]
    out = Prompt(wire, None).to_anthropic([{"message_index": 2, "offset": 3}], None)
    assert out.messages[1]["content"][0]["cache_control"] == {"type": "ephemeral"}  # the tool_use
    assert "cache_control" not in out.messages[2]["content"][0]


def test_cache_control_in_a_message_given_back_whole():
    history = ptc_sidecar.from_anthropic(
        [{"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two three"}]}],
        system=[{"type": "text", "text": "SYS"}])
    wire = history._history.wire
    prompt = Prompt(copy.deepcopy(wire), history._history)
    # "one\ntwo three": offset 7 is inside the second block, after "two".
    out = prompt.to_anthropic([{"message_index": 1, "offset": 7}], None)
    assert out.system == [{"type": "text", "text": "SYS"}]
    assert out.messages == [{"role": "user", "content": [
        {"type": "text", "text": "one"},
        {"type": "text", "text": "two", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": " three"}]}]


def test_reply_text_reads_each_providers_reply():
    assert ptc_sidecar.reply_text("(+ 1 2)") == "(+ 1 2)"
    assert ptc_sidecar.reply_text({"role": "assistant", "content": "x"}) == "x"
    completion = Model(id="c", choices=[Model(index=0, message=Model(role="assistant", content="y"))])
    assert ptc_sidecar.reply_text(completion) == "y"
    message = Model(type="message", role="assistant", content=[
        Model(type="thinking", thinking="hm", signature="s"), Model(type="text", text="z")])
    assert ptc_sidecar.reply_text(message) == "z"
    assert ptc_sidecar.reply_text({"role": "assistant", "content": None}) == ""
    with pytest.raises(TypeError, match="reply: a int is not a message"):
        ptc_sidecar.reply_text(3)



def test_two_breakpoints_in_one_block():
    out = prompt_of("S", "0123456789").to_anthropic([{"message_index": 1, "offset": 7},
                                                     {"message_index": 1, "offset": 3}], None)
    mark = {"type": "ephemeral"}
    assert out.messages[0]["content"] == [{"type": "text", "text": "012", "cache_control": mark},
                                          {"type": "text", "text": "3456", "cache_control": mark},
                                          {"type": "text", "text": "789"}]


def marked_prefixes(prompt):
    """Each prefix of an Anthropic prompt that ends at a cache_control mark,
    block by block: what the provider caches there and looks up later."""
    system = prompt.system if isinstance(prompt.system, list) else [{"type": "text", "text": prompt.system}]
    blocks = [("system", b) for b in system]
    for m in prompt.messages:
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        blocks += [(m["role"], b) for b in content]
    out, seen = [], []
    for role, b in blocks:
        seen.append((role, {k: v for k, v in b.items() if k != "cache_control"}))
        if "cache_control" in b:
            out.append(list(seen))
    return out


@pytest.mark.parametrize("strategy", ["single-user-coalesced", "full"])
def test_each_call_reads_what_the_last_one_wrote(client, strategy):
    run = client.run(mission="Sum things", strategy=strategy, max_turns=8, data={"xs": [1, 2, 3]},
                     tools={"inc": lambda n: n + 1})
    programs = ['(def a (tool/inc {:n 1})) (println "a" a) a', "(undefined)", "(def b (+ a 1)) b",
                "(def c (* b 2)) (println c) c", "(return c)"]
    written = None
    for n, program in enumerate(programs):
        prompt = run.next_messages()
        anthropic = prompt.to_anthropic()
        marked = marked_prefixes(anthropic)
        assert 1 <= len(marked) <= 2  # of the four breakpoints Anthropic allows
        if written is not None:
            assert prompt.stats["stable_prefix_known"], prompt.stats["stable_prefix_note"]
            assert any(prefix in written for prefix in marked), f"call {n + 1} reads nothing call {n} wrote"
        written = marked
        run.step(reply(program))
    assert run.result == 6


def reply(program):
    return f"```clojure\n{program}\n```"
