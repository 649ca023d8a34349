// Requests built from the caller's options, checked by their camelCase names,
// and tools run for a call.
import { create, ScalarType } from "@bufbuild/protobuf";

import type { History } from "./chat.js";
import { OptionsSchema, ToMessagesRequestSchema, type Options, type ToMessagesRequest } from "./gen/ptcsidecar/v1/compression_pb.js";
import { LimitsSchema, ToolResultSchema, type Limits as LimitsProto, type ToolResult } from "./gen/ptcsidecar/v1/eval_pb.js";
import type { Memory as MemoryProto, ToolCall as ToolCallProto } from "./gen/ptcsidecar/v1/turn_pb.js";
import { ToolSpecSchema, ValueSchema, type ToolSpec, type Value } from "./gen/ptcsidecar/v1/values_pb.js";
import { Memory, Turn, fromWire } from "./models.js";
import { EDN, stringifyJSON } from "./values.js";

/** What a tool gets besides its arguments: the call's signal, which fires
 * when the call's timeoutMs runs out or its own signal fires (pass it on to
 * fetch and the like), and which call it answers. */
export interface ToolContext {
  signal: AbortSignal;
  call: { index: number; name: string };
}

/** A tool: called with the program's argument map (`(tool/search {:query
 * "x"})` calls it with `{ query: "x" }`), sync or async. Declare the
 * parameter's type as the tool expects it; the package cannot check it. What
 * it returns (or resolves to) goes back to the program as JSON; what it throws
 * is a tool error the program sees. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ToolFunction = (args: any, context: ToolContext) => unknown;

/** A tool with the signature and description the LLM is shown. */
export interface Tool {
  fn: ToolFunction;
  signature?: string;
  description?: string;
}

export type Tools = Record<string, ToolFunction | Tool>;

/** The sandbox limits a call may lower, by their camelCase names. */
export type Limits = { [K in keyof Omit<LimitsProto, "$typeName" | "$unknown">]?: number };

/** The Options fields toMessages and run take by name (camelCase, as
 * protobuf-es names them), besides tools and data. */
export type OptionFields = Omit<Partial<Options>, "$typeName" | "$unknown" | "tools" | "data">;

const LIMIT_NAMES = LimitsSchema.fields.map((f) => f.localName);
export const OPTION_NAMES = OptionsSchema.fields.map((f) => f.localName);

/** Throws TypeError when given holds a name that is not in known, with the
 * closest known name and the whole list. */
export function checkNames(kind: string, given: object, known: readonly string[], where = ""): void {
  const bad = Object.keys(given).filter((k) => !known.includes(k));
  if (bad.length === 0) return;
  const hints = bad.map((n) => {
    const close = closest(n, known);
    return JSON.stringify(n) + (close ? ` (did you mean ${close}?)` : "");
  });
  throw new TypeError(`${where}unknown ${kind}${bad.length > 1 ? "s" : ""} ${hints.join(", ")}; the ${kind}s are ${known.join(", ")}`);
}

function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The wire Limits of a limits object; TypeError naming every valid limit
 * for a name that is not one. */
export function limitsMessage(limits: Limits | undefined): LimitsProto | undefined {
  if (limits === undefined) return undefined;
  if (typeof limits !== "object" || limits === null) throw new TypeError("limits: want an object of limits by name");
  checkNames("limit", limits, LIMIT_NAMES, "limits: ");
  const out = create(LimitsSchema) as unknown as Record<string, number | bigint>;
  for (const f of LimitsSchema.fields) {
    const v = (limits as Record<string, unknown>)[f.localName];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`limits.${f.localName} must be a whole number, got ${String(v)}`);
    out[f.localName] = f.fieldKind === "scalar" && f.scalar === ScalarType.INT64 ? BigInt(v) : v;
  }
  return out as unknown as LimitsProto;
}

