"""Content parts (screenshots, PDFs, audio, thinking blocks with their
signatures, redacted thinking) through both adapters and every chat
strategy with nothing lost. The conversations are the strategies'
(strategies/testdata/parts, built by its make.py from the providers'
documented message shapes)."""

from __future__ import annotations

import copy
import json

import pytest
from google.protobuf import json_format

import ptc_sidecar
from conftest import REPO
from ptc_sidecar._chat import Prompt, read_openai
from ptc_sidecar._pb.ptcsidecar.v1 import chat_pb2

PARTS = REPO / "strategies" / "testdata" / "parts"
ANTHROPIC = json.loads((PARTS / "anthropic.json").read_text())
OPENAI = json.loads((PARTS / "openai.json").read_text())
WIRE = [json_format.ParseDict(m, chat_pb2.ChatMessage()) for m in json.loads((PARTS / "history.json").read_text())]

STRATEGIES = {
    "loop-slice": {}, "loop-slice window": {"scan_window": 2},
    "turn-aware": {}, "turn-aware window": {"scan_window": 2},
    "clear-tool-results": {}, "clear-tool-results all": {"trigger": 0, "keep": 0},
    "token-budget": {"max_tokens": 1_000_000}, "token-budget small": {"max_tokens": 6000, "trim_to": 5500},
}


def test_anthropic_adapter_puts_the_documented_wire_form():
    history = ptc_sidecar.from_anthropic(copy.deepcopy(ANTHROPIC["messages"]), system=ANTHROPIC["system"])
    assert list(history._history.wire) == WIRE


def test_anthropic_blocks_written_fresh_are_the_callers():
    # Without the history to give messages back whole, every block is
    # rebuilt from the wire: the same blocks, in order.
    out = Prompt(WIRE, None).to_anthropic([], None)
    assert out.system == ANTHROPIC["system"]
    assert out.messages == ANTHROPIC["messages"]


def test_openai_parts_written_fresh_are_the_callers():
    wire = read_openai(copy.deepcopy(OPENAI)).wire
    assert [p.type for p in wire[1].parts] == ["text", "image", "image", "audio"]
    assert [p.type for p in wire[3].parts] == ["text", "file", "file"]
    assert wire[3].parts[1].media_type == "application/pdf"
    assert Prompt(wire, None).openai_messages() == OPENAI


@pytest.mark.parametrize("name", STRATEGIES)
def test_every_strategy_carries_parts_in_both_shapes(client, name):
    options = {"strategy": name.split(" ")[0], **STRATEGIES[name]}
    history = ptc_sidecar.from_anthropic(copy.deepcopy(ANTHROPIC["messages"]), system=ANTHROPIC["system"])
    out = client.to_messages(history=history, **options)
    originals = {json.dumps(b, sort_keys=True) for b in _blocks(ANTHROPIC["messages"])}
    for block in _blocks(out.to_anthropic(cache=False).messages):
        # Every block but those a strategy writes (text of a note or a
        # nudge, a cleared result) is one of the caller's, exactly.
        if block["type"] not in ("text", "tool_result"):
            assert json.dumps(block, sort_keys=True) in originals, block
    kept = [p for w in out._prompt.wire for p in w.parts]
    sent = [p for w in WIRE for p in w.parts]
    for p in kept:
        assert p in sent  # no part is made up or changed
    if name in ("turn-aware", "clear-tool-results", "token-budget"):
        assert out.to_anthropic(cache=False).messages == ANTHROPIC["messages"]
    openai_out = client.to_messages(history=copy.deepcopy(OPENAI), **options)
    if name not in ("clear-tool-results all", "token-budget small"):
        assert openai_out.messages == OPENAI
    assert openai_out.stats["part_tokens"] > 0


def _blocks(messages):
    """Every content block of messages, a tool result's own blocks too."""
    for m in messages:
        for block in m["content"] if isinstance(m["content"], list) else []:
            yield block
            if block["type"] == "tool_result" and isinstance(block["content"], list):
                yield from block["content"]


COMPACTED = [
    {"role": "user", "content": "Collect the quarterly figures."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "Q1"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Q1 412"}]},
    {"role": "assistant", "content": [
        {"type": "compaction", "content": "The user wants quarterly figures; Q1 is 412.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Looking for Q2."}]},
    {"role": "user", "content": "Q2 is out."},
]


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_compaction_comes_back_intact_with_nothing_before_it(client, name):
    options = {"strategy": name.split(" ")[0], **STRATEGIES[name]}
    out = client.to_messages(history=ptc_sidecar.from_anthropic(copy.deepcopy(COMPACTED)), **options)
    assert out.to_anthropic(cache=False).messages == COMPACTED[3:]
    assert out.stats["compaction_replaced"] == 3


def test_keep_thinking_turns_clears_older_thinking(client):
    history = ptc_sidecar.from_anthropic(copy.deepcopy(ANTHROPIC["messages"]), system=ANTHROPIC["system"])
    out = client.to_messages(history=history, strategy="token-budget", max_tokens=1_000_000, keep_thinking_turns=1)
    assert out.stats["thinking_cleared"] == 3 and out.stats["thinking_tokens_cleared"] > 0
    messages = out.to_anthropic(cache=False).messages
    thinking = [b for b in _blocks(messages) if b["type"] in ("thinking", "redacted_thinking")]
    assert thinking == [ANTHROPIC["messages"][7]["content"][0]]  # the latest, signature and all
