// One turn of an agent in a process of its own, written as the package's
// README says: async tools, an AbortSignal on every call, OpenAI-format
// messages, the run saved to JSON after the turn and resumed from it by the
// next process.
//
//   node dist/test/agentStep.js STATE_FILE TARGET TOOL_LOG
//
// prints the turn as one JSON line. The tools append each call to TOOL_LOG,
// so that the test can count how often each really ran.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { Client, type Tools, type ToolContext } from "../src/index.js";
import { MISSION, ScriptedOpenAI } from "./scriptedLlm.js";

export const MAX_TURNS = 6;

export function tools(toolLog: string): Tools {
  const logged = (name: string, args: object) => appendFileSync(toolLog, JSON.stringify([name, args]) + "\n");
  return {
    search: {
      fn: async ({ query }: { query: string }, { signal }: ToolContext) => {
        logged("search", { query });
        await sleep(10, undefined, { signal });
        return [{ id: "q3-report", title: "Q3 report" }];
      },
      signature: "(query :string) -> [{id :string, title :string}]",
      description: "Reports whose title matches the query",
    },
    read: {
      fn: (args: { id?: string }) => {
        logged("read", args);
        if (!("id" in args)) throw new Error(`read needs :id (got ${Object.keys(args).map((k) => ":" + k).join(", ")})`);
        return { title: "Q3 report", revenue: 12.5 };
      },
      signature: "(id :string) -> {title :string, revenue :float}",
    },
  };
}

async function main(state: string, target: string, toolLog: string): Promise<void> {
  const llm = new ScriptedOpenAI(MAX_TURNS);
  const signal = AbortSignal.timeout(30_000); // the whole turn, LLM included
  const sidecar = new Client(target);
  try {
    const run = existsSync(state)
      ? sidecar.resume(readFileSync(state, "utf8"), { tools: tools(toolLog) })
      : sidecar.run({ mission: MISSION, tools: tools(toolLog), data: { quarter: "Q3" }, maxTurns: MAX_TURNS });
    const { messages } = await run.nextMessages({ signal });
    const completion = await llm.chat.completions.create({ model: "gpt-4.1", messages }, { signal });
    const turn = await run.step(completion.choices[0].message, { signal });
    writeFileSync(state, JSON.stringify(run));
    console.log(JSON.stringify({ turn: turn.number, success: turn.success, status: run.status, result: run.status === "returned" ? run.result : null }));
  } finally {
    sidecar.close();
  }
}

if (process.argv[1]?.endsWith("agentStep.js")) {
  const [state, target, toolLog] = process.argv.slice(2);
  await main(state, target, toolLog);
}