/** The ToolSpecs of a tools object (or of bare names). */
export function toolSpecs(tools: Tools | readonly string[] | undefined): ToolSpec[] {
  if (tools === undefined) return [];
  if (Array.isArray(tools)) return tools.map((name) => create(ToolSpecSchema, { name }));
  if (typeof tools !== "object" || tools === null) throw new TypeError("tools: want an object of tools by name (or an array of names)");
  return Object.entries(tools as Tools).map(([name, t]) => {
    if (typeof t === "function") return create(ToolSpecSchema, { name });
    if (typeof t !== "object" || t === null || typeof t.fn !== "function") {
      throw new TypeError(`tools[${JSON.stringify(name)}]: want a function or { fn, signature, description }`);
    }
    return create(ToolSpecSchema, { name, signature: t.signature ?? "", description: t.description ?? "" });
  });
}

/** A native value as a wire Value: EDN objects as their text, anything else
 * as JSON. */
export function toWire(v: unknown): Value {
  return v instanceof EDN ? create(ValueSchema, { edn: v.text }) : create(ValueSchema, { json: stringifyJSON(v) });
}

/** The wire Options of option fields, tools and data. */
export function optionsMessage(fields: OptionFields, tools: Tools | readonly string[] | undefined, data: unknown): Options {
  return create(OptionsSchema, {
    ...(fields as object),
    tools: toolSpecs(tools),
    data: data === undefined ? undefined : toWire(data),
  });
}

class Aborted extends Error {}

/** Runs the tool a call names and returns the answer. A missing tool, a
 * throw, or a result JSON cannot carry is a tool error the program sees. When
 * the signal fires first, the call is over: this throws. */
export async function runTool(tools: Tools, call: ToolCallProto, signal: AbortSignal): Promise<ToolResult> {
  const answer = create(ToolResultSchema, { index: call.index, name: call.name, args: call.args });
  const started = performance.now();
  try {
    const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
    if (!tool) throw new Error(`no tool named ${JSON.stringify(call.name)} on the caller's side`);
    const args = fromWire(call.args);
    if (args instanceof EDN) throw new TypeError(`the arguments ${args.text} have no JSON form`);
    const fn = typeof tool === "function" ? tool : tool.fn;
    const argMap = args === null ? {} : typeof args === "object" && !Array.isArray(args) ? args : { args };
    const context: ToolContext = { signal, call: { index: call.index, name: call.name } };
    answer.result = toWire(await untilAborted(Promise.resolve().then(() => fn(argMap, context)), signal));
  } catch (err) {
    if (err instanceof Aborted) throw signal.reason;
    answer.result = undefined;
    answer.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  answer.durationMs = BigInt(Math.round(performance.now() - started));
  return answer;
}

/** p, or a rejection with Aborted as soon as signal fires. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** The wire Memory of what evalTurn and toMessages accept as memory: a
 * Memory, a Turn (its memory) or nothing. */
export function memoryProto(memory: unknown, where: string): MemoryProto | undefined {
  if (memory === undefined || memory === null) return undefined;
  if (memory instanceof Memory) return memory.proto;
  if (memory instanceof Turn) {
    if (memory.memory === null) throw new TypeError(`${where}: memory: this Turn carries no memory (a Run keeps only its newest memory): pass run.memory, or the Turn evalTurn returned`);
    return memory.memory.proto;
  }
  throw new TypeError(`${where}: memory must be a Memory (turn.memory) or a Turn, got ${typeof memory === "object" ? (memory.constructor?.name ?? "an object") : typeof memory}`);
}

/** A ToMessagesRequest's turns and memory. Past turns go without
 * their memory snapshots, which no strategy reads; only the second-to-last
 * carries its own (prior, when given: the memory the last turn started
 * from), from which the sidecar rebuilds the previous call's prompt to find
 * the stable prefix. The request grows with the run, not with its square. */
export function toMessagesRequest(turns: readonly Turn[], memory: Memory | null, prior: Memory | null, history: History): ToMessagesRequest {
  if (!Array.isArray(turns)) throw new TypeError("toMessages: turns must be an array of Turns");
  return create(ToMessagesRequestSchema, {
    turns: turns.map((t, i) => {
      if (!(t instanceof Turn)) throw new TypeError(`toMessages: turns[${i}] is not a Turn`);
      return i === turns.length - 2 ? t.toProto(true, prior ?? t.memory) : t.wire;
    }),
    memory: memory === null ? undefined : memoryProto(memory, "toMessages"),
    history: history.wire,
  });
}
