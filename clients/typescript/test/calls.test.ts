// How calls behave around the request: timeouts that cover the tools, an
// AbortSignal, retries through a restart or a busy sidecar, errors that name
// what to fix, closed clients. Against the real server.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";

import { SidecarService } from "../src/gen/ptcsidecar/v1/service_pb.js";
import {
  CanceledError,
  Client,
  ClientClosedError,
  DeadlineExceededError,
  InvalidArgumentError,
  ResourceExhaustedError,
  SidecarError,
  UnavailableError,
  VERSION,
  type ToolContext,
} from "../src/index.js";
import { Server, repo } from "./server.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The server's "finished call" log entry of the first call of method that
 * did not end OK, among the lines from `from` on, waited for: the server may
 * log a call after the client has seen it end. */
async function failedCall(server: Server, method: string, from: number): Promise<Record<string, string>> {
  for (;;) {
    for (const line of server.log.slice(from)) {
      const entry = JSON.parse(line);
      if (entry.msg === "finished call" && entry["grpc.method"] === method && entry["grpc.code"] !== "OK") return entry;
    }
    await sleep(20);
  }
}

const reply = (program: string) => `Here it is:\n\`\`\`clojure\n${program}\n\`\`\``;

let server: Server;
let client: Client;

before(async () => {
  server = await Server.start();
  client = new Client(server.target);
});

after(async () => {
  client.close();
  await server.stop();
});

/** A tool that waits `seconds`, or until its call's signal fires. */
const slow = async ({ seconds }: { seconds: number }, { signal }: ToolContext) => {
  await sleep(seconds * 1000, undefined, { signal });
  return seconds;
};

