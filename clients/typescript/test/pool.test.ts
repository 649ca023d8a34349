// A pool of three real servers: 20 concurrent agent runs over all three, one
// replica killed mid-run (SIGKILL, as a crash or a lost node), and every run
// ends as it does on one server: the same turns, the same prompts, each tool
// run once per call.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Client, type Balancing, type Tools } from "../src/index.js";
import { Server } from "./server.js";

const RUNS = 20;
// Only guards a hang: on a busy machine a call takes what it takes.
const HANG_MS = 600_000;

const SCRIPT = [
  '(def hits (tool/search {:query data/query}))\n(println "found" (count hits))\n(count hits)',
  "(def doc (tool/read {:id (:id (first hits))}))\n(:revenue doc)",
  // The replica is killed while every run waits in this turn's tool.
  '(def total (tool/settle {:amount *1 :run data/run}))\n(println "settled" total)\ntotal',
  "(def doubled (* 2 total))\n(+ doubled (count hits))",
  "(return {:run data/run :total total :doubled doubled :last *1})",
];

const reply = (program: string) => `Turn.\n\n\`\`\`clojure\n${program}\n\`\`\``;
const protocolOf = (i: number) => (i % 2 ? "stream" : "replay");

/** Holds every run in turn 3's tool until all have arrived and the replica
 * is gone, so that the kill comes mid-run for all of them. */
class Gate {
  private waiting = 0;
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  private allArrived!: () => void;
  readonly ready = new Promise<void>((resolve) => (this.allArrived = resolve));

  async arrive(): Promise<void> {
    if (++this.waiting === RUNS) this.allArrived();
    await this.opened;
  }

  open(): void {
    this.release();
  }
}

function agentTools(i: number, calls: unknown[][], gate: Gate | undefined): Tools {
  return {
    search: {
      fn: ({ query }: { query: string }) => {
        calls.push(["search", query]);
        return Array.from({ length: 1 + (i % 4) }, (_, k) => ({ id: `doc-${i}-${k}`, title: `${query} ${k}` }));
      },
      signature: "(query :string) -> [{id :string, title :string}]",
    },
    read: {
      fn: ({ id }: { id: string }) => {
        calls.push(["read", id]);
        return { title: id, revenue: 10.5 + i };
      },
      signature: "(id :string) -> {title :string, revenue :float}",
    },
    settle: {
      fn: async ({ amount, run }: { amount: number; run: number }) => {
        calls.push(["settle", amount, run]);
        await gate?.arrive();
        return amount * 3 + run;
      },
      signature: "(amount :float, run :int) -> :float",
    },
  };
}

/** Runs agent i to its end; resolves to what a caller sees of it. */
async function drive(client: Client, i: number, gate: Gate | undefined) {
  const calls: unknown[][] = [];
  const run = client.run({ mission: `Settle account ${i}`, tools: agentTools(i, calls, gate), data: { query: `account ${i}`, run: i }, maxTurns: SCRIPT.length, protocol: protocolOf(i) });
  const prompts = [];
  const turns = [];
  for (const program of SCRIPT) {
    prompts.push((await run.nextMessages({ timeoutMs: HANG_MS })).messages);
    const t = await run.step(reply(program), { timeoutMs: HANG_MS });
    turns.push([t.number, t.success, t.result, t.prints, t.error, t.toolCalls.map((c) => [c.name, c.args, c.result, c.error])]);
  }
  return { status: run.status, result: run.result, prompts, turns, memory: run.memory?.names, calls };
}

/** A counter of the server's own metrics, summed over its series (of method
 * alone when given). */
async function counted(server: Server, name: string, method = ""): Promise<number> {
  const text = await (await fetch(`http://${server.metrics}/metrics`)).text();
  const m = method || '[^"]*';
  let sum = 0;
  for (const found of text.matchAll(new RegExp(`^${name}\\{[^}]*grpc_method="${m}"[^}]*\\} (\\S+)$`, "gm"))) sum += Number(found[1]);
  return sum;
}

