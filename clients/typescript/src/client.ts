import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client as ConnectClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import { AnthropicHistory, History, Prompt, readOpenAI, type OpenAIMessage, type OpenAIMessageInput, type AnthropicPrompt } from "./chat.js";
import {
  CanceledError,
  ClientClosedError,
  SidecarError,
  deadlineError,
  errorFromRpc,
  isRetryable,
  type CallContext,
} from "./errors.js";
import type { ToMessagesRequest } from "./gen/ptcsidecar/v1/compression_pb.js";
import { EvalTurnRequestSchema, EvalTurnStreamRequestSchema, type EvalTurnRequest, type EvalTurnStreamRequest } from "./gen/ptcsidecar/v1/eval_pb.js";
import { SidecarService } from "./gen/ptcsidecar/v1/service_pb.js";
import type { Turn as TurnProto } from "./gen/ptcsidecar/v1/turn_pb.js";
import { ValueSchema } from "./gen/ptcsidecar/v1/values_pb.js";
import { Memory, Turn, statsOf, type CacheBreakpoint, type Stats, type Strategy } from "./models.js";
import { Replicas, parseTarget, type Balancing } from "./pool.js";
import {
  OPTION_NAMES,
  checkNames,
  limitsMessage,
  memoryProto,
  optionsMessage,
  runTool,
  toMessagesRequest,
  toWire,
  toolSpecs,
  type Limits,
  type OptionFields,
  type Tools,
} from "./requests.js";
import { Run, type RunOptions, type SavedRun } from "./run.js";
import { ResponsesHistory, toResponses, type ResponsesPrompt } from "./responses.js";
import { anthropicTools, asToolCall, openaiTools, responsesTools, type ProgramCallInput } from "./toolcall.js";
import { SummaryRequest, checkSummariser, summaryOf, summaryProto, summaryRequestMessages, type Summariser, type Summary } from "./summary.js";

/** Responses carry every value twice (EDN and JSON): room beyond gRPC's
 * usual 4 MiB. */
const MAX_MESSAGE_BYTES = 64 << 20;
const DEFAULT_TIMEOUT_MS = 30_000;
// With the delays below, retries cover about four seconds: a sidecar
// container restarting in its pod.
const DEFAULT_MAX_RETRIES = 4;
const INITIAL_RETRY_DELAY_MS = 250;
const MAX_RETRY_DELAY_MS = 4_000;

export interface ClientOptions {
  /** Every call's deadline in milliseconds, unless the call passes its own
   * (null: no deadline). Default 30 000. An evaluation's covers its tools'
   * time. */
  timeoutMs?: number | null;
  /** How often a call is tried again, with exponential backoff and jitter,
   * when the sidecar is unavailable or busy (every call is pure, so a retry
   * repeats no effect). Default 4. */
  maxRetries?: number;
  /** Connect interceptors, run around every RPC. */
  interceptors?: Interceptor[];
  /** Where retries are reported (console.info and the like). */
  logger?: { info(message: string): void };
  /** For a pool of replicas: "byRun" (the default) keeps a run's calls on
   * one replica while it lives, whose memo then reads the run once;
   * "roundRobin" spreads them like every other call. */
  balancing?: Balancing;
}

/** One replica's HTTP/2 session and the client on it. */
interface Connection {
  sessions: Http2SessionManager;
  rpc: ConnectClient<typeof SidecarService>;
}

type Rpc = ConnectClient<typeof SidecarService>;

/** Options every call takes. */
export interface CallOptions {
  /** This call's deadline in milliseconds (null: none), instead of the
   * client's. */
  timeoutMs?: number | null;
  /** Ends the call when it fires: the call rejects with CanceledError. */
  signal?: AbortSignal;
}

const CALL_OPTIONS = ["timeoutMs", "signal"];

