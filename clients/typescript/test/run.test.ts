// The run object against the real server: the loop's bookkeeping, saving and
// resuming (in another process, from the README's agent, and from a run the
// Python client saved), and requests that grow with the run, not its square.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { clone, toBinary } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";

import { ToMessagesRequestSchema, type ToMessagesRequest } from "../src/gen/ptcsidecar/v1/compression_pb.js";
import { Client, Run, RunFailedError, RunFinishedError, SidecarError, Turn, type SavedRun, type Tools } from "../src/index.js";
import { MAX_TURNS, tools as agentTools } from "./agentStep.js";
import { MISSION, ScriptedOpenAI } from "./scriptedLlm.js";
import { repo, serveForThisFile } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));
const reply = (program: string) => `Sure.\n\n\`\`\`clojure\n${program}\n\`\`\``;

const sidecar = serveForThisFile();

for (const protocol of ["replay", "stream"] as const) {
  test(`the run keeps the loop's books (${protocol})`, async () => {
    const calls: number[] = [];
    const double = ({ n }: { n: number }) => {
      calls.push(n);
      return n * 2;
    };
    const run = sidecar.client.run({ mission: "Double things", tools: { double }, data: { start: 5 }, maxTurns: 4, protocol, limits: { maxSteps: 10_000 } });
    assert.deepEqual([run.status, run.done, run.turnNumber, run.memory], ["running", false, 1, null]);
    assert.throws(() => run.result, (err: unknown) => err instanceof SidecarError && /has not finished/.test(err.message));

    const prompt = await run.nextMessages();
    assert.deepEqual(prompt.messages.map((m) => m.role), ["system", "user"]);
    assert.match(String(prompt.messages[1].content), /Double things[\s\S]*Turns left: 4/);
    const one = await run.step(reply("(def x (tool/double {:n data/start})) x"));
    assert.deepEqual([one.number, one.success, one.result, calls], [1, true, 10, [5]]);

    const two = await run.step({ role: "assistant", content: reply("(+ x (:nope x))") }); // fails: memory stays
    assert.deepEqual([two.number, two.success], [2, false]);
    assert.deepEqual(run.memory?.names, ["x"]);

    // *1 is the newest successful result (turn 1's), *2 none yet.
    const three = await run.step(reply("(def y (tool/double {:n *1})) [*1 *2 y]"));
    assert.deepEqual(three.result, [10, null, 20]);
    assert.match(String((await run.nextMessages()).messages[1].content), /FINAL TURN/);
    assert.deepEqual(run.turns.map((t) => t.number), [1, 2, 3]);
    assert.ok(run.turns.every((t) => t.memory === null)); // the run keeps its newest memory only

    const four = await run.step(reply("(return {:x x :y y :last *1})"));
    assert.ok(four.returned && run.status === "returned" && run.done);
    assert.deepEqual(run.result, { x: 10, y: 20, last: [10, null, 20] });
    await assert.rejects(run.step(reply("1")), (err: unknown) => err instanceof RunFinishedError && /run has ended \(returned after 4 turns\)/.test(err.message));
    await assert.rejects(run.nextMessages(), RunFinishedError);
  });
}

