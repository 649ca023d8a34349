import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createClient, type Client as ConnectClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import type { ChatMessage } from "./gen/ptcsidecar/v1/chat_pb.js";
import { ChatMessageSchema } from "./gen/ptcsidecar/v1/chat_pb.js";
import { OptionsSchema, ToMessagesRequestSchema } from "./gen/ptcsidecar/v1/compression_pb.js";
import {
  EvalTurnRequestSchema,
  EvalTurnStreamRequestSchema,
  LimitsSchema,
  ToolResultSchema,
  type EvalTurnRequest,
  type EvalTurnStreamRequest,
  type ToolResult,
} from "./gen/ptcsidecar/v1/eval_pb.js";
import { SidecarService } from "./gen/ptcsidecar/v1/service_pb.js";
import type { Memory, ToolCall as ToolCallProto, Turn as TurnProto } from "./gen/ptcsidecar/v1/turn_pb.js";
import { ToolSpecSchema, ValueSchema, type ToolSpec, type Value } from "./gen/ptcsidecar/v1/values_pb.js";
import { SidecarError } from "./errors.js";
import { EDN, parseJSON, stringifyJSON, type Native } from "./values.js";

/** Responses carry every value twice (EDN and JSON): room beyond gRPC's
 * usual 4 MiB. */
const MAX_MESSAGE_BYTES = 64 << 20;

/** A tool: called with the program's argument map, sync or async. */
export type ToolFunction = (args: { [key: string]: Native }) => unknown;

/** A tool with the signature and description the LLM is shown. */
export interface Tool {
  fn: ToolFunction;
  signature?: string;
  description?: string;
}

export type Tools = Record<string, ToolFunction | Tool>;

/** Why a turn failed, written for the LLM. */
export interface TurnError {
  type: string;
  message: string;
  hint: string;
}

/** One tool call a program made, with native args and result. */
export interface ToolCall {
  index: number;
  name: string;
  args: Native;
  result: Native;
  error: string;
  durationMs: number;
}

/** The record of one evaluated program. memory is opaque: pass it back as
 * the next evalTurn's memory. proto is the wire Turn toMessages sends back. */
export interface Turn {
  number: number;
  program: string;
  rawResponse: string;
  result: Native;
  success: boolean;
  error: TurnError | null;
  prints: string[];
  toolCalls: ToolCall[];
  defined: string[];
  returned: boolean;
  failed: boolean;
  durationMs: number;
  memory: Memory | undefined;
  proto: TurnProto;
}

export interface EvalTurnOptions {
  /** The PTC-Lisp program; or give rawResponse, the LLM's reply. */
  program?: string;
  rawResponse?: string;
  tools?: Tools;
  /** The previous Turn's memory. */
  memory?: Memory;
  /** The input the program reads as data/..., an object. */
  data?: unknown;
  turnNumber?: number;
  /** "replay" (unary calls, one more per tool call) or "stream" (one
   * EvalTurnStream). */
  protocol?: "replay" | "stream";
  /** Lower sandbox budgets, by the Limits field names. */
  limits?: MessageInitShape<typeof LimitsSchema>;
  /** What *1, *2 and *3 read, newest first: Turns (their result goes back
   * exactly as it came) or native values. */
  previousResults?: (Turn | unknown)[];
}

/** A message in the chat-completions shape. */
export interface ChatCompletionMessage {
  role: string;
  content: string;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

type OptionsInit = Omit<MessageInitShape<typeof OptionsSchema>, "tools" | "data" | "$typeName">;

/** toMessages' options: the Options fields (camelCase, as protobuf-es names
 * them: strategy, mission, systemPrompt, maxTurns, ...), with tools as
 * evalTurn takes them (or names) and data as a native value. */
export interface ToMessagesOptions extends OptionsInit {
  memory?: Memory;
  history?: ChatCompletionMessage[];
  tools?: Tools | string[];
  data?: unknown;
}

export interface Messages {
  messages: ChatCompletionMessage[];
  stats: Record<string, string | number | boolean>;
}

export interface Strategy {
  name: string;
  description: string;
  input: string;
  options: { name: string; defaultValue: string; description: string }[];
}

export interface ClientOptions {
  /** Deadline of every RPC in milliseconds (default 30 000; 0: none). */
  timeoutMs?: number;
}

/** A connection to ptc-sidecar over gRPC (HTTP/2, plaintext). */
export class Client {
  private readonly sessions: Http2SessionManager;
  private readonly rpc: ConnectClient<typeof SidecarService>;

