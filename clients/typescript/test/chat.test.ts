// Chat messages in the providers' shapes, through the real server and through
// the adapters alone. The types are checked against the openai and
// @anthropic-ai/sdk packages: this file does not compile when the package's
// messages stop fitting theirs. (No call reaches either provider.)
import assert from "node:assert/strict";
import { test } from "node:test";

import type Anthropic from "@anthropic-ai/sdk";
import type { ChatCompletion, ChatCompletionMessage, ChatCompletionMessageParam } from "openai/resources/chat/completions";

import { ChatMessageSchema, ChatToolCallSchema } from "../src/gen/ptcsidecar/v1/chat_pb.js";
import { Prompt, readOpenAI } from "../src/chat.js";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { fromAnthropic, replyText, type AnthropicPrompt, type OpenAIMessage, type Reply } from "../src/index.js";
import { serveForThisFile } from "./server.js";

const sidecar = serveForThisFile();

const call = (id: string, name: string, args: string) => ({ id, type: "function" as const, function: { name, arguments: args } });

// What the openai SDK returns: a response message, content null, refusal null.
const sdkMessage: ChatCompletionMessage = { role: "assistant", content: null, refusal: null, tool_calls: [call("call_1", "search", '{"q":"headphones"}')] };

const OPENAI_HISTORY: ChatCompletionMessageParam[] = [
  { role: "developer", content: "You are a shop assistant." },
  { role: "user", name: "ada", content: [{ type: "text", text: "Find headphones" }, { type: "text", text: "under 100 EUR." }] },
  sdkMessage,
  { role: "tool", tool_call_id: "call_1", content: '[{"id":"p1"}]' },
];

test("OpenAI history comes back as it went in, typed as the SDK's", async () => {
  const out = await sidecar.client.toMessages([], { history: OPENAI_HISTORY, strategy: "loop-slice" });
  const params: ChatCompletionMessageParam[] = out.messages; // the type check
  assert.deepEqual(params, OPENAI_HISTORY);
  assert.equal(out.nudge, null);
  (out.messages[1].content as { text: string }[])[0].text = "changed"; // copies: the caller's history is untouched
  assert.equal((OPENAI_HISTORY[1].content as { text: string }[])[0].text, "Find headphones");
});

test("a changed message is written fresh", async () => {
  const history: ChatCompletionMessageParam[] = [
    { role: "system", content: "s" },
    { role: "user", content: "go" },
    { role: "assistant", content: null, tool_calls: [call("c1", "fetch", '{"url":"x"}')] },
    { role: "tool", tool_call_id: "c1", content: "x".repeat(400) },
    { role: "assistant", content: null, tool_calls: [call("c2", "fetch", '{"url":"y"}')] },
    { role: "tool", tool_call_id: "c2", content: "y" },
  ];
  // Priced as a provider that caches nothing, so that clearing needs no
  // later calls to pay back its rewrite.
  const out = await sidecar.client.toMessages([], { history, strategy: "clear-tool-results", trigger: 1, keep: 1, clearToolInputs: true, pricing: "none" });
  assert.equal(out.stats.toolUsesCleared, 1);
  assert.deepEqual(out.messages[2], { role: "assistant", content: null, tool_calls: [call("c1", "fetch", "{}")] });
  assert.deepEqual(out.messages[3], { role: "tool", content: "[cleared]", tool_call_id: "c1" });
  assert.deepEqual(out.messages.slice(4), history.slice(4));
});

test("the synthetic nudge is named", async () => {
  const history: ChatCompletionMessageParam[] = [
    { role: "system", content: "s" },
    { role: "assistant", content: null, tool_calls: [call("c1", "f", "{}")] },
    { role: "tool", tool_call_id: "c1", content: "42" },
  ];
  const out = await sidecar.client.toMessages([], { history, strategy: "loop-slice", nudgeAttempt: 2, provider: "openai" });
  assert.equal(out.stats.syntheticNudge, true);
  // It is the last message: the turn's prompt, never before the model's own words.
  assert.equal(out.nudge, out.messages[out.messages.length - 1]);
  assert.equal(out.nudge?.role, "user");
  assert.deepEqual(Object.keys(out.nudge!).sort(), ["content", "role"]); // nothing the API would refuse
  assert.deepEqual(out.messages.slice(1, -1), history.slice(1));
  // With no provider named, the conversation opens with the user's words:
  // the loop travels as a note, and the nudge is still last.
  const anyone = await sidecar.client.toMessages([], { history, strategy: "loop-slice", nudgeAttempt: 2 });
  assert.equal(anyone.nudge, anyone.messages[anyone.messages.length - 1]);
  assert.equal(anyone.messages[1].role, "user");
  assert.equal(anyone.stats.unitsNoted, 1);
  // With a prompt to open with, there is none.
  const asked: ChatCompletionMessageParam[] = [history[0], { role: "user", content: "Find it." }, ...history.slice(1)];
  assert.equal((await sidecar.client.toMessages([], { history: asked, strategy: "loop-slice" })).nudge, null);
});

