// A PTC-Lisp shopping agent on the ptc-sidecar npm package.
//
// The loop, on a run object that keeps the turns, memory and *1 *2 *3:
//
//   const run = client.run({ mission, tools, data, maxTurns: 6 });
//   while (!run.done) {
//     const { messages } = await run.nextMessages({ signal }); // [SYSTEM, USER]
//     const reply = llm(messages);                              // here: a scripted fake LLM
//     await run.step(reply, { signal });                        // tools run here
//   }
//
// until a program calls (return ...) or (fail ...), or the turns run out.
//
// Usage: node dist/agent.js [--target ADDRESS] [--protocol replay|stream|both] [--quiet]
// (--target defaults to $PTC_SIDECAR_TARGET, else 127.0.0.1:50051)
//
// It checks what it expects at every step and exits 1 on any surprise, so it
// doubles as an end-to-end test (make test-typescript).
import { isDeepStrictEqual, parseArgs } from "node:util";

import { Client, SidecarError, type Run, type Turn } from "ptc-sidecar";
import { ScriptedLLM, UnexpectedPrompt } from "./fakeLlm.js";
import { Shop } from "./shop.js";

const MISSION = "Find the best-rated headphones within the budget and add one to the cart.";
const MAX_TURNS = 6;
const DATA = { category: "headphones", budget: 100 };

class Surprise extends Error {}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Surprise(message);
}

const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
const indent = (text: string, prefix: string) => text.split("\n").map((l) => prefix + (l ? " " + l : "")).join("\n");

async function runAgent(client: Client, protocol: "replay" | "stream", say: (s: string) => void) {
  const llm = new ScriptedLLM();
  const shop = new Shop();
  const signal = AbortSignal.timeout(60_000); // the whole run
  const run = client.run({ mission: MISSION, tools: shop.tools, data: DATA, maxTurns: MAX_TURNS, protocol });
  while (!run.done) {
    // 1. The prompt: the whole run so far, compressed into one USER message.
    const prompt = await run.nextMessages({ signal });
    say(`\n=== turn ${run.turnNumber} (${protocol}) ===`);
    say(`--- prompt: ${prompt.stats.tokensAfter} tokens; the USER message:`);
    say(indent(String(prompt.messages[1].content), "  |"));

    // 2. The LLM's reply.
    const reply = llm.complete(prompt.messages);

    // 3. The program, evaluated in the sidecar; its tool calls run here. The
    // run records the turn and moves memory and *1 *2 *3 on.
    const turn = await run.step(reply, { signal });
    say("--- program:");
    say(indent(turn.program, "  >"));
    for (const call of turn.toolCalls) {
      say(`--- tool ${call.index}: ${call.name} ${show(call.args)} -> ${call.error ? "error: " + call.error : show(call.result).slice(0, 100)}`);
    }
    say(turn.success ? `--- result: ${show(turn.result)}` : `--- FAILED (${turn.error?.type}): ${turn.error?.message}`);
  }
  return { run, shop };
}

function checkRun(run: Run, shop: Shop): void {
  const turns = run.turns;
  check(turns.length === 4, `the run took ${turns.length} turns, want 4`);
  check(show(turns.map((t) => t.success)) === "[true,false,true,true]", `successes ${show(turns.map((t) => t.success))}`);
  check(turns[1].error?.type === "tool_error", `turn 2 error ${show(turns[1].error)}`);
  check(turns[1].result === null, "a failed turn has no result");
  check(run.status === "returned", `the run ended ${run.status}`);
  check(show(run.memory?.names) === '["candidates","avg-rating","best"]', `memory after the run: ${show(run.memory?.names)}`);
  check(isDeepStrictEqual(run.result, { "product-id": "p1", rating: 4.5, "cart-size": 1 }), `returned ${show(run.result)}`);
  // Tools ran once per call made, never again on replay.
  check(isDeepStrictEqual(shop.runs, { "search-products": 1, "get-reviews": 4, "add-to-cart": 1 }), `tool runs ${show(shop.runs)}`);
  check(isDeepStrictEqual(shop.cart, [["p1", 1]]), `cart ${show(shop.cart)}`);
}

/** A turn's record without its timings, which differ from run to run. */
function comparable(turn: Turn): unknown {
  const data = turn.toJSON() as { duration_ms?: string; tool_calls?: { duration_ms?: string }[] };
  delete data.duration_ms;
  for (const call of data.tool_calls ?? []) delete call.duration_ms;
  return data;
}

const usage = `usage: node dist/agent.js [--target ADDRESS] [--protocol replay|stream|both] [--quiet]

A PTC-Lisp shopping agent on the ptc-sidecar npm package, with a scripted LLM.

  --target ADDRESS   the sidecar's address (default $PTC_SIDECAR_TARGET, else 127.0.0.1:50051)
  --protocol NAME    the tool protocol: replay (unary EvalTurn), stream (EvalTurnStream),
                     or both in turn (default)
  --quiet            print only the outcome`;

/** The command line's options, or the exit code when there is nothing to run. */
function options(): { target: string; protocols: readonly ("replay" | "stream")[]; quiet: boolean } | number {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        target: { type: "string", default: process.env.PTC_SIDECAR_TARGET || "127.0.0.1:50051" },
        protocol: { type: "string", default: "both" },
        quiet: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const byName: Record<string, readonly ("replay" | "stream")[] | undefined> = { both: ["replay", "stream"], replay: ["replay"], stream: ["stream"] };
  const protocols = byName[values.protocol!];
  if (!protocols) {
    console.error(`--protocol ${values.protocol}: want replay, stream or both\n\n${usage}`);
    return 2;
  }
  return { target: values.target!, protocols, quiet: values.quiet! };
}

async function main(): Promise<number> {
  const values = options();
  if (typeof values === "number") return values;
  const say = values.quiet ? () => {} : (s: string) => console.log(s);
  const protocols = values.protocols;
  const client = new Client(values.target);
  try {
    const runs: Turn[][] = [];
    for (const protocol of protocols) {
      const { run, shop } = await runAgent(client, protocol, say);
      checkRun(run, shop);
      runs.push([...run.turns]);
      console.log(`${protocol}: ok, ${run.turns.length} turns, returned ${show(run.result)}`);
    }
    if (runs.length === 2) {
      const same = runs[0].map((t, i) => isDeepStrictEqual(comparable(t), comparable(runs[1][i])));
      check(same.every(Boolean), `the protocols gave different turns: equal per turn ${show(same)}`);
      console.log("replay and stream gave the same turns");
    }
    return 0;
  } catch (err) {
    if (err instanceof Surprise || err instanceof UnexpectedPrompt || err instanceof SidecarError) {
      console.error(`FAIL: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    client.close();
  }
}

process.exitCode = await main();