export interface EvalTurnOptions extends CallOptions {
  /** The PTC-Lisp program; or give rawResponse, the LLM's reply. */
  program?: string;
  rawResponse?: string;
  /** Instead of program: the LLM's run_ptc_lisp call in tool-call form
   * (programForm "tool_call"), in OpenAI's, Anthropic's or the Responses
   * API's shape. The Turn keeps its id as programCallId. An empty
   * ChatToolCall with rawResponse says the reply made none: a fenced program
   * in its text still runs, and without one the no_program hint tells the
   * LLM to call run_ptc_lisp. */
  programCall?: ProgramCallInput;
  tools?: Tools;
  /** The previous Turn's memory, or that Turn. */
  memory?: Memory | Turn | null;
  /** The input the program reads as data/..., an object. */
  data?: unknown;
  turnNumber?: number;
  /** "replay" (unary calls, one more per tool call; the default) or "stream"
   * (one EvalTurnStream). */
  protocol?: "replay" | "stream";
  /** Lower sandbox budgets, by name (maxSteps, timeoutMs, ...). */
  limits?: Limits;
  /** What *1, *2 and *3 read, newest first: Turns (their result goes back
   * exactly as it came) or native values. */
  previousResults?: unknown[];
}

const EVAL_OPTIONS = ["program", "rawResponse", "programCall", "tools", "memory", "data", "turnNumber", "protocol", "limits", "previousResults", ...CALL_OPTIONS];

/** toMessages' options: the Options fields by name (strategy, mission,
 * systemPrompt, maxTurns, ...), tools as evalTurn takes them (or names), data
 * as a native value, and a chat agent's history. */
export interface ToMessagesOptions extends OptionFields, CallOptions {
  memory?: Memory | null;
  /** OpenAI Chat Completions messages, fromAnthropic(...) or fromResponses(...). */
  history?: readonly OpenAIMessageInput[] | AnthropicHistory | ResponsesHistory;
  tools?: Tools | string[];
  data?: unknown;
  /** Strategy summarize: the summary the previous call's prompt held
   * (its Messages.summary). */
  summary?: Summary | null;
  /** Strategy summarize: writes the summary the sidecar asks for, which
   * the prompt then comes back with (Messages.summary). */
  summariser?: Summariser;
}

const TO_MESSAGES_OPTIONS = [...OPTION_NAMES, "memory", "history", "summary", "summariser", ...CALL_OPTIONS];

/** What to send the LLM next. */
export class Messages {
  /** OpenAI Chat Completions messages, ready for chat.completions.create. A
   * history message the strategy left as it was comes back as the caller
   * gave it; an assistant message with tool calls and no text has content
   * null. */
  readonly messages: OpenAIMessage[];
  /** What the compression did. */
  readonly stats: Stats;
  /** @internal */
  readonly prompt: Prompt;
  /** Strategies summarize and summarize-turns: the summary these messages
   * hold (send it with the next call), else null. */
  readonly summary: Summary | null;
  /** The summary the sidecar asks for when no summariser answered it,
   * else null. */
  readonly summaryRequest: SummaryRequest | null;

  /** @internal */
  constructor(prompt: Prompt, stats: Stats, summary: Summary | null = null, summaryRequest: SummaryRequest | null = null) {
    this.prompt = prompt;
    this.messages = prompt.openaiMessages();
    this.stats = stats;
    this.summary = summary;
    this.summaryRequest = summaryRequest;
  }

  /** The synthetic nudge a chat strategy added when the history had no user
   * message to open the prompt with, else null: send it, but do not store it
   * in the history as if the user had written it. */
  get nudge(): OpenAIMessage | null {
    const k = this.stats.syntheticNudge ? this.prompt.nudgeIndex() : null;
    return k === null ? null : this.messages[k];
  }

  /** The prompt as OpenAI Responses API parameters ({ instructions, input },
   * to spread into responses.create). Items read with fromResponses that
   * the strategy kept come back whole (reasoning with its encrypted_content
   * next to what it preceded, compaction items); a function_call_output
   * whose call is not sent is left out. */
  toResponses(): ResponsesPrompt {
    return toResponses(this.prompt);
  }

  /** With programForm "tool_call": the program tool run_ptc_lisp as Chat
   * Completions tools, to pass with messages; [] otherwise. */
  get tools(): Record<string, unknown>[] {
    return openaiTools(this.stats.programTool);
  }

  /** tools as Anthropic Messages tools (name, description, input_schema). */
  get anthropicTools(): Record<string, unknown>[] {
    return anthropicTools(this.stats.programTool);
  }

  /** tools as OpenAI Responses API (and Agents SDK) function tools. */
  get responsesTools(): Record<string, unknown>[] {
    return responsesTools(this.stats.programTool);
  }