test("parts of an unknown type are refused, naming the message", async () => {
  const history = [
    { role: "user", content: "look" },
    { role: "user", content: [{ type: "text", text: "this:" }, { type: "video_url", video_url: { url: "https://x/y.mp4" } }] },
  ];
  await assert.rejects(sidecar.client.toMessages([], { history, strategy: "loop-slice" }), /history\[1\]\.content\[1\]\.type: "video_url" is not an OpenAI content part/);
  await assert.rejects(sidecar.client.toMessages([], { history: [{ role: "function", name: "f", content: "1" }], strategy: "loop-slice" }), /history\[0\]\.role: the function role/);
});

test("the OpenAI adapter keeps name and null content", () => {
  const history = readOpenAI([
    { role: "user", name: "ada", content: "hi" },
    { role: "assistant", content: null, tool_calls: [call("c1", "f", "{}")] },
  ]);
  assert.equal(history.wire[0].name, "ada");
  const fresh = new Prompt(history.wire).openaiMessages();
  assert.deepEqual(fresh, [
    { role: "user", content: "hi", name: "ada" },
    { role: "assistant", content: null, tool_calls: [call("c1", "f", "{}")] },
  ]);
});

// ---- Anthropic --------------------------------------------------------------

const ANTHROPIC_SYSTEM = "You are a shop assistant.";
const ANTHROPIC_MESSAGES: Anthropic.MessageParam[] = [
  { role: "user", content: "Find headphones under 100 EUR." },
  {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Search first.", signature: "c2lnbmF0dXJl" },
      { type: "text", text: "Searching." },
      { type: "tool_use", id: "toolu_1", name: "search", input: { q: "headphones", max: 100 } },
    ],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: '[{"id":"p1"}]' }], is_error: false },
      { type: "text", text: "Pick the cheapest." },
    ],
  },
];

test("Anthropic history comes back whole, typed as the SDK's", async () => {
  const out = await sidecar.client.toMessages([], { history: fromAnthropic(ANTHROPIC_MESSAGES, { system: ANTHROPIC_SYSTEM }), strategy: "clear-tool-results" });
  assert.deepEqual(out.messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
  const anthropic = out.toAnthropic({ cache: false });
  const params: Pick<Anthropic.MessageCreateParams, "system" | "messages"> = anthropic; // the type check
  assert.deepEqual(params, { system: ANTHROPIC_SYSTEM, messages: ANTHROPIC_MESSAGES });
});

const wire = (role: string, content = "", extra: MessageInitShape<typeof ChatMessageSchema> = {}) => create(ChatMessageSchema, { ...extra, role, content });

test("Anthropic messages written fresh", () => {
  const out = new Prompt([
    wire("system", "sys"),
    wire("user", "go"),
    wire("assistant", "", { toolCalls: [create(ChatToolCallSchema, { id: "t1", name: "f", arguments: '{"a":1}' }), create(ChatToolCallSchema, { id: "t2", name: "g", arguments: "{}" })] }),
    wire("tool", "1", { toolCallId: "t1" }),
    wire("tool", "2", { toolCallId: "t2" }),
    wire("user", "Continue.", { source: "system" }),
  ]).toAnthropic([]);
  assert.deepEqual(out, {
    system: "sys",
    messages: [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "f", input: { a: 1 } },
          { type: "tool_use", id: "t2", name: "g", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "1" },
          { type: "tool_result", tool_use_id: "t2", content: "2" },
          { type: "text", text: "Continue." },
        ],
      },
    ],
  });
  const bad = new Prompt([wire("assistant", "", { toolCalls: [create(ChatToolCallSchema, { id: "t", name: "f", arguments: "[cut" })] })]);
  assert.throws(() => bad.toAnthropic([]), /messages\[0\]\.tool_calls\[0\]\.arguments: not JSON/);
});

test("Anthropic blocks without a place on the wire are refused, naming the message", () => {
  const image = { type: "image" as const, source: { type: "url" as const, url: "https://x/y.png" } };
  const search = { type: "search_result", source: "https://x", title: "t", content: [] };
  assert.throws(() => fromAnthropic([{ role: "user", content: "a" }, { role: "user", content: [image, search] }]), /messages\[1\]\.content\[1\]: a "search_result" block has no place/);
  assert.throws(
    () => fromAnthropic([{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [image, search] }] }]),
    /messages\[0\]\.content\[0\]\.content\[1\]: a "search_result" block/,
  );
});