  /** Connects to target, "host:port" or a URL. */
  constructor(target: string, options: ClientOptions = {}) {
    const baseUrl = /^https?:\/\//.test(target) ? target : `http://${target}`;
    this.sessions = new Http2SessionManager(baseUrl);
    const transport = createGrpcTransport({
      baseUrl,
      sessionManager: this.sessions,
      readMaxBytes: MAX_MESSAGE_BYTES,
      writeMaxBytes: MAX_MESSAGE_BYTES,
      defaultTimeoutMs: options.timeoutMs ?? 30_000,
    });
    this.rpc = createClient(SidecarService, transport);
  }

  /** Closes the connection. */
  close(): void {
    this.sessions.abort();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** Evaluates one program, running its tool calls here, and returns the
   * Turn. A program that fails is a Turn with success false; a refused
   * request throws SidecarError. */
  async evalTurn(options: EvalTurnOptions): Promise<Turn> {
    const protocol = options.protocol ?? "replay";
    if (protocol !== "replay" && protocol !== "stream") {
      throw new TypeError(`protocol must be "replay" or "stream", got ${JSON.stringify(protocol)}`);
    }
    const tools = options.tools ?? {};
    const request = create(EvalTurnRequestSchema, {
      program: options.program ?? "",
      rawResponse: options.rawResponse ?? "",
      tools: toolSpecs(tools),
      turnNumber: options.turnNumber ?? 1,
      prelude: options.memory,
      data: options.data === undefined ? undefined : toWire(options.data),
      limits: options.limits === undefined ? undefined : create(LimitsSchema, options.limits),
      previousResults: (options.previousResults ?? []).map((p) =>
        isTurn(p) ? (p.proto.result ?? create(ValueSchema)) : toWire(p),
      ),
    });
    try {
      const turn = protocol === "stream" ? await this.stream(request, tools) : await this.replay(request, tools);
      return fromTurnProto(turn);
    } catch (err) {
      throw err instanceof SidecarError ? err : SidecarError.from(err);
    }
  }

  private async replay(request: EvalTurnRequest, tools: Tools): Promise<TurnProto> {
    // Each round answers one more call and the server's tool-call limit
    // fails a program that calls too often, so this loop ends.
    for (;;) {
      const response = await this.rpc.evalTurn(request);
      if (response.outcome.case === "turn") return response.outcome.value;
      if (response.outcome.case !== "pending") throw new SidecarError(13, "EvalTurn answered neither a turn nor pending calls");
      for (const call of response.outcome.value.calls) {
        request.toolResults.push(await runTool(tools, call));
      }
    }
  }

  private async stream(request: EvalTurnRequest, tools: Tools): Promise<TurnProto> {
    const outgoing = new MessageQueue<EvalTurnStreamRequest>();
    outgoing.push(create(EvalTurnStreamRequestSchema, { message: { case: "start", value: request } }));
    let turn: TurnProto | undefined;
    try {
      for await (const m of this.rpc.evalTurnStream(outgoing)) {
        if (m.message.case === "toolCall") {
          const answer = await runTool(tools, m.message.value);
          outgoing.push(create(EvalTurnStreamRequestSchema, { message: { case: "toolResult", value: answer } }));
        } else if (m.message.case === "turn") {
          turn = m.message.value;
          outgoing.close();
        }
      }
    } finally {
      outgoing.close();
    }
    if (!turn) throw new SidecarError(13, "EvalTurnStream ended without a turn");
    return turn;
  }

  /** The messages to send the LLM next, compressed from the turns so far.
   * memory defaults to the last turn's. */
  async toMessages(turns: Turn[], options: ToMessagesOptions = {}): Promise<Messages> {
    const { memory, history, tools, data, ...rest } = options;
    const request = create(ToMessagesRequestSchema, {
      turns: turns.map((t) => t.proto),
      memory: memory ?? turns.at(-1)?.memory,
      history: (history ?? []).map(toChatProto),
      options: create(OptionsSchema, {
        ...rest,
        tools: tools === undefined ? [] : toolSpecs(tools),
        data: data === undefined ? undefined : toWire(data),
      }),
    });
    try {
      const response = await this.rpc.toMessages(request);
      const { $typeName: _, ...stats } = response.stats ?? { $typeName: "" };
      return { messages: response.messages.map(fromChatProto), stats: stats as Messages["stats"] };
    } catch (err) {
      throw SidecarError.from(err);
    }
  }

  /** The compression strategies the sidecar offers. */
  async listStrategies(): Promise<Strategy[]> {
    try {
      const response = await this.rpc.listStrategies({});
      return response.strategies.map((s) => ({
        name: s.name,
        description: s.description,
        input: s.input,
        options: s.options.map((o) => ({ name: o.name, defaultValue: o.defaultValue, description: o.description })),
      }));
    } catch (err) {
      throw SidecarError.from(err);
    }
  }
}

/** The native form of a wire value: its JSON (big integers as BigInt), an
 * EDN object when it has no JSON form, null when absent. */
export function fromWire(v: Value | undefined): Native {
  if (v?.json) return parseJSON(v.json);
  if (v?.edn) return new EDN(v.edn);
  return null;
}

/** A native value as a wire Value: EDN objects as their text, anything else
 * as JSON. */
export function toWire(v: unknown): Value {
  return v instanceof EDN ? create(ValueSchema, { edn: v.text }) : create(ValueSchema, { json: stringifyJSON(v) });
}

function isTurn(v: unknown): v is Turn {
  return typeof v === "object" && v !== null && "proto" in v && (v as Turn).proto?.$typeName === "ptcsidecar.v1.Turn";
}

function toolSpecs(tools: Tools | string[]): ToolSpec[] {
  if (Array.isArray(tools)) return tools.map((name) => create(ToolSpecSchema, { name }));
  return Object.entries(tools).map(([name, t]) =>
    create(ToolSpecSchema, typeof t === "function" ? { name } : { name, signature: t.signature ?? "", description: t.description ?? "" }),
  );
}

/** Runs the tool a call names and returns the answer. A missing tool, a
 * throw, or a result JSON cannot carry is a tool error the program sees. */
async function runTool(tools: Tools, call: ToolCallProto): Promise<ToolResult> {
  const answer = create(ToolResultSchema, { index: call.index, name: call.name, args: call.args });
  const started = performance.now();
  try {
    const tool = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
    if (!tool) throw new Error(`no tool named ${JSON.stringify(call.name)} on the caller's side`);
    const args = fromWire(call.args);
    if (args instanceof EDN) throw new TypeError(`the arguments ${args.text} have no JSON form`);
    const fn = typeof tool === "function" ? tool : tool.fn;
    const argMap = args === null ? {} : typeof args === "object" && !Array.isArray(args) ? args : { args };
    answer.result = toWire(await fn(argMap as { [key: string]: Native }));
  } catch (err) {
    answer.result = undefined;
    answer.error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
  answer.durationMs = BigInt(Math.round(performance.now() - started));
  return answer;
}

function fromTurnProto(t: TurnProto): Turn {
  return {
    number: t.number,
    program: t.program,
    rawResponse: t.rawResponse,
    result: fromWire(t.result),
    success: t.success,
    error: t.error ? { type: t.error.type, message: t.error.message, hint: t.error.hint } : null,
    prints: [...t.prints],
    toolCalls: t.toolCalls.map((c) => ({
      index: c.index,
      name: c.name,
      args: fromWire(c.args),
      result: fromWire(c.result),
      error: c.error,
      durationMs: Number(c.durationMs),
    })),
    defined: [...t.defined],
    returned: t.returned,
    failed: t.failed,
    durationMs: Number(t.durationMs),
    memory: t.memory,
    proto: t,
  };
}

function fromChatProto(m: ChatMessage): ChatCompletionMessage {
  const out: ChatCompletionMessage = { role: m.role, content: m.content };
  if (m.toolCalls.length > 0) {
    out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
  }
  if (m.toolCallId) out.tool_call_id = m.toolCallId;
  return out;
}

function toChatProto(m: ChatCompletionMessage): ChatMessage {
  return create(ChatMessageSchema, {
    role: m.role,
    content: m.content ?? "",
    toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    toolCallId: m.tool_call_id ?? "",
  });
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