  /** The prompt as Anthropic Messages parameters ({ system, messages }, to
   * spread into messages.create). With cache (the default), cache_control
   * marks where the sidecar says the stable prefix ends (stats
   * cacheBreakpoint: what the previous call wrote) and where the part the
   * next call repeats ends (nextCacheBreakpoint: to write it), splitting a
   * text block there if need be. ttl sets the cache's lifetime. */
  toAnthropic(options: { cache?: boolean; ttl?: "5m" | "1h" } = {}): AnthropicPrompt {
    const points: CacheBreakpoint[] = [];
    if (options.cache ?? true) {
      for (const p of [this.stats.cacheBreakpoint, this.stats.nextCacheBreakpoint]) {
        if (p && !points.some((q) => q.messageIndex === p.messageIndex && q.offset === p.offset)) points.push(p);
      }
    }
    return this.prompt.toAnthropic(points, options.ttl);
  }
}

/** A connection to ptc-sidecar over gRPC (HTTP/2, plaintext). One client may
 * serve concurrent calls: it holds no state between them. */
export class Client {
  /** "host:port", a URL, "dns:///name:port", or a pool's addresses joined
   * by commas. */
  readonly target: string;
  private readonly replicas: Replicas<Connection>;
  private readonly balancing: Balancing;
  private readonly settings: Settings;
  private closed = false;

  /** Connects to target ("host:port" or a URL; default $PTC_SIDECAR_TARGET,
   * else 127.0.0.1:50051). For a pool of replicas, target is a list of
   * "host:port" or "dns:///name:port" (a headless Service): calls are spread
   * round-robin over the replicas, and a call that fails because its
   * replica went away is tried again on another. */
  constructor(target?: string | readonly string[], options: ClientOptions = {}) {
    checkNames("option", options, ["timeoutMs", "maxRetries", "interceptors", "logger", "balancing"], "Client: ");
    const given = target === undefined || target === "" ? process.env.PTC_SIDECAR_TARGET || "127.0.0.1:50051" : target;
    const addresses = parseTarget(given);
    this.target = typeof given === "string" ? given : given.join(",");
    const timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs;
    checkTimeout(timeoutMs, "Client: timeoutMs");
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError(`Client: maxRetries must be a whole number, 0 or more, got ${maxRetries}`);
    this.balancing = options.balancing ?? "byRun";
    if (this.balancing !== "byRun" && this.balancing !== "roundRobin") {
      throw new TypeError(`Client: balancing must be "byRun" or "roundRobin", got ${JSON.stringify(this.balancing)}`);
    }
    this.settings = { target: this.target, timeoutMs, maxRetries, logger: options.logger };
    const interceptors = options.interceptors ?? [];
    this.replicas = new Replicas(addresses, (address) => {
      const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
      const sessions = new Http2SessionManager(baseUrl);
      const transport = createGrpcTransport({ baseUrl, sessionManager: sessions, readMaxBytes: MAX_MESSAGE_BYTES, writeMaxBytes: MAX_MESSAGE_BYTES, interceptors });
      return { sessions, rpc: createClient(SidecarService, transport) };
    });
  }

