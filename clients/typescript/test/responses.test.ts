// OpenAI Responses API items (and Agents SDK session items) through the real
// server: recorded sessions come back with every item the strategy keeps
// unchanged, reasoning stays in front of what it preceded, and no
// function_call_output is sent without its call.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { fromResponses, type Client } from "../src/index.js";
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

async function chatStrategies(client: Client): Promise<[string, Record<string, unknown>][]> {
  const out: [string, Record<string, unknown>][] = [];
  for (const s of await client.listStrategies()) {
    if (s.input !== "history") continue;
    if (s.name !== "token-budget") out.push([s.name, {}]);
    if (PRESSED[s.name]) out.push([s.name, PRESSED[s.name]]);
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
    // clear-tool-results below its trigger keeps the history as it is.
    const prompt = (await sidecar.client.toMessages([], { history, strategy: "clear-tool-results" })).toResponses();
    assert.deepEqual(prompt, instructions === undefined ? { input: items } : { instructions, input: items });
    const originals = new Set(items.map(canonical));
    for (const [strategy, options] of await chatStrategies(sidecar.client)) {
      const out = (await sidecar.client.toMessages([], { history, strategy, ...options })).toResponses();
      checkSendable(out.input);
      for (const item of out.input) if ("id" in item) assert.ok(originals.has(canonical(item)), `${strategy}: ${JSON.stringify(item)} was changed`);
    }
  });
}

test("compaction items travel in place", async () => {
  const { items, instructions } = load("compaction-sums.json");
  const history = fromResponses(items, { instructions });
  for (const [strategy, options] of await chatStrategies(sidecar.client)) {
    const out = (await sidecar.client.toMessages([], { history, strategy, ...options })).toResponses().input;
    assert.deepEqual(out.filter((i) => i.type === "compaction"), [items[2]], strategy);
  }
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
