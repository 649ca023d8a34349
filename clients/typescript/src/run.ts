// Run: an agent's loop state in one object that can be saved.
//
// The sidecar keeps nothing between calls, so a run's state is all on the
// caller's side: the options it was started with, its turns, the memory its
// programs built, and the results *1, *2 and *3 read. A run holds them,
// updates them with each step, and is plain JSON (toJSON, so
// JSON.stringify(run) works) that Run.fromJSON reads back, in this process or
// another, or in the Python client.
import { randomUUID } from "node:crypto";

import { create, type JsonValue } from "@bufbuild/protobuf";

import { History, type Reply } from "./chat.js";
import { noCall, programCall, type ToolCallReply } from "./toolcall.js";
import type { CallOptions, Client, Messages } from "./client.js";
import { RunFailedError, RunFinishedError, SidecarError } from "./errors.js";
import { OptionsSchema, type Options } from "./gen/ptcsidecar/v1/compression_pb.js";
import { EvalTurnRequestSchema, LimitsSchema, type Limits as LimitsProto } from "./gen/ptcsidecar/v1/eval_pb.js";
import { MemorySchema, TurnSchema } from "./gen/ptcsidecar/v1/turn_pb.js";
import { ValueSchema, type Value } from "./gen/ptcsidecar/v1/values_pb.js";
import { Memory, Turn, fromPlain, toPlain } from "./models.js";
import {
  OPTION_NAMES,
  checkNames,
  limitsMessage,
  optionsMessage,
  toMessagesRequest,
  toolSpecs,
  type Limits,
  type OptionFields,
  type Tools,
} from "./requests.js";
import { checkSummariser, summaryOf, summaryProto, type Summariser, type Summary } from "./summary.js";
import type { Native } from "./values.js";
import { SummarySchema } from "./gen/ptcsidecar/v1/compression_pb.js";

/** The version of the saved form; fromJSON refuses others. */
export const RUN_VERSION = 1;
// *1, *2 and *3.
const PREVIOUS = 3;

/** A new run's options: the Options fields by name (systemPrompt, signature,
 * prompt, ...), and the run's own. */
export interface RunOptions extends Omit<OptionFields, "turnsLeft" | "maxTurns"> {
  mission?: string;
  tools?: Tools;
  /** The input the programs read as data/..., an object. */
  data?: unknown;
  /** Lower sandbox budgets for every step, by name (maxSteps, timeoutMs, ...). */
  limits?: Limits;
  strategy?: string;
  /** The run's turn budget; default 5. */
  maxTurns?: number;
  /** "replay" (the default) or "stream". */
  protocol?: "replay" | "stream";
  /** Writes the summaries strategy summarize-turns (the run's strategy
   * then) asks for, from the summary request's OpenAI messages. */
  summariser?: Summariser;
}

const RUN_OPTIONS = [...OPTION_NAMES.filter((n) => n !== "turnsLeft"), "limits", "protocol", "summariser"];

/** The strategy a run with a summariser compresses with. */
const SUMMARIZE_TURNS = "summarize-turns";

function summarisingStrategy(strategy: string | undefined): string {
  if (strategy !== undefined && strategy !== "" && strategy !== SUMMARIZE_TURNS) {
    throw new TypeError(`run: summariser: a run summarises with strategy "${SUMMARIZE_TURNS}", not ${JSON.stringify(strategy)}; leave strategy unset`);
  }
  return SUMMARIZE_TURNS;
}

/** "running", "returned" (a program called return), "failed" (one called
 * fail) or "outOfTurns" (maxTurns used without either). */
export type RunStatus = "running" | "returned" | "failed" | "outOfTurns";

/** A run as plain JSON: the same form the Python client writes. */
export interface SavedRun {
  version: number;
  protocol: "replay" | "stream";
  options: JsonValue;
  limits?: JsonValue;
  turns: JsonValue[];
  memory?: JsonValue;
  prior_memory?: JsonValue;
  previous_results: JsonValue[];
  summary?: JsonValue;
}

/**
 * An agent run: the loop in one object.
 *
 * ```ts
 * const run = client.run({ mission, tools, data, maxTurns: 6 });
 * while (!run.done) {
 *   const { messages } = await run.nextMessages({ signal });  // OpenAI messages
 *   await run.step(await myLLM(messages), { signal });          // a string, or the SDK's message
 *   await writeFile("run.json", JSON.stringify(run));           // all the state there is
 * }
 * run.result;                                                    // or RunFailedError
 * ```
 *
 * step evaluates the reply's program with the run's tools, data, limits and
 * memory, records the turn, and moves memory, the turn number and *1 *2 *3
 * (the last three successful results, newest first) on. A run ends when a
 * program calls return or fail, or after maxTurns turns.
 */