  /** Closes the connections; later calls reject with ClientClosedError. */
  close(): void {
    this.closed = true;
    for (const c of this.replicas.all()) c.sessions.abort();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** Evaluates one program, running its tool calls here, and returns the
   * Turn. A program that fails is a Turn with success false; a refused
   * request rejects with InvalidArgumentError. timeoutMs covers the whole
   * evaluation, tools included, over either protocol. */
  async evalTurn(options: EvalTurnOptions): Promise<Turn> {
    checkNames("option", options, EVAL_OPTIONS, "evalTurn: ");
    const protocol = checkProtocol(options.protocol ?? "replay", "evalTurn");
    const tools = options.tools ?? {};
    for (const [name, v] of [["program", options.program], ["rawResponse", options.rawResponse]] as const) {
      if (v !== undefined && typeof v !== "string") throw new TypeError(`evalTurn: ${name} must be a string, got ${typeof v}`);
    }
    if (options.program !== undefined && options.programCall !== undefined) {
      throw new TypeError("evalTurn: programCall: give program or programCall, not both: the call carries the program");
    }
    const request = create(EvalTurnRequestSchema, {
      program: options.program ?? "",
      rawResponse: options.rawResponse ?? "",
      programCall: options.programCall === undefined ? undefined : asToolCall(options.programCall, "evalTurn: programCall"),
      tools: toolSpecs(tools),
      turnNumber: options.turnNumber ?? 1,
      prelude: memoryProto(options.memory, "evalTurn"),
      data: options.data === undefined ? undefined : toWire(options.data),
      limits: limitsMessage(options.limits),
      previousResults: (options.previousResults ?? []).map((p) => (p instanceof Turn ? (p.wire.result ?? create(ValueSchema)) : toWire(p))),
    });
    return this.evaluate(request, tools, protocol, options);
  }

  /** The messages to send the LLM next, compressed from the turns so far;
   * memory defaults to the last turn's. Past turns go without their memory
   * snapshots (the second-to-last keeps its own, from which the sidecar
   * rebuilds the previous prompt to find its stable prefix). */
  async toMessages(turns: readonly Turn[] = [], options: ToMessagesOptions = {}): Promise<Messages> {
    checkNames("option", options, TO_MESSAGES_OPTIONS, "toMessages: ");
    const { memory, history, tools, data, summary, summariser, timeoutMs, signal, ...fields } = options;
    const wireHistory = readHistory(history);
    const request = toMessagesRequest(turns, memory ?? turns.at(-1)?.memory ?? null, null, wireHistory);
    request.options = optionsMessage(fields, tools, data);
    request.summary = summaryProto(summary);
    return this.compress(request, wireHistory, { timeoutMs, signal }, undefined, summariser === undefined ? undefined : checkSummariser(summariser));
  }

  /** The compression strategies the sidecar offers. */
  async listStrategies(options: CallOptions = {}): Promise<Strategy[]> {
    checkNames("option", options, CALL_OPTIONS, "listStrategies: ");
    const response = await this.unary("ListStrategies", options, undefined, (rpc, o) => rpc.listStrategies({}, o));
    return response.strategies.map((s) => ({
      name: s.name,
      description: s.description,
      input: s.input,
      options: s.options.map((o) => ({ name: o.name, defaultValue: o.defaultValue, description: o.description })),
    }));
  }

  /** A new agent run: the loop's state (turns, memory, *1 *2 *3) in one
   * object. See Run. */
  run(options: RunOptions): Run {
    return new Run(this, options);
  }

  /** The run saved holds (JSON.stringify(run), or run.toJSON()), to go on
   * with; tools are the same tools by name (functions are not saved). */
  resume(saved: string | SavedRun, options: { tools?: Tools; summariser?: Summariser } = {}): Run {
    return Run.fromJSON(this, saved, options);
  }

  // ---- machinery ----------------------------------------------------------

  /** @internal ToMessages with retries; key is the id of the run it is
   * for. A summary request the summariser answers is a second call with
   * the summary in place (request is left as it was). */
  async compress(request: ToMessagesRequest, history: History, options: CallOptions, key?: string, summariser?: Summariser): Promise<Messages> {
    const send = async (req: ToMessagesRequest) => {
      const response = await this.unary("ToMessages", options, key, (rpc, o) => rpc.toMessages(req, o));
      const r = response.summaryRequest;
      const wanted = r ? new SummaryRequest(new Prompt(summaryRequestMessages(response), history).openaiMessages(), r.through, r.askedAt, r.digest) : null;
      return new Messages(new Prompt(response.messages, history), statsOf(response.stats), summaryOf(req.summary), wanted);
    };
    const first = await send(request);
    if (summariser === undefined || first.summaryRequest === null) return first;
    const text = await summariser(first.summaryRequest.messages);
    return send({ ...request, summary: summaryProto(first.summaryRequest.summary(text)) });
  }

  private async unary<T>(method: string, options: CallOptions, key: string | undefined, send: (rpc: Rpc, o: { signal: AbortSignal; timeoutMs?: number }) => Promise<T>): Promise<T> {
    const call = new CallScope(this.settings, method, options);
    try {
      for (;;) {
        this.checkOpen(method);
        const replica = await this.pick(key);
        try {
          const response = await send(replica.made.rpc, { signal: call.signal, timeoutMs: call.remaining() });
          this.replicas.answered(replica.address);
          call.attempts = 0;
          return response;
        } catch (err) {
          this.failed(replica.address, err);
          await call.backOff(err, this.closed);
        }
      }
    } finally {
      call.dispose();
    }
  }

  /** The replica for a call: by the run's id (key) when the client keeps
   * runs on one replica, else the next in turn. */
  private pick(key: string | undefined): Promise<{ address: string; made: Connection }> {
    return this.replicas.pick(this.balancing === "byRun" ? key : undefined);
  }

  /** A call to address failed with err: when the connection was lost or
   * refused (the replica may be gone), the retry goes to another replica, if
   * there is one. */
  private failed(address: string, err: unknown): void {
    if (err instanceof ConnectError && err.code !== Code.ResourceExhausted && isRetryable(err)) this.replicas.failed(address);
  }

  /** @internal One evaluation, retried from the answers it has: tools that
   * ran are not run again. A stream that broke after some answers goes on by
   * replay, which takes them all in one request, on whichever replica the
   * retry goes to. key is the id of the run it is for. */
  async evaluate(request: EvalTurnRequest, tools: Tools, protocol: "replay" | "stream", options: CallOptions, key?: string): Promise<Turn> {
    const call = new CallScope(this.settings, "EvalTurn", options);
    try {
      for (;;) {
        this.checkOpen("EvalTurn");
        const answered = request.toolResults.length;
        const replica = await this.pick(key);
        try {
          const rpc = replica.made.rpc;
          const turn = protocol === "stream" && answered === 0 ? await this.stream(rpc, request, tools, call) : await this.replay(rpc, request, tools, call);
          this.replicas.answered(replica.address);
          return Turn.fromProto(turn);
        } catch (err) {
          this.failed(replica.address, err);
          if (request.toolResults.length > answered) call.attempts = 0;
          await call.backOff(err, this.closed);
        }
      }
    } finally {
      call.dispose();
    }
  }

  private async replay(rpc: Rpc, request: EvalTurnRequest, tools: Tools, call: CallScope): Promise<TurnProto> {
    // Each round answers one more call and the server's tool-call limit
    // fails a program that calls too often, so this loop ends.
    for (;;) {
      const response = await rpc.evalTurn(request, { signal: call.signal, timeoutMs: call.remaining() });
      call.attempts = 0;
      if (response.outcome.case === "turn") return response.outcome.value;
      if (response.outcome.case !== "pending") throw new SidecarError("Internal: EvalTurn answered neither a turn nor pending calls");
      for (const pending of response.outcome.value.calls) {
        request.toolResults.push(await runTool(tools, pending, call.signal));
        call.remaining(); // the tool may have used the rest of the time
      }
    }
  }

  private async stream(rpc: Rpc, request: EvalTurnRequest, tools: Tools, call: CallScope): Promise<TurnProto> {
    const outgoing = new MessageQueue<EvalTurnStreamRequest>();
    outgoing.push(create(EvalTurnStreamRequestSchema, { message: { case: "start", value: { ...request, toolResults: [] } } }));
    let turn: TurnProto | undefined;
    try {
      for await (const m of rpc.evalTurnStream(outgoing, { signal: call.signal, timeoutMs: call.remaining() })) {
        if (m.message.case === "toolCall") {
          const answer = await runTool(tools, m.message.value, call.signal);
          request.toolResults.push(answer);
          call.remaining();
          outgoing.push(create(EvalTurnStreamRequestSchema, { message: { case: "toolResult", value: answer } }));
        } else if (m.message.case === "turn") {
          turn = m.message.value;
          outgoing.close();
        }
      }
    } finally {
      outgoing.close();
    }
    if (!turn) throw new SidecarError("Internal: EvalTurnStream ended without a turn");
    return turn;
  }

  private checkOpen(method: string): void {
    if (this.closed) throw new ClientClosedError(`${method}: the client is closed; create a new one`);
  }
}

interface Settings {
  target: string;
  timeoutMs: number | null;
  maxRetries: number;
  logger?: { info(message: string): void };
}

function checkTimeout(ms: unknown, what: string): void {
  if (ms !== null && (typeof ms !== "number" || !(ms > 0))) throw new TypeError(`${what} must be a positive number of milliseconds or null (no deadline), got ${String(ms)}`);
}

function checkProtocol(protocol: string, where: string): "replay" | "stream" {
  if (protocol !== "replay" && protocol !== "stream") throw new TypeError(`${where}: protocol must be "replay" or "stream", got ${JSON.stringify(protocol)}`);
  return protocol;
}

class DeadlineReached extends Error {}

/** One call's deadline, cancellation and retry count. The deadline covers
 * the whole call: every RPC of a replayed evaluation, the tools' time and the
 * waits between retries. */
class CallScope {
  readonly timeoutMs: number | null;
  attempts = 0;
  private readonly started = performance.now();
  private readonly controller = new AbortController();
  private readonly timer?: ReturnType<typeof setTimeout>;
  private readonly userSignal?: AbortSignal;
  private readonly onUserAbort = () => this.controller.abort(this.userSignal?.reason);