for (const protocol of ["replay", "stream"] as const) {
  describe(`over ${protocol}`, () => {
    test("the timeout covers the tools' time", async () => {
      const timed = new Client(server.target, { timeoutMs: 1000 });
      try {
        const turn = await timed.evalTurn({ program: "(tool/slow {:seconds 0.5})", tools: { slow }, protocol });
        assert.equal(turn.result, 0.5);
        await assert.rejects(timed.evalTurn({ program: "(tool/slow {:seconds 1.5})", tools: { slow }, protocol }), (err: unknown) => {
          assert.ok(err instanceof DeadlineExceededError, String(err));
          assert.equal(err.code, Code.DeadlineExceeded);
          assert.match(err.message, /tools' time included, did not finish within the timeout of 1000 ms/);
          return true;
        });
        // A call's own timeoutMs replaces the client's; null is no deadline.
        const long = await timed.evalTurn({ program: "(tool/slow {:seconds 1.5})", tools: { slow }, protocol, timeoutMs: null });
        assert.equal(long.result, 1.5);
      } finally {
        timed.close();
      }
    });

    test("an AbortSignal ends the call, the tool's too", async () => {
      const controller = new AbortController();
      let toolSignal: AbortSignal | undefined;
      const logFrom = server.log.length;
      await assert.rejects(
        client.evalTurn({
          program: "(tool/wait {})",
          tools: {
            wait: async (_: object, { signal }: ToolContext) => {
              toolSignal = signal;
              // The user leaves while the tool runs, however long the call
              // took to get here on a busy machine.
              setTimeout(() => controller.abort(new Error("the user left")), 50);
              await sleep(10_000, undefined, { signal });
            },
          },
          protocol,
          signal: controller.signal,
        }),
        (err: unknown) => {
          assert.ok(err instanceof CanceledError, String(err));
          assert.equal(err.code, Code.Canceled);
          assert.equal((err.cause as Error).message, "the user left");
          return true;
        },
      );
      assert.equal(toolSignal?.aborted, true);
      if (protocol === "stream") {
        // The server saw the call cancelled, not refused as a stream that
        // closed before the tool's answer. (Over replay the server had
        // answered before the tool ran.)
        const finished = await failedCall(server, "EvalTurnStream", logFrom);
        assert.equal(finished["grpc.code"], "Canceled", JSON.stringify(finished));
      }
      // An aborted signal refuses the call at once.
      await assert.rejects(client.listStrategies({ signal: AbortSignal.abort() }), CanceledError);
    });

    test("a sidecar restarted mid-run is retried", async () => {
      const local = await Server.start();
      const logged: string[] = [];
      const c = new Client(local.target, { logger: { info: (m) => logged.push(m) } });
      try {
        const run = c.run({ mission: "Count", maxTurns: 1000, protocol });
        await run.step(reply("(def n 0)"));
        // A rolling update: the sidecar drains, exits and comes back on the
        // same address while the agent goes on stepping.
        let restarting = true;
        const restart = (async () => {
          await local.stop();
          await sleep(200);
          await local.start();
          restarting = false;
        })();
        while (restarting) {
          await run.nextMessages();
          assert.ok((await run.step(reply("(def n (inc n))"))).success);
        }
        await restart;
        await run.nextMessages();
        assert.equal((await run.step(reply("(def n (inc n)) n"))).result, run.turnNumber - 2);
        // A connection cut mid-stream reaches grpc-js as Unavailable or, when
        // the reset lands on an open stream, Internal; both are retried.
        assert.ok(logged.some((m) => /(Unavailable|Internal); retrying in/.test(m)), logged.join("\n"));

        // A crash during an evaluation, while a tool runs.
        let runs = 0;
        const turn = await c.evalTurn({
          program: "(tool/crash {})",
          protocol,
          tools: {
            crash: async () => {
              runs++;
              await local.stop("SIGKILL");
              setTimeout(() => void local.start(), 200);
              return 40;
            },
          },
        });
        assert.equal(turn.result, 40);
        assert.equal(runs, 1); // the answer was kept, not asked for again
      } finally {
        c.close();
        await local.stop();
      }
    });
  });
}

test("nothing listening is Unavailable, with advice", async () => {
  const port = await freePort();
  const c = new Client(`127.0.0.1:${port}`, { maxRetries: 1 });
  try {
    await assert.rejects(c.evalTurn({ program: "(+ 1 2)" }), (err: unknown) => {
      assert.ok(err instanceof UnavailableError, String(err));
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}, 2 attempts .*ptc-sidecar serve`));
      return true;
    });
  } finally {
    c.close();
  }
});

test("a busy sidecar is retried with backoff; a request over the size limit is not", async () => {
  const upstream = createClient(SidecarService, createGrpcTransport({ baseUrl: `http://${server.target}` }));
  let calls = 0;
  let busy = 2;
  // A sidecar in front of the real one that is busy for its first calls, as
  // the real one is when every evaluation slot is taken.
  const proxy = http2.createServer(
    connectNodeAdapter({
      routes: (router) =>
        router.service(SidecarService, {
          async evalTurn(request) {
            calls++;
            if (calls <= busy) throw new ConnectError("the server is running its most evaluations at once", Code.ResourceExhausted);
            return upstream.evalTurn(request);
          },
        }),
    }),
  );
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  const address = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
  try {
    const logged: string[] = [];
    const c = new Client(address, { logger: { info: (m) => logged.push(m) } });
    const started = performance.now();
    assert.equal((await c.evalTurn({ program: "(* 6 7)" })).result, 42);
    assert.ok(performance.now() - started >= 0.75 * (250 + 500)); // two backoffs, each at least 75% of its step
    assert.equal(calls, 3);
    assert.equal(logged.filter((m) => /ResourceExhausted; retrying in/.test(m)).length, 2);
    c.close();

    [calls, busy] = [0, 10];
    const impatient = new Client(address, { maxRetries: 2 });
    await assert.rejects(impatient.evalTurn({ program: "(* 6 7)" }), /still busy after 3 attempts.*maxRetries/);
    assert.equal(calls, 3);
    impatient.close();
  } finally {
    proxy.close();
  }

  const small = await Server.start("--max-recv-bytes", "64KiB");
  const logged: string[] = [];
  const c = new Client(small.target, { logger: { info: (m) => logged.push(m) } });
  try {
    await assert.rejects(c.evalTurn({ program: "(count data/blob)", data: { blob: "x".repeat(100_000) } }), (err: unknown) => {
      assert.ok(err instanceof ResourceExhaustedError, String(err));
      assert.match(err.message, /larger than the sidecar accepts \(its --max-recv-bytes\)/);
      return true;
    });
    assert.deepEqual(logged, []); // a retry is logged before its backoff
  } finally {
    c.close();
    await small.stop();
  }
});

test("errors name the camelCase options", async () => {
  await assert.rejects(client.evalTurn({ program: "(+ 1 2)", limits: { maxStep: 10 } as never }), (err: unknown) => {
    assert.ok(err instanceof TypeError);
    assert.match(err.message, /unknown limit "maxStep" \(did you mean maxSteps\?\); the limits are maxSteps, maxAllocBytes, .*toolTimeoutMs/);
    return true;
  });
  await assert.rejects(client.evalTurn({ program: "1", rawRespons: "x" } as never), /unknown option "rawRespons" \(did you mean rawResponse\?\)/);
  await assert.rejects(client.toMessages([], { maxTurnz: 3 } as never), /toMessages: unknown option "maxTurnz" \(did you mean maxTurns\?\)/);
  assert.throws(() => client.run({ mision: "m" } as never), /run: unknown option "mision" \(did you mean mission\?\)/);
  // The server names its field; the error names the option too.
  await assert.rejects(client.toMessages([], { maxTurns: 0 }), (err: unknown) => {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    assert.equal(err.field, "options.max_turns");
    assert.equal(err.violations[0].option, "maxTurns");
    assert.match(err.message, /options\.max_turns is the option maxTurns/);
    return true;
  });
  await assert.rejects(client.evalTurn({ program: "1", limits: { maxSteps: -1 } }), (err: unknown) => {
    assert.ok(err instanceof SidecarError);
    assert.match(err.message, /limits\.max_steps is the option limits\.maxSteps/);
    return true;
  });
});

test("a closed client refuses calls", async () => {
  const c = new Client(server.target);
  c.close();
  await assert.rejects(c.evalTurn({ program: "(+ 1 2)" }), (err: unknown) => err instanceof ClientClosedError && /closed; create a new one/.test(err.message));
  await assert.rejects(c.listStrategies(), ClientClosedError);
  assert.throws(() => new Client(server.target, { timeout: 5 } as never), /Client: unknown option "timeout" \(did you mean timeoutMs\?\)/);
});

test("VERSION is the package's", () => {
  const pkg = JSON.parse(readFileSync(join(repo, "clients/typescript/package.json"), "utf8"));
  assert.equal(VERSION, pkg.version);
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, "127.0.0.1", done));
  const port = (s.address() as { port: number }).port;
  await new Promise((done) => s.close(done));
  return port;
}
