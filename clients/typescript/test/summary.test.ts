// Summaries written by the caller's model, against the real server: a chat
// agent and a run object each go 30 turns with a summariser, and every call
// between two summaries reads the whole previous prompt from the cache
// (stablePrefixTokens); a summary sent back with other messages is refused
// naming summary.digest.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import { ChatMessageSchema } from "../src/gen/ptcsidecar/v1/chat_pb.js";
import { ToMessagesResponseSchema } from "../src/gen/ptcsidecar/v1/compression_pb.js";
import { InvalidArgumentError, summaryRequestMessages, type Messages, type OpenAIMessage, type Summary } from "../src/index.js";
import { serveForThisFile } from "./server.js";

const sidecar = serveForThisFile();

const INSTRUCTION = "Summarise the conversation above";

/** A deterministic summariser: the values the messages hold (words with a
 * digit), each once. The last message is the instruction. */
function valueSummary(messages: OpenAIMessage[]): string {
  const last = messages.at(-1)!;
  assert.equal(last.role, "user");
  assert.ok(String(last.content).startsWith(INSTRUCTION));
  const seen: string[] = [];
  for (const m of messages.slice(0, -1)) {
    if (m.role === "system") continue;
    let text = typeof m.content === "string" ? m.content : "";
    if (m.role === "assistant") text += (m.tool_calls ?? []).map((c) => (c.type === "function" ? c.function.arguments : "")).join(" ");
    for (const w of text.match(/[A-Za-z_-]*\d[\w-]*/g) ?? []) if (!seen.includes(w)) seen.push(w);
  }
  return "Values: " + seen.slice(-60).join(", ");
}

function turnMessages(i: number): OpenAIMessage[] {
  const id = `ORD-${String(i).padStart(4, "0")}`;
  const lines = Array.from({ length: 10 }, (_, k) => `item ${k} of order ${i} costs ${100 + i * k}.99`);
  return [
    { role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "get_order", arguments: JSON.stringify({ order_id: id }) } }] },
    { role: "tool", tool_call_id: `call_${i}`, content: JSON.stringify({ order_id: id, tracking: `TRK${String(i * 7919).padStart(7, "0")}`, lines }) },
  ];
}

/** Between two summaries each call reads everything the previous one sent;
 * a new summary keeps the system prompt only. Returns the summaries. */
function checkPrefixes(prompts: Messages[]): number {
  let summaries = 0;
  for (let i = 1; i < prompts.length; i++) {
    const [prev, cur] = [prompts[i - 1], prompts[i]];
    if (cur.summary?.digest === prev.summary?.digest) {
      assert.equal(cur.stats.stablePrefixTokens, prev.stats.tokensAfter, `call ${i}`);
    } else {
      summaries++;
      assert.ok(cur.stats.stablePrefixTokens > 0 && cur.stats.stablePrefixTokens < prev.stats.tokensAfter, `call ${i}`);
      assert.ok(String(cur.messages[1].content).includes(cur.summary!.text));
    }
  }
  return summaries;
}

test("a chat agent runs 30 turns with a summariser", async () => {
  const history: OpenAIMessage[] = [
    { role: "system", content: "You track orders." },
    { role: "user", content: "Find the delayed orders of customer C-1042." },
  ];
  const asked: OpenAIMessage[][] = [];
  const prompts: Messages[] = [];
  let summary: Summary | null = null;
  for (let i = 0; i < 30; i++) {
    const prompt = await sidecar.client.toMessages([], {
      history,
      strategy: "summarize",
      summaryTrigger: 1500,
      summaryKeep: 2,
      summary,
      summariser: async (messages) => {
        asked.push(messages);
        return valueSummary(messages);
      },
    });
    assert.equal(prompt.summaryRequest, null);
    assert.ok(prompt.stats.tokensAfter <= 1500);
    prompts.push(prompt);
    summary = prompt.summary;
    history.push(...turnMessages(i));
  }
  assert.ok(checkPrefixes(prompts) >= 3 && asked.length >= 3);
  // Each request is a prompt a call sent before, then the instruction.
  for (const request of asked) assert.ok(prompts.some((p) => JSON.stringify(p.messages) === JSON.stringify(request.slice(0, -1))));

  const other = history.map((m, i) => (i === 3 ? { ...m, content: "another result" } : m)) as OpenAIMessage[];
  await assert.rejects(sidecar.client.toMessages([], { history: other, strategy: "summarize", summaryTrigger: 1500, summary }), (err: unknown) => {
    assert.ok(err instanceof InvalidArgumentError);
    assert.equal(err.violations[0].field, "summary.digest");
    return true;
  });
});