  constructor(
    private readonly settings: Settings,
    private readonly method: string,
    options: CallOptions,
  ) {
    this.timeoutMs = options.timeoutMs === undefined ? settings.timeoutMs : options.timeoutMs;
    checkTimeout(this.timeoutMs, `${method}: timeoutMs`);
    if (this.timeoutMs !== null) {
      this.timer = setTimeout(() => this.controller.abort(new DeadlineReached()), this.timeoutMs);
    }
    this.userSignal = options.signal;
    if (this.userSignal?.aborted) this.controller.abort(this.userSignal.reason);
    else this.userSignal?.addEventListener("abort", this.onUserAbort, { once: true });
  }

  /** Fires when the deadline passes or the caller's signal does. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left for the next RPC (undefined: no deadline); throws the
   * call's error when none are, or when it was canceled. */
  remaining(): number | undefined {
    if (this.signal.aborted) throw this.error(this.signal.reason);
    if (this.timeoutMs === null) return undefined;
    const left = this.timeoutMs - (performance.now() - this.started);
    if (left <= 0) throw this.error(new DeadlineReached());
    return Math.ceil(left);
  }

  context(): CallContext {
    return { method: this.method, target: this.settings.target, timeoutMs: this.timeoutMs, attempts: this.attempts, elapsedMs: performance.now() - this.started };
  }