export class Run {
  private readonly client: Client;
  /** The run object's id, by which a client balancing "byRun" keeps its
   * calls on one replica of a pool. Not saved: a resumed run picks its
   * replica afresh, whose memo then reads the run once. */
  private readonly key = randomUUID();
  private tools: Tools;
  private options: Options;
  private limits: LimitsProto | undefined;
  private protocol: "replay" | "stream";
  private history: Turn[] = [];
  private current: Memory | null = null;
  private prior: Memory | null = null; // the memory the last turn started from
  private previous: Value[] = []; // the last successful results, newest first
  private summariser: Summariser | undefined;
  private held: Summary | null = null; // the summary the prompt holds (summarize-turns)

  /** Use client.run(...) or Run.fromJSON. */
  constructor(client: Client, options: RunOptions) {
    if (typeof options !== "object" || options === null) throw new TypeError("run: want an options object");
    checkNames("option", options, RUN_OPTIONS, "run: ");
    const { tools, data, limits, protocol, maxTurns, summariser, ...fields } = options;
    if (summariser !== undefined) {
      this.summariser = checkSummariser(summariser);
      fields.strategy = summarisingStrategy(fields.strategy);
    }
    const turns = maxTurns ?? 5;
    if (!Number.isInteger(turns) || turns < 1) throw new TypeError(`run: maxTurns must be a positive whole number, got ${String(maxTurns)}`);
    if (protocol !== undefined && protocol !== "replay" && protocol !== "stream") {
      throw new TypeError(`run: protocol must be "replay" or "stream", got ${JSON.stringify(protocol)}`);
    }
    this.client = client;
    this.tools = { ...(tools ?? {}) };
    this.options = optionsMessage({ ...fields, maxTurns: turns }, this.tools, data);
    this.limits = limitsMessage(limits);
    this.protocol = protocol ?? "replay";
  }

  /** The turns so far, oldest first (without memory; see memory). */
  get turns(): readonly Turn[] {
    return [...this.history];
  }

  /** What the programs have defined so far; null before the first turn. */
  get memory(): Memory | null {
    return this.current;
  }

  /** The number the next turn gets, from 1. */
  get turnNumber(): number {
    return this.history.length + 1;
  }

  get maxTurns(): number {
    return this.options.maxTurns ?? 5;
  }

  get status(): RunStatus {
    const last = this.history.at(-1);
    if (last?.returned) return "returned";
    if (last?.failed) return "failed";
    if (this.history.length >= this.maxTurns) return "outOfTurns";
    return "running";
  }

  /** Whether the run has ended; step and nextMessages refuse then. */
  get done(): boolean {
    return this.status !== "running";
  }

  /** The value the run returned. Throws RunFailedError when it failed or ran
   * out of turns, and SidecarError while it runs. */
  get result(): Native {
    const status = this.status;
    const last = this.history.at(-1);
    if (status === "returned") return last!.result;
    if (status === "failed") {
      throw new RunFailedError(`the run failed on turn ${last!.number}: its program called (fail ...) with ${JSON.stringify(last!.result, bigints)}`, status, last);
    }
    if (status === "outOfTurns") {
      const how = last?.error ? `failed (${last.error.type}: ${last.error.message})` : "did not return";
      throw new RunFailedError(
        `the run used its ${this.maxTurns} turns without returning; the last one ${how}. Start a run with more maxTurns, or read run.turns to see why`,
        status,
        last,
      );
    }
    throw new SidecarError(`the run has not finished (next is turn ${this.turnNumber}): step it until run.done`);
  }

  /** The prompt for the next turn: the run so far, compressed by the run's
   * strategy (Messages: OpenAI messages and stats). */
  async nextMessages(options: CallOptions = {}): Promise<Messages> {
    this.checkRunning("nextMessages");
    const request = toMessagesRequest(this.history, this.current, this.prior, new History());
    request.options = this.options;
    request.summary = summaryProto(this.held);
    const prompt = await this.client.compress(request, new History(), options, this.key, this.summariser);
    if (prompt.summary) this.held = prompt.summary;
    return prompt;
  }

  /** The summary the prompt holds in place of the run's first turns (a run
   * with a summariser), or null. */
  get summary(): Summary | null {
    return this.held;
  }

  /** Evaluates the LLM's reply (a string, an OpenAI completion or its
   * message, an Anthropic message, or a Responses API response or its output
   * items), runs its tool calls, records the turn and returns it. The program
   * is the reply's run_ptc_lisp call when it makes one (programForm
   * "tool_call"), else its fenced block. Nothing changes when it rejects. */
  async step(reply: Reply | ToolCallReply, options: CallOptions = {}): Promise<Turn> {
    this.checkRunning("step");
    const { call, text } = programCall(reply); // programForm "tool_call": the run_ptc_lisp call
    const request = create(EvalTurnRequestSchema, {
      programCall: call ?? (this.options.programForm === "tool_call" ? noCall() : undefined), // a reply without a call: the hint says to make one
      rawResponse: call ? text : text || " ", // an empty reply holds no program: a turn that says so
      tools: this.options.tools,
      turnNumber: this.turnNumber,
      previousResults: this.previous,
      prelude: this.current?.proto,
      data: this.options.data,
      limits: this.limits,
    });
    const turn = await this.client.evaluate(request, this.tools, this.protocol, options, this.key);
    this.prior = this.current;
    if (turn.memory) this.current = turn.memory;
    if (turn.success) this.previous = [turn.wire.result ?? create(ValueSchema), ...this.previous].slice(0, PREVIOUS);
    this.history.push(turn.withoutMemory());
    return turn;
  }