async function openStreams(server: Server): Promise<number> {
  return (await counted(server, "grpc_server_started_total", "EvalTurnStream")) - (await counted(server, "grpc_server_handled_total", "EvalTurnStream"));
}

for (const balancing of ["byRun", "roundRobin"] as Balancing[]) {
  test(`20 runs survive losing one of three replicas (${balancing})`, { timeout: HANG_MS }, async () => {
    const replicas = await Promise.all([0, 1, 2].map(() => Server.start("--metrics-listen", "127.0.0.1:0")));
    try {
      // The reference: the same runs on one server.
      const one = new Client(replicas[0].target);
      const expected = await Promise.all(Array.from({ length: RUNS }, (_, i) => drive(one, i, undefined)));
      one.close();
      assert.ok(expected.every((r) => r.status === "returned"));

      const gate = new Gate();
      const logged: string[] = [];
      const pool = new Client(
        replicas.map((r) => r.target),
        { balancing, logger: { info: (m) => logged.push(m) } },
      );
      try {
        const runs = Promise.allSettled(Array.from({ length: RUNS }, (_, i) => drive(pool, i, gate)));
        let victim: Server;
        try {
          await Promise.race([gate.ready, runs.then(() => assert.fail("the runs ended before the gate"))]);
          // The replica with the most streams waiting on a tool, which the
          // kill breaks (half the runs stream).
          const streams = await Promise.all(replicas.map(openStreams));
          assert.equal(streams.reduce((a, b) => a + b), RUNS / 2, String(streams));
          victim = replicas[streams.indexOf(Math.max(...streams))];
          await victim.stop("SIGKILL");
        } finally {
          gate.open(); // also when the test failed: the runs end
        }
        const got = await runs;
        for (const [i, r] of got.entries()) {
          if (r.status === "rejected") throw new Error(`run ${i} (${protocolOf(i)}) failed`, { cause: r.reason });
          assert.deepEqual(r.value, expected[i], `run ${i} (${protocolOf(i)}) differs from the run on one server`);
          assert.equal(r.value.calls.length, 3); // each tool ran once: answers given before the loss were kept
        }
        // The broken streams went on by replay on the other replicas.
        assert.ok(logged.some((m) => /^EvalTurn to .*: (Unavailable|Canceled); retrying in/.test(m)), logged.join("\n"));

        // A new run's calls: on one replica when kept there, else on both left.
        const alive = replicas.filter((r) => r !== victim);
        const before = await Promise.all(alive.map((r) => counted(r, "grpc_server_handled_total")));
        await drive(pool, 0, undefined);
        const served = await Promise.all(alive.map(async (r, k) => (await counted(r, "grpc_server_handled_total")) - before[k]));
        assert.ok(served.reduce((a, b) => a + b) >= 2 * SCRIPT.length, String(served));
        assert.equal(served.filter((n) => n === 0).length === 1, balancing === "byRun", String(served));
      } finally {
        pool.close();
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });
}

test("a pool's target is checked", () => {
  assert.throws(() => new Client([]), /non-empty list/);
  assert.throws(() => new Client("dns:///no-port"), /want dns:\/\/\/name:port/);
  assert.throws(() => new Client("127.0.0.1:1", { balancing: "sticky" as Balancing }), /balancing must be "byRun" or "roundRobin"/);
  const c = new Client(["127.0.0.1:1", "127.0.0.1:2"]);
  assert.equal(c.target, "127.0.0.1:1,127.0.0.1:2");
  c.close();
});

test("a dns:/// name is a target", { timeout: HANG_MS }, async () => {
  const server = await Server.start();
  try {
    const port = server.target.split(":").at(-1);
    for (const balancing of ["byRun", "roundRobin"] as Balancing[]) {
      const client = new Client(`dns:///localhost:${port}`, { balancing });
      try {
        const run = client.run({ mission: "Add", maxTurns: 2 });
        await run.nextMessages();
        assert.equal((await run.step(reply("(return (+ 1 2))"))).result, 3);
      } finally {
        client.close();
      }
    }
  } finally {
    await server.stop();
  }
});