  /** The package's error for what ended the call. */
  error(err: unknown): SidecarError {
    if (err instanceof SidecarError) return err;
    const reason = this.signal.reason;
    if (this.signal.aborted && reason instanceof DeadlineReached) return deadlineError(this.context(), "", err);
    if (this.signal.aborted) {
      return new CanceledError(`Canceled: ${this.method} was canceled by its signal`, { code: Code.Canceled, rawMessage: "canceled", cause: reason });
    }
    if (err instanceof DeadlineReached) return deadlineError(this.context());
    return errorFromRpc(err, this.context());
  }

  /** Waits before a retry after err, or throws the call's error when it
   * should not be tried again. */
  async backOff(err: unknown, closed: boolean): Promise<void> {
    if (closed) throw new ClientClosedError(`${this.method}: the client was closed; create a new one`, { cause: err });
    if (this.signal.aborted || err instanceof SidecarError || !(err instanceof ConnectError || err instanceof Error)) throw this.error(err);
    const ce = ConnectError.from(err);
    this.attempts++;
    if (!isRetryable(ce) || this.attempts > this.settings.maxRetries) throw this.error(err);
    let delay = Math.min(MAX_RETRY_DELAY_MS, INITIAL_RETRY_DELAY_MS * 2 ** (this.attempts - 1));
    delay *= 1 - 0.25 * Math.random(); // jitter: callers that failed together retry apart
    if (this.timeoutMs !== null && delay >= this.timeoutMs - (performance.now() - this.started)) throw this.error(err);
    this.settings.logger?.info(
      `${this.method} to ${this.settings.target}: ${Code[ce.code]}; retrying in ${Math.round(delay)} ms (retry ${this.attempts} of ${this.settings.maxRetries})`,
    );
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.signal.addEventListener("abort", done, { once: true });
    });
    if (this.signal.aborted) throw this.error(this.signal.reason);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.userSignal?.removeEventListener("abort", this.onUserAbort);
  }
}

function readHistory(history: ToMessagesOptions["history"]): History {
  if (history === undefined) return new History();
  if (history instanceof AnthropicHistory || history instanceof ResponsesHistory) return history.history;
  return readOpenAI(history, "history");
}

/** An async iterable fed by push, ended by close: the client's side of a
 * bidirectional stream. */
class MessageQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (!this.closed) {
      this.items.push(item);
      this.wake?.();
    }
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  // A generator, so that the iterator also has the throw and return that
  // the transport calls when the call ends early.
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
      } else if (this.closed) {
        return;
      } else {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    }
  }
}