  /** The run as plain JSON data: the options it was started with, its turns,
   * memory and previous results, under "version". Tools are functions and
   * are not saved; give them again to fromJSON. JSON.stringify(run) calls
   * it. */
  toJSON(): SavedRun {
    const out: SavedRun = { version: RUN_VERSION, protocol: this.protocol, options: toPlain(OptionsSchema, this.options), turns: [], previous_results: [] };
    if (this.limits) out.limits = toPlain(LimitsSchema, this.limits);
    out.turns = this.history.map((t) => toPlain(TurnSchema, t.wire));
    if (this.current) out.memory = this.current.toJSON();
    if (this.prior) out.prior_memory = this.prior.toJSON();
    out.previous_results = this.previous.map((v) => toPlain(ValueSchema, v));
    if (this.held) out.summary = toPlain(SummarySchema, summaryProto(this.held)!);
    return out;
  }

  /** The run saved holds (JSON.stringify(run)'s text or run.toJSON()'s
   * data, from either client), on client, with its tools given again by
   * name. */
  static fromJSON(client: Client, saved: string | SavedRun, options: { tools?: Tools; summariser?: Summariser } = {}): Run {
    const data: unknown = typeof saved === "string" ? JSON.parse(saved) : saved;
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw new TypeError("a saved run is a JSON object");
    const d = data as Partial<SavedRun>;
    if (d.version !== RUN_VERSION) {
      throw new TypeError(
        `a saved run of version ${JSON.stringify(d.version)}; this ptc-sidecar reads version ${RUN_VERSION}` +
          (typeof d.version === "number" && d.version > RUN_VERSION ? ": upgrade it" : ""),
      );
    }
    const run = Object.create(Run.prototype) as Run;
    const protocol = d.protocol ?? "replay";
    if (protocol !== "replay" && protocol !== "stream") throw new TypeError(`protocol: ${JSON.stringify(protocol)} is not replay or stream`);
    Object.assign(run, {
      client,
      key: randomUUID(),
      protocol,
      options: fromPlain(OptionsSchema, d.options ?? {}, "options"),
      limits: d.limits === undefined ? undefined : fromPlain(LimitsSchema, d.limits, "limits"),
      history: (d.turns ?? []).map((t, i) => Turn.fromProto(fromPlain(TurnSchema, t, `turns[${i}]`))),
      current: d.memory === undefined ? null : new Memory(fromPlain(MemorySchema, d.memory, "memory")),
      prior: d.prior_memory === undefined ? null : new Memory(fromPlain(MemorySchema, d.prior_memory, "prior_memory")),
      previous: (d.previous_results ?? []).map((v, i) => fromPlain(ValueSchema, v, `previous_results[${i}]`)),
      tools: { ...(options.tools ?? {}) },
      held: d.summary === undefined ? null : summaryOf(fromPlain(SummarySchema, d.summary, "summary")),
      summariser: options.summariser === undefined ? undefined : checkSummariser(options.summariser),
    });
    if (options.summariser !== undefined) summarisingStrategy(run.options.strategy);
    run.adoptTools();
    return run;
  }

  /** Checks that the tools given on resuming are the saved run's, by name;
   * a { fn, signature } given anew brings its signature and description. */
  private adoptTools(): void {
    const saved = this.options.tools.map((t) => t.name);
    const given = Object.keys(this.tools);
    if ([...saved].sort().join("\0") !== [...given].sort().join("\0")) {
      const missing = saved.filter((n) => !given.includes(n));
      const extra = given.filter((n) => !saved.includes(n));
      throw new TypeError(
        `tools: the saved run has tools ${saved.join(", ") || "none"}` +
          (missing.length ? `; missing ${missing.join(", ")}` : "") +
          (extra.length ? `; not in the run: ${extra.join(", ")}` : ""),
      );
    }
    const specs = new Map(toolSpecs(this.tools).map((s) => [s.name, s]));
    this.options.tools = this.options.tools.map((s) => (typeof this.tools[s.name] === "function" ? s : specs.get(s.name)!));
  }

  private checkRunning(what: string): void {
    if (this.done) throw new RunFinishedError(`${what}: the run has ended (${this.status} after ${this.history.length} turns); start a new run to go on`);
  }
}

const bigints = (_: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v);
