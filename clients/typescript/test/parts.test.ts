// Content parts (screenshots, PDFs, audio, thinking blocks with their
// signatures, redacted thinking) through both adapters and every chat
// strategy with nothing lost. The conversations are the strategies'
// (strategies/testdata/parts, built by its make.py from the providers'
// documented message shapes).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import type Anthropic from "@anthropic-ai/sdk";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";

import { ChatMessageSchema } from "../src/gen/ptcsidecar/v1/chat_pb.js";
import { Prompt, readOpenAI } from "../src/chat.js";
import { fromAnthropic } from "../src/index.js";
import { repo, serveForThisFile } from "./server.js";

const sidecar = serveForThisFile();
const parts = join(repo, "strategies", "testdata", "parts");
const read = (name: string): unknown => JSON.parse(readFileSync(join(parts, name), "utf8"));
const ANTHROPIC = read("anthropic.json") as { system: string; messages: Anthropic.MessageParam[] };
const OPENAI = read("openai.json") as ChatCompletionMessageParam[];
const WIRE = (read("history.json") as JsonValue[]).map((m) => fromJson(ChatMessageSchema, m));

const STRATEGIES: Record<string, Record<string, unknown>> = {
  "loop-slice": {},
  "loop-slice window": { scanWindow: 2 },
  "turn-aware": {},
  "turn-aware window": { scanWindow: 2 },
  "clear-tool-results": {},
  "clear-tool-results all": { trigger: 0, keep: 0 },
  "token-budget": { maxTokens: 1_000_000 },
  "token-budget small": { maxTokens: 6000, trimTo: 5500 },
};

/** Every content block of messages, a tool result's own blocks too. */
function* blocksOf(messages: readonly { content: unknown }[]): Generator<Record<string, unknown>> {
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Record<string, unknown>[]) {
      yield b;
      if (b.type === "tool_result" && Array.isArray(b.content)) yield* b.content as Record<string, unknown>[];
    }
  }
}

test("the Anthropic adapter puts the documented wire form", () => {
  const history = fromAnthropic(structuredClone(ANTHROPIC.messages), { system: ANTHROPIC.system });
  assert.deepEqual(history.history.wire, WIRE);
});

test("Anthropic blocks written fresh are the caller's", () => {
  // Without the history to give messages back whole, every block is
  // rebuilt from the wire: the same blocks, in order.
  const out = new Prompt(WIRE).toAnthropic([]);
  assert.equal(out.system, ANTHROPIC.system);
  assert.deepEqual(out.messages, ANTHROPIC.messages);
});

test("OpenAI parts written fresh are the caller's", () => {
  const wire = readOpenAI(structuredClone(OPENAI)).wire;
  assert.deepEqual(
    wire[1].parts.map((p) => p.type),
    ["text", "image", "image", "audio"],
  );
  assert.deepEqual(
    wire[3].parts.map((p) => p.type),
    ["text", "file", "file"],
  );
  assert.equal(wire[3].parts[1].mediaType, "application/pdf");
  const params: ChatCompletionMessageParam[] = new Prompt(wire).openaiMessages(); // the type check
  assert.deepEqual(params, OPENAI);
});

for (const [name, extra] of Object.entries(STRATEGIES)) {
  test(`${name} carries parts in both shapes`, async () => {
    const options = { strategy: name.split(" ")[0], ...extra };
    const history = fromAnthropic(structuredClone(ANTHROPIC.messages), { system: ANTHROPIC.system });
    const out = await sidecar.client.toMessages([], { history, ...options });
    const originals = new Set([...blocksOf(ANTHROPIC.messages)].map((b) => JSON.stringify(b)));
    const anthropic = out.toAnthropic({ cache: false });
    for (const b of blocksOf(anthropic.messages)) {
      // Every block but those a strategy writes (text of a note or a
      // nudge, a cleared result) is one of the caller's, exactly.
      if (b.type !== "text" && b.type !== "tool_result") assert.ok(originals.has(JSON.stringify(b)), JSON.stringify(b).slice(0, 200));
    }
    if (["turn-aware", "clear-tool-results", "token-budget"].includes(name)) assert.deepEqual(anthropic.messages, ANTHROPIC.messages);
    const openai = await sidecar.client.toMessages([], { history: structuredClone(OPENAI), ...options });
    if (name !== "clear-tool-results all" && name !== "token-budget small") assert.deepEqual(openai.messages, OPENAI);
    assert.ok(Number(openai.stats.partTokens) > 0);
  });
}

const COMPACTED = [
  { role: "user", content: "Collect the quarterly figures." },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { q: "Q1" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Q1 412" }] },
  {
    role: "assistant",
    content: [
      { type: "compaction", content: "The user wants quarterly figures; Q1 is 412.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "Looking for Q2." },
    ],
  },
  { role: "user", content: "Q2 is out." },
];

for (const [name, extra] of Object.entries(STRATEGIES)) {
  test(`${name} gives a compaction back intact with nothing before it`, async () => {
    const out = await sidecar.client.toMessages([], { history: fromAnthropic(structuredClone(COMPACTED)), strategy: name.split(" ")[0], ...extra });
    assert.deepEqual(out.toAnthropic({ cache: false }).messages, COMPACTED.slice(3));
    assert.equal(out.stats.compactionReplaced, 3);
  });
}

test("keep_thinking_turns clears older thinking", async () => {
  const history = fromAnthropic(structuredClone(ANTHROPIC.messages), { system: ANTHROPIC.system });
  const out = await sidecar.client.toMessages([], { history, strategy: "token-budget", maxTokens: 1_000_000, keepThinkingTurns: 1 });
  assert.equal(out.stats.thinkingCleared, 3);
  assert.ok(out.stats.thinkingTokensCleared > 0);
  const thinking = [...blocksOf(out.toAnthropic({ cache: false }).messages)].filter((b) => b.type === "thinking" || b.type === "redacted_thinking");
  assert.deepEqual(thinking, [(ANTHROPIC.messages[7].content as unknown[])[0]]); // the latest, signature and all
});
