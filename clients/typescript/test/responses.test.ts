// OpenAI Responses API items (and Agents SDK session items) through the real
// server: recorded sessions come back with every item the strategy keeps
// unchanged, reasoning stays in front of what it preceded, and no
// function_call_output is sent without its call.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import { Prompt } from "../src/chat.js";
import { ChatMessageSchema } from "../src/gen/ptcsidecar/v1/chat_pb.js";
import { fromResponses, type Client } from "../src/index.js";
import { toResponses } from "../src/responses.js";
import { repo, serveForThisFile } from "./server.js";

const sidecar = serveForThisFile();

type Item = Record<string, unknown>;
const dir = join(repo, "clients", "testdata", "responses");
const SESSIONS = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
const load = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as { items: Item[]; instructions?: string };

// A tool loop with reasoning in front of each call, in the documented shape
// of a reasoning model's output (no recorded session holds one).
const REASONING_LOOP: Item[] = [
  { role: "developer", content: "Answer with the tools." },
  { role: "user", content: "Where is order 4417 and when does it arrive?" },
  { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Look the order up." }], encrypted_content: "gAAAAAB-one" },
  { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_order", arguments: '{"order_id":"4417"}', status: "completed" },
  { type: "function_call_output", call_id: "call_1", output: '{"carrier":"DHL","tracking":"JD0146"}' },
  { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "gAAAAAB-two" },
  { type: "function_call", id: "fc_2", call_id: "call_2", name: "track", arguments: '{"tracking":"JD0146"}', status: "completed" },
  { type: "function_call_output", call_id: "call_2", output: "arrives Friday" },
  { type: "reasoning", id: "rs_3", summary: [], encrypted_content: "gAAAAAB-three" },
  {
    type: "message",
    id: "msg_3",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Order 4417 ships with DHL (JD0146) and arrives Friday.", annotations: [] }],
  },
  { role: "user", content: "Thanks! And order 4418?" },
];

// Settings under which the chat strategies drop or rewrite parts of these
// short sessions, besides their defaults.
const PRESSED: Record<string, Record<string, unknown>> = { "token-budget": { maxTokens: 120 }, "clear-tool-results": { trigger: 0, keep: 0 } };

/** Every chat strategy with its options: defaults, then pressed, then
 * keeping the reasoning of the latest assistant message only. */
async function chatStrategies(client: Client): Promise<[string, Record<string, unknown>][]> {
  const out: [string, Record<string, unknown>][] = [];
  for (const s of await client.listStrategies()) {
    if (s.input !== "history") continue;
    if (s.name !== "token-budget") out.push([s.name, {}]);
    if (PRESSED[s.name]) out.push([s.name, PRESSED[s.name]]);
    out.push([s.name, { ...(PRESSED[s.name] ?? {}), keepThinkingTurns: 1 }]);
  }
  return out;
}

/** No function_call_output before its call, no call without its output;
 * each reasoning item is followed by an item that is not an output. */
function checkSendable(items: Item[]): void {
  const answered = new Set(items.filter((i) => i.type === "function_call_output").map((i) => i.call_id));
  assert.ok(items.every((i) => i.type !== "function_call" || answered.has(i.call_id)), "a call without its output");
  const called = new Set<unknown>();
  items.forEach((item, n) => {
    if (item.type === "function_call") called.add(item.call_id);
    else if (item.type === "function_call_output") assert.ok(called.has(item.call_id), `orphaned function_call_output at ${n}`);
    else if (item.type === "reasoning") {
      const after = items[n + 1];
      assert.ok(after && [undefined, "message", "function_call", "reasoning"].includes(after.type as string), `reasoning at ${n} is not in front of what it preceded`);
    }
  });
}

const canonical = (v: unknown): string => JSON.stringify(v, (_, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));

for (const name of SESSIONS) {
  test(`the recorded session ${name} comes back whole`, async () => {
    const { items, instructions } = load(name);
    const before = structuredClone(items);
    const history = fromResponses(items, { instructions });
    assert.deepEqual(items, before); // reading does not touch the caller's items
    // clear-tool-results below its trigger keeps the history as it is, from
    // its last compaction item on (the items before it are replaced by it).
    const last = items.map((i) => i.type).lastIndexOf("compaction");
    const kept = items.slice(Math.max(last, 0));
    const prompt = (await sidecar.client.toMessages([], { history, strategy: "clear-tool-results" })).toResponses();
    assert.deepEqual(prompt, instructions === undefined ? { input: kept } : { instructions, input: kept });
    const originals = new Set(items.map(canonical));
    for (const [strategy, options] of await chatStrategies(sidecar.client)) {
      const out = (await sidecar.client.toMessages([], { history, strategy, ...options })).toResponses();
      checkSendable(out.input);
      for (const item of out.input) if ("id" in item) assert.ok(originals.has(canonical(item)), `${strategy}: ${JSON.stringify(item)} was changed`);
    }
  });
}

test("a compaction item opens what is sent", async () => {
  const { items, instructions } = load("compaction-sums.json");
  const history = fromResponses(items, { instructions });
  assert.deepEqual(history.history.wire[3].parts.map((p) => p.type), ["compaction"]);
  for (const [strategy, options] of await chatStrategies(sidecar.client)) {
    const messages = await sidecar.client.toMessages([], { history, strategy, ...options });
    const out = messages.toResponses();
    // Whole, encrypted_content and id as recorded, with nothing before it.
    assert.deepEqual(out.input[0], items[2], strategy);
    assert.deepEqual(out.input.filter((i) => i.type === "compaction"), [items[2]], strategy);
    assert.equal(out.instructions, instructions);
    assert.equal(messages.stats.compactionReplaced, 2, strategy);
  }
});

test("a later compaction replaces an earlier one", async () => {
  const { items } = load("compaction-sums.json");
  const later: Item = { type: "compaction", id: "cmp_2", encrypted_content: "gAAAAAB-later" };
  const loop = REASONING_LOOP.slice(1);
  // A compaction between responses, and one a response opened, its call and
  // reasoning after it in the same output.
  const cases: [Item[], string][] = [
    [[...items, ...loop.slice(0, 9), later, ...loop.slice(9)], "call_2"],
    [[...items, ...loop.slice(0, 4), later, ...loop.slice(4, 7), ...loop.slice(9)], "call_1"],
  ];
  for (const [sent, replaced] of cases) {
    const history = fromResponses(sent);
    for (const [strategy, options] of await chatStrategies(sidecar.client)) {
      const out = (await sidecar.client.toMessages([], { history, strategy, ...options })).toResponses().input;
      checkSendable(out);
      assert.deepEqual(out[0], later, strategy);
      assert.deepEqual(out.filter((i) => i.type === "compaction"), [later], strategy);
      assert.ok(!out.some((i) => i.call_id === replaced), `${strategy}: ${replaced} is before it and replaced`);
      assert.deepEqual(out.at(-1), loop[9], strategy);
    }
  }
});

test("reasoning items are reasoning parts", () => {
  const { wire } = fromResponses(REASONING_LOOP).history;
  const [first, last] = [wire[2], wire[6]];
  assert.deepEqual([first.parts.map((p) => p.type), first.content], [["reasoning"], ""]);
  assert.deepEqual([first.parts[0].text, first.parts[0].data], ["Look the order up.", "gAAAAAB-one"]);
  assert.equal(JSON.parse(first.parts[0].providerJson).id, "rs_1");
  assert.deepEqual(last.parts.map((p) => p.type), ["reasoning", "text"]);
  assert.equal(last.parts[1].text, "Order 4417 ships with DHL (JD0146) and arrives Friday.");
  assert.deepEqual(first.toolCalls.map((c) => [c.id, c.name, c.arguments]), [["call_1", "get_order", '{"order_id":"4417"}']]);
});

test("keep_thinking_turns drops older reasoning items only", async () => {
  const history = fromResponses(REASONING_LOOP);
  for (const [strategy, options] of await chatStrategies(sidecar.client)) {
    if (options.keepThinkingTurns !== 1 || strategy === "token-budget") continue;
    const messages = await sidecar.client.toMessages([], { history, strategy, ...options });
    const out = messages.toResponses().input;
    checkSendable(out);
    // The latest, encrypted content and all.
    assert.deepEqual(out.filter((i) => i.type === "reasoning"), [REASONING_LOOP[8]], strategy);
    // The calls that lost their reasoning are kept, with their own fields.
    const originals = new Set(REASONING_LOOP.map(canonical));
    assert.ok(out.filter((i) => i.type === "function_call").every((c) => originals.has(canonical(c))), strategy);
    assert.ok(messages.stats.thinkingCleared >= 1, strategy);
  }
  const out = (await sidecar.client.toMessages([], { history, strategy: "clear-tool-results", keepThinkingTurns: 1 })).toResponses().input;
  assert.deepEqual(out, REASONING_LOOP.filter((i) => i.type !== "reasoning" || i.id === "rs_3"));
});

test("reasoning stays with the call a strategy rewrote", async () => {
  const history = fromResponses(REASONING_LOOP);
  const unchanged = (await sidecar.client.toMessages([], { history, strategy: "clear-tool-results" })).toResponses();
  assert.deepEqual(unchanged, { input: REASONING_LOOP });
  const cleared = (await sidecar.client.toMessages([], { history, strategy: "clear-tool-results", trigger: 0, keep: 0, clearToolInputs: true })).toResponses().input;
  checkSendable(cleared);
  assert.deepEqual(
    cleared.slice(2, 10).map((i) => [i.type, i.id]),
    [
      ["reasoning", "rs_1"],
      ["function_call", "fc_1"],
      ["function_call_output", undefined],
      ["reasoning", "rs_2"],
      ["function_call", "fc_2"],
      ["function_call_output", undefined],
      ["reasoning", "rs_3"],
      ["message", "msg_3"],
    ],
  );
  const calls = cleared.filter((i) => i.type === "function_call");
  assert.deepEqual(calls.map((c) => c.status), ["completed", "completed"]);
  assert.notEqual(calls[0].arguments, REASONING_LOOP[3].arguments);
  assert.deepEqual(cleared.filter((i) => i.type === "reasoning").map((i) => i.encrypted_content), ["gAAAAAB-one", "gAAAAAB-two", "gAAAAAB-three"]);
  const outputs = cleared.filter((i) => i.type === "function_call_output");
  assert.deepEqual([outputs.map((o) => o.call_id), outputs[0].output], [["call_1", "call_2"], "[cleared]"]);
});

test("a run in tool-call form as Responses items", async () => {
  const run = sidecar.client.run({ mission: "Add.", maxTurns: 3, programForm: "tool_call" });
  await run.step({ output: [{ type: "function_call", call_id: "call_a", name: "run_ptc_lisp", arguments: JSON.stringify({ program: "(def x (+ 1 2))" }) }] });
  const prompt = (await run.nextMessages()).toResponses();
  assert.match(prompt.instructions ?? "", /run_ptc_lisp/);
  assert.deepEqual(prompt.input.map((i) => i.type ?? "message"), ["message", "function_call", "function_call_output", "message"]);
  assert.deepEqual([prompt.input[1].call_id, prompt.input[2].call_id], ["call_a", "call_a"]);
  assert.deepEqual(JSON.parse(prompt.input[1].arguments as string), { program: "(def x (+ 1 2))" });
});

test("items the sidecar cannot read are refused", () => {
  assert.throws(() => fromResponses([{ role: "user", content: "hi" }, { type: "web_search_call", id: "ws_1" }]), /items\[1\]\.type: a "web_search_call" item/);
  assert.throws(() => fromResponses([{ role: "user", content: [{ type: "input_image", image_url: "x" }] }]), /items\[0\]\.content\[0\]: a "input_image" part/);
  assert.throws(() => fromResponses([{ type: "function_call_output", output: "x" }]), /items\[0\]\.call_id/);
});

test("parts made without a source become items", () => {
  const compaction: Item = { type: "compaction", id: "cmp_9", encrypted_content: "gAAAAAB-nine", created_by: "server" };
  const { wire } = fromResponses([...REASONING_LOOP, compaction]).history;
  // Rebuilt from their parts alone.
  const made = [wire[6], wire.at(-1)!].map((m) => create(ChatMessageSchema, { role: m.role, parts: m.parts }));
  const text = ((REASONING_LOOP[9].content as Item[])[0] as Item).text;
  assert.deepEqual(toResponses(new Prompt(made)).input, [REASONING_LOOP[8], { role: "assistant", content: text }, compaction]);
});