const promptOf = (...contents: string[]) => new Prompt(contents.map((c, i) => wire(["system", "user", "assistant", "user"][i], c)));

test("cache_control marks the stable prefix", () => {
  const mark = { type: "ephemeral" };
  let out = promptOf("SYSTEM", "stable part|new part").toAnthropic([{ messageIndex: 1, offset: 12 }]);
  assert.deepEqual(out.messages, [{ role: "user", content: [{ type: "text", text: "stable part|", cache_control: mark }, { type: "text", text: "new part" }] }]);
  out = promptOf("SYSTEM", "next").toAnthropic([{ messageIndex: 0, offset: 6 }], "1h");
  assert.deepEqual(out.system, [{ type: "text", text: "SYSTEM", cache_control: { type: "ephemeral", ttl: "1h" } }]);
  out = promptOf("SYSTEM", "a", "b").toAnthropic([{ messageIndex: 2, offset: 0 }]);
  assert.deepEqual(out.messages[0].content, [{ type: "text", text: "a", cache_control: mark }]);
  // Offsets count code points, as the sidecar does: 🎧 is one, not two.
  out = promptOf("S", "héllo wörld 🎧 tail").toAnthropic([{ messageIndex: 1, offset: 14 }]);
  assert.equal((out.messages[0].content as { text: string }[])[0].text, "héllo wörld 🎧 ");
  out = promptOf("S", "0123456789").toAnthropic([
    { messageIndex: 1, offset: 7 },
    { messageIndex: 1, offset: 3 },
  ]);
  assert.deepEqual(out.messages[0].content, [
    { type: "text", text: "012", cache_control: mark },
    { type: "text", text: "3456", cache_control: mark },
    { type: "text", text: "789" },
  ]);
});

/** Each prefix of an Anthropic prompt that ends at a cache_control mark,
 * block by block: what the provider caches there and looks up later. */
function markedPrefixes(prompt: AnthropicPrompt): string[] {
  const system = typeof prompt.system === "string" ? [{ type: "text", text: prompt.system }] : (prompt.system ?? []);
  const blocks: [string, Record<string, unknown>][] = system.map((b) => ["system", b]);
  for (const m of prompt.messages) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const b of content) blocks.push([m.role, b as Record<string, unknown>]);
  }
  const out: string[] = [];
  const seen: unknown[] = [];
  for (const [role, b] of blocks) {
    const { cache_control, ...rest } = b;
    seen.push([role, rest]);
    if (cache_control) out.push(JSON.stringify(seen));
  }
  return out;
}

for (const strategy of ["single-user-coalesced", "full"]) {
  test(`each call reads what the last one wrote (${strategy})`, async () => {
    const run = sidecar.client.run({ mission: "Sum things", strategy, maxTurns: 8, data: { xs: [1, 2, 3] }, tools: { inc: ({ n }: { n: number }) => n + 1 } });
    let written: string[] | undefined;
    for (const program of ['(def a (tool/inc {:n 1})) (println "a" a) a', "(undefined)", "(def b (+ a 1)) b", "(def c (* b 2)) (println c) c", "(return c)"]) {
      const prompt = await run.nextMessages();
      const marked = markedPrefixes(prompt.toAnthropic());
      assert.ok(marked.length >= 1 && marked.length <= 2);
      if (written) {
        assert.ok(prompt.stats.stablePrefixKnown, prompt.stats.stablePrefixNote);
        assert.ok(marked.some((p) => written!.includes(p)), "this call reads nothing the last one wrote");
      }
      written = marked;
      await run.step("```clojure\n" + program + "\n```");
    }
    assert.equal(run.result, 6);
  });
}

test("replyText reads each provider's reply, typed as the SDKs'", () => {
  const completion: ChatCompletion = {
    id: "c",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, finish_reason: "stop", logprobs: null, message: { role: "assistant", content: "y", refusal: null } }],
  };
  const message: Anthropic.Message = {
    id: "m",
    type: "message",
    role: "assistant",
    model: "claude",
    content: [
      { type: "thinking", thinking: "hm", signature: "s" },
      { type: "text", text: "z", citations: null },
    ],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {} as Anthropic.Usage,
  } as Anthropic.Message;
  const replies: Reply[] = [completion, completion.choices[0].message, message, "x"]; // the type check
  assert.deepEqual(replies.map(replyText), ["y", "y", "z", "x"]);
  const written: OpenAIMessage = { role: "assistant", content: null };
  assert.equal(replyText(written), "");
});
