// A run driven by tool calls (programForm "tool_call") against the real
// server: the LLM calls run_ptc_lisp in OpenAI's, Anthropic's or the
// Responses API's shape, and the prompt renders each past turn as that call
// and a tool message.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import { ChatToolCallSchema } from "../src/gen/ptcsidecar/v1/chat_pb.js";
import { InvalidArgumentError, SidecarError, programCall, type ProgramCallInput } from "../src/index.js";
import { serveForThisFile } from "./server.js";

const sidecar = serveForThisFile();

const ORDERS = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, total: (i + 1) * 10 }));

const openaiCall = (id: string, program: string, text: string | null = null) => ({
  choices: [{ message: { role: "assistant", content: text, tool_calls: [{ id, type: "function", function: { name: "run_ptc_lisp", arguments: JSON.stringify({ program }) } }] } }],
});
const anthropicCall = (id: string, program: string, text = "Summing.") => ({
  role: "assistant",
  content: [
    { type: "text", text },
    { type: "tool_use", id, name: "run_ptc_lisp", input: { program } },
  ],
});
const responsesCall = (callId: string, program: string) => ({
  output: [
    { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAA" },
    { type: "function_call", id: "fc_1", call_id: callId, name: "run_ptc_lisp", arguments: JSON.stringify({ program }) },
  ],
});

type Block = { type: string; id?: string; tool_use_id?: string; input?: unknown };

for (const protocol of ["replay", "stream"] as const) {
  for (const strategy of ["single-user-coalesced", "cache-stable"]) {
    test(`a run driven by tool calls (${strategy}, ${protocol})`, async () => {
      const fetched: number[] = [];
      const orders = ({ since }: { since: number }) => {
        fetched.push(since);
        return ORDERS;
      };
      const run = sidecar.client.run({ mission: "Sum the orders' totals.", tools: { orders }, maxTurns: 5, protocol, strategy, programForm: "tool_call" });
      let prompt = await run.nextMessages();
      assert.equal(prompt.stats.programTool?.name, "run_ptc_lisp");
      const [tool] = prompt.tools as { type: string; function: { name: string; parameters: { required: string[] } } }[];
      assert.deepEqual([tool.type, tool.function.name, tool.function.parameters.required], ["function", "run_ptc_lisp", ["program"]]);
      assert.deepEqual((prompt.anthropicTools[0].input_schema as { required: string[] }).required, ["program"]);
      assert.equal(prompt.responsesTools[0].name, "run_ptc_lisp");
      assert.match(String(prompt.messages[0].content), /run_ptc_lisp/);
      assert.doesNotMatch(String(prompt.messages[0].content), /```clojure/);

      const one = await run.step(openaiCall("call_1", "(def all (tool/orders {:since 0})) all"));
      assert.deepEqual([one.success, fetched], [true, [0]]);
      prompt = await run.nextMessages();
      assert.deepEqual(prompt.messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
      const assistant = prompt.messages[2] as { tool_calls: { id: string; function: { name: string; arguments: string } }[] };
      assert.deepEqual([assistant.tool_calls[0].id, assistant.tool_calls[0].function.name], ["call_1", "run_ptc_lisp"]);
      assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), { program: "(def all (tool/orders {:since 0})) all" });
      const answer = prompt.messages[3] as { tool_call_id: string; content: string };
      assert.equal(answer.tool_call_id, "call_1");
      assert.match(answer.content, /\(40 items, showing first 3\)/);

      const two = await run.step(anthropicCall("toolu_2", "(reduce + (map :total al))"));
      assert.equal(two.success, false);
      const anthropic = (await run.nextMessages()).toAnthropic();
      const blocks = anthropic.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []));
      const uses = blocks.filter((b) => b.type === "tool_use");
      assert.deepEqual(uses.map((u) => u.id), ["call_1", "toolu_2"]);
      assert.deepEqual(uses[1].input, { program: "(reduce + (map :total al))" });
      assert.deepEqual(blocks.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id), ["call_1", "toolu_2"]);

      const before = await run.nextMessages();
      assert.ok(before.stats.stablePrefixTokens > 0);
      const three = await run.step(responsesCall("call_3", "(return (reduce + (map :total all)))"));
      assert.ok(three.returned);
      assert.equal(run.result, ORDERS.reduce((s, o) => s + o.total, 0));
      const saved = run.toJSON();
      assert.deepEqual(saved.turns.map((t) => (t as { program_call_id?: string }).program_call_id), ["call_1", "toolu_2", "call_3"]);
    });
  }
}

test("a reply without a call falls back to its fenced block", async () => {
  const run = sidecar.client.run({ mission: "m", maxTurns: 2, programForm: "tool_call" });
  const turn = await run.step("```clojure\n(+ 1 2)\n```");
  assert.deepEqual([turn.success, turn.result], [true, 3]);
});

test("bad arguments are a turn the LLM reads", async () => {
  const run = sidecar.client.run({ mission: "m", maxTurns: 3, programForm: "tool_call" });
  const bad = { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "run_ptc_lisp", arguments: '{"program": "(+ 1' } }] };
  const turn = await run.step(bad);
  assert.equal(turn.error?.type, "no_program");
  assert.match(turn.error?.message ?? "", /program_call\.arguments/);
  const prompt = await run.nextMessages();
  assert.match(String(prompt.messages[3].content), /program_call\.arguments/);
});

test("programCall reads every shape", () => {
  assert.deepEqual(programCall("text"), { call: null, text: "text" });
  let got = programCall(anthropicCall("t1", "(+ 1 2)", "Here."));
  assert.deepEqual([got.call?.id, JSON.parse(got.call?.arguments ?? ""), got.text], ["t1", { program: "(+ 1 2)" }, "Here."]);
  got = programCall(openaiCall("c1", "1", "ok").choices[0].message);
  assert.deepEqual([got.call?.id, got.call?.arguments, got.text], ["c1", '{"program":"1"}', "ok"]);
  assert.equal(programCall(responsesCall("c3", "2").output).call?.id, "c3");
  const other = { role: "assistant", content: null, tool_calls: [{ id: "x", type: "function", function: { name: "search", arguments: "{}" } }] };
  assert.deepEqual(programCall(other), { call: null, text: "" });
});

test("programForm is checked", async () => {
  const run = sidecar.client.run({ mission: "m", programForm: "json" });
  await assert.rejects(run.nextMessages(), (err: unknown) => err instanceof SidecarError && /program_form/.test(err.message));
});

test("evalTurn takes the call in every shape", async () => {
  const fetched: number[] = [];
  const orders = ({ since }: { since: number }) => {
    fetched.push(since);
    return ORDERS.slice(0, 3);
  };
  const program = "(reduce + (map :total (tool/orders {:since 2})))";
  const shapes: [ProgramCallInput, string][] = [
    [openaiCall("call_1", program).choices[0].message.tool_calls[0], "call_1"],
    [anthropicCall("toolu_2", program).content[1] as ProgramCallInput, "toolu_2"],
    [responsesCall("call_3", program).output[1] as ProgramCallInput, "call_3"],
    [create(ChatToolCallSchema, { id: "call_4", name: "run_ptc_lisp", arguments: JSON.stringify({ program }) }), "call_4"],
  ];
  for (const [call, id] of shapes) {
    for (const protocol of ["replay", "stream"] as const) {
      const turn = await sidecar.client.evalTurn({ programCall: call, tools: { orders }, protocol });
      assert.deepEqual([turn.success, turn.result, turn.wire.programCallId, turn.program], [true, 60, id, program], `${id} ${protocol}`);
    }
  }
  assert.deepEqual(fetched, Array(8).fill(2));
});

test("evalTurn with a call the LLM wrote wrong or of another tool", async () => {
  const bad = { id: "c1", type: "function", function: { name: "run_ptc_lisp", arguments: '{"code": "1"}' } };
  const turn = await sidecar.client.evalTurn({ programCall: bad });
  assert.equal(turn.success, false);
  assert.equal(turn.error?.type, "no_program");
  assert.match(turn.error?.message ?? "", /program_call\.arguments/);
  await assert.rejects(sidecar.client.evalTurn({ programCall: { type: "tool_use", id: "t", name: "search", input: { q: "x" } } }), (e: unknown) => e instanceof InvalidArgumentError && /program_call\.name/.test(e.message));
  await assert.rejects(sidecar.client.evalTurn({ program: "1", programCall: bad }), /program or programCall, not both/);
  await assert.rejects(sidecar.client.evalTurn({ programCall: "(+ 1 2)" as unknown as ProgramCallInput }), /programCall: want a tool call/);
  await assert.rejects(sidecar.client.evalTurn({ programCall: { type: "text", text: "hi" } as unknown as ProgramCallInput }), /programCall\.type: "text"/);
});

for (const protocol of ["replay", "stream"] as const) {
  test(`a reply without a call is told to call the tool (${protocol})`, async () => {
    const run = sidecar.client.run({ mission: "m", maxTurns: 3, programForm: "tool_call", protocol });
    const turn = await run.step({ role: "assistant", content: "I will add them up." });
    assert.equal(turn.error?.type, "no_program");
    assert.match(turn.error?.message ?? "", /made no run_ptc_lisp call/);
    assert.match(turn.error?.hint ?? "", /call run_ptc_lisp with arguments \{"program"/);
    assert.doesNotMatch(turn.error?.hint ?? "", /fenced/);
    assert.equal((await run.step("")).error?.hint, turn.error?.hint); // an empty reply too
    const prompt = await run.nextMessages();
    assert.ok(prompt.messages.some((m) => typeof m.content === "string" && m.content.includes('call run_ptc_lisp with arguments {"program"')));
    const fenced = await sidecar.client.run({ mission: "m", maxTurns: 3, protocol }).step("I will add them up.");
    assert.match(fenced.error?.hint ?? "", /fenced block/);
    // The plain client says the same given an empty call beside the reply's text.
    const plain = await sidecar.client.evalTurn({ rawResponse: "I will add them up.", programCall: create(ChatToolCallSchema, {}), protocol });
    assert.equal(plain.error?.hint, turn.error?.hint);
  });
}