test("a run that fails or runs out", async () => {
  const failed = sidecar.client.run({ mission: "m", maxTurns: 3 });
  await failed.step(reply('(fail {:reason "no data"})'));
  assert.equal(failed.status, "failed");
  assert.throws(
    () => failed.result,
    (err: unknown) => err instanceof RunFailedError && err.status === "failed" && /failed on turn 1.*no data/.test(err.message),
  );
  const out = sidecar.client.run({ mission: "m", maxTurns: 2 });
  await out.step(reply("(def a 1)"));
  await out.step("I am not sure what to do."); // no program: a failed turn the LLM reads about
  assert.equal(out.status, "outOfTurns");
  assert.throws(() => out.result, /used its 2 turns without returning; the last one failed \(no_program/);
});

for (const protocol of ["replay", "stream"] as const) {
  test(`a resumed run goes on as if never stopped (${protocol})`, async () => {
    const tools = (): Tools => ({ inc: { fn: ({ n }: { n: number }) => n + 1, signature: "(n :int) -> :int" } });
    const programs = ["(def a (tool/inc {:n 1})) a", "(undefined-fn)", "(def b (tool/inc {:n *1})) [a b]", '(defn twice [v] (* 2 v)) (println "b is" b) (twice b)', "(return (+ *1 (first *2)))"];
    const options = { mission: "Count up", tools: tools(), data: { big: 2n ** 63n - 1n }, maxTurns: 6, protocol };
    const whole = sidecar.client.run(options);
    let resumed = sidecar.client.run({ ...options, tools: tools() });
    for (const program of programs) {
      const saved = JSON.stringify(resumed); // BigInts and all
      assert.equal(JSON.parse(saved).version, 1);
      resumed = sidecar.client.resume(saved, { tools: tools() });
      const [a, b] = [await resumed.nextMessages(), await whole.nextMessages()];
      assert.deepEqual([a.messages, a.stats], [b.messages, b.stats]);
      await whole.step(reply(program));
      await resumed.step(reply(program));
    }
    assert.equal(resumed.status, "returned");
    assert.equal(resumed.result, 8);
    assert.deepEqual(resumed.turns.map(comparable), whole.turns.map(comparable));
    assert.ok(resumed.memory!.equals(whole.memory!));
    assert.deepEqual(resumed.toJSON().previous_results, whole.toJSON().previous_results);
  });
}

test("saved runs are checked", () => {
  const saved = sidecar.client.run({ mission: "m", tools: { a: () => 1, b: () => 2 } }).toJSON();
  assert.throws(() => sidecar.client.resume(saved, { tools: { a: () => 1 } }), /the saved run has tools a, b; missing b/);
  assert.throws(() => sidecar.client.resume({ ...saved, version: 2 }, { tools: { a: () => 1, b: () => 2 } }), /saved run of version 2; this ptc-sidecar reads version 1: upgrade/);
  assert.throws(() => sidecar.client.resume({ ...saved, turns: [{ number: "one" }] }, { tools: { a: () => 1, b: () => 2 } }), /turns\[0\]/);
});

test("a run the Python client saved resumes here, and writes back the same", async () => {
  const saved = JSON.parse(readFileSync(join(repo, "clients/testdata/run-v1.json"), "utf8")) as SavedRun;
  const run = Run.fromJSON(sidecar.client, saved, { tools: { inc: ({ n }: { n: number }) => n + 1 } });
  assert.deepEqual(run.toJSON(), saved);
  assert.equal(run.status, "running");
  assert.equal(run.turnNumber, 4);
  assert.deepEqual(run.turns.map((t) => t.success), [true, false, true]);
  assert.deepEqual(run.memory?.names, ["a", "twice", "big"]);
  assert.equal(run.turns[0].toolCalls[0].durationMs, 20);
  // It goes on: *1 is turn 3's result, big is the int64 maximum, exact.
  const next = await run.step(reply("(return [(first *1) (inc (- big 1))])"));
  assert.deepEqual(next.result, [4, 9223372036854775807n]);
});

test("the README's agent resumes in a new process every turn, with an AbortSignal", async () => {
  const work = mkdtempSync(join(tmpdir(), "ptc-agent-"));
  try {
    const [state, toolLog] = [join(work, "run.json"), join(work, "tools.log")];
    const lines: { turn: number; success: boolean; status: string; result: unknown }[] = [];
    for (let i = 0; i < 8; i++) {
      const out = execFileSync(process.execPath, [join(here, "agentStep.js"), state, sidecar.target, toolLog], { encoding: "utf8", timeout: 60_000 });
      lines.push(JSON.parse(out));
      if (lines.at(-1)!.status !== "running") break;
    }
    assert.deepEqual(
      lines.map((l) => [l.turn, l.success, l.status]),
      [
        [1, true, "running"],
        [2, false, "running"],
        [3, true, "running"],
        [4, true, "returned"],
      ],
    );
    assert.deepEqual(lines.at(-1)!.result, { quarter: "Q3", revenue: 12.5, title: "Q3 report" });
    const ran = readFileSync(toolLog, "utf8").trim().split("\n").map((l) => JSON.parse(l)[0]);
    assert.deepEqual(ran, ["search", "read", "read"]); // each call ran once
    const saved = JSON.parse(readFileSync(state, "utf8")) as SavedRun;
    assert.equal(saved.version, 1);
    assert.ok(saved.turns.every((t) => !("memory" in (t as object))));

    // The same agent without saving: the same turns.
    const llm = new ScriptedOpenAI(MAX_TURNS);
    const run = sidecar.client.run({ mission: MISSION, tools: agentTools(join(work, "again.log")), data: { quarter: "Q3" }, maxTurns: MAX_TURNS });
    while (!run.done) {
      const { messages } = await run.nextMessages();
      const completion = await llm.chat.completions.create({ model: "gpt-4.1", messages });
      await run.step(completion.choices[0].message);
    }
    assert.deepEqual(saved.turns.map((t) => comparable(Turn.fromJSON(t))), run.turns.map(comparable));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a 300-turn run sends requests that grow linearly", async () => {
  const requests: ToMessagesRequest[] = [];
  const capture: Interceptor = (next) => async (req) => {
    if (req.method.name === "ToMessages" && !req.stream) requests.push(clone(ToMessagesRequestSchema, req.message as ToMessagesRequest));
    return next(req);
  };
  const c = new Client(sidecar.target, { interceptors: [capture] });
  try {
    const run = c.run({ mission: "Fill memory", maxTurns: 300 });
    while (!run.done) {
      await run.nextMessages();
      const n = run.turnNumber;
      await run.step(reply(`(def v${n} (vec (range 40))) (println "turn" ${n}) ${n}`));
    }
    assert.equal(run.status, "outOfTurns");
    assert.equal(run.memory?.size, 300);
  } finally {
    c.close();
  }
  assert.equal(requests.length, 300);
  for (const r of requests.slice(2)) {
    // The memory goes once, and once more as the second-to-last turn's.
    assert.deepEqual(
      r.turns.flatMap((t, i) => (t.memory ? [i] : [])),
      [r.turns.length - 2],
    );
    assert.equal(r.memory?.bindings.length, r.turns.length);
  }
  const size = (r: ToMessagesRequest) => toBinary(ToMessagesRequestSchema, r).length;
  const growth = size(requests[299]) / size(requests[149]);
  assert.ok(growth > 1.8 && growth < 2.2, `from 150 to 300 turns the request grew ${growth} times`);
  assert.ok(size(requests[299]) < 1 << 20);
  // With every snapshot (turn k's was the first k bindings) the last request
  // would be over forty times larger.
  const last = requests[299];
  const every = clone(ToMessagesRequestSchema, last);
  every.turns.forEach((t, k) => (t.memory = { ...last.memory!, bindings: last.memory!.bindings.slice(0, k + 1) }));
  assert.ok(size(every) > 40 * size(last));
});

/** A turn's record without its timings, which differ from run to run. */
function comparable(turn: Turn): unknown {
  const data = turn.toJSON() as Record<string, unknown>;
  delete data.duration_ms;
  delete data.memory;
  for (const call of (data.tool_calls as Record<string, unknown>[] | undefined) ?? []) delete call.duration_ms;
  return data;
}