test("without a summariser the request is returned", async () => {
  const history: OpenAIMessage[] = [{ role: "user", content: "Go." }];
  for (let i = 0; i < 8; i++) history.push(...turnMessages(i));
  const prompt = await sidecar.client.toMessages([], { history, strategy: "summarize", summaryTrigger: 500, summaryKeep: 2 });
  const request = prompt.summaryRequest!;
  assert.ok(request && prompt.summary === null && prompt.stats.summaryRequested);
  assert.deepEqual(request.messages.slice(0, -1), prompt.messages.slice(0, request.messages.length - 1));
  const summary = request.summary("the orders ORD-0000 to ORD-0006");
  const again = await sidecar.client.toMessages([], { history, strategy: "summarize", summaryTrigger: 500, summary });
  assert.deepEqual(again.summary, summary);
  assert.equal(again.stats.messagesSummarized, request.through);
});

test("both summary request forms ask the same", async () => {
  const history: OpenAIMessage[] = [{ role: "user", content: "Go." }];
  for (let i = 0; i < 8; i++) history.push(...turnMessages(i));
  const asked = [];
  for (const summaryRequestForm of ["prefix", "whole"]) {
    const prompt = await sidecar.client.toMessages([], { history, strategy: "summarize", summaryTrigger: 500, summaryKeep: 2, summaryRequestForm });
    asked.push(prompt.summaryRequest);
  }
  assert.ok(asked[0] !== null);
  assert.deepEqual(asked[0], asked[1]);
});

test("summaryRequestMessages rebuilds the messages of either form", () => {
  const m = (content: string) => create(ChatMessageSchema, { role: "user", content });
  const instruction = m("Summarise the conversation above.");
  const prefix = create(ToMessagesResponseSchema, { messages: [m("a"), m("b"), m("c")], summaryRequest: { prefixMessages: 2, messages: [instruction] } });
  const whole = create(ToMessagesResponseSchema, { messages: [m("a"), m("b"), m("c")], summaryRequest: { messages: [m("a"), m("b"), instruction] } });
  assert.deepEqual(summaryRequestMessages(prefix), summaryRequestMessages(whole));
  assert.deepEqual(summaryRequestMessages(prefix).map((x) => x.content), ["a", "b", instruction.content]);
  assert.deepEqual(summaryRequestMessages(create(ToMessagesResponseSchema, { messages: [m("a")] })), []);
  const broken = create(ToMessagesResponseSchema, { messages: [m("a")], summaryRequest: { prefixMessages: 3, messages: [instruction] } });
  assert.throws(() => summaryRequestMessages(broken), RangeError);
});

const fetch = ({ n }: { n: number }) => ({ shipment: `SHP-${String(n).padStart(4, "0")}`, crates: Array.from({ length: 12 }, (_, k) => `crate ${n}-${k} weighs ${100 + k} kg`) });
const program = (i: number) => `Next.\n\n\`\`\`clojure\n(tool/fetch {:n ${i}})\n\`\`\``;

test("a run with a summariser keeps one prefix", async () => {
  const summariser = (messages: OpenAIMessage[]) => valueSummary(messages);
  const run = sidecar.client.run({ mission: "Weigh the shipments", tools: { fetch }, maxTurns: 40, summariser, summaryTrigger: 3000, summaryKeep: 2 });
  const prompts: Messages[] = [];
  for (let i = 0; i < 30; i++) {
    prompts.push(await run.nextMessages());
    assert.ok((await run.step(program(i))).success);
  }
  assert.ok(checkPrefixes(prompts) >= 2 && run.summary !== null);
  assert.equal(prompts.at(-1)!.stats.strategy, "summarize-turns");

  const resumed = sidecar.client.resume(JSON.stringify(run), { tools: { fetch }, summariser });
  assert.deepEqual(resumed.summary, run.summary);
  assert.deepEqual((await resumed.nextMessages()).messages, (await run.nextMessages()).messages);
  assert.throws(() => sidecar.client.run({ mission: "x", strategy: "full", summariser }), /summarize-turns/);
});
