// What calls return: turns, memory, stats. Each record keeps the wire
// message it came from, so that what goes back to the sidecar is exactly what
// it sent, and each converts to plain JSON and back (toJSON and fromJSON, in
// the protobuf JSON mapping with the proto's field names: the form the
// Python client writes too; int64 fields are strings, so no BigInt reaches
// JSON.stringify).
import { clone, create, equals, fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";

import type { CompressionStats as StatsProto } from "./gen/ptcsidecar/v1/compression_pb.js";
import type { ProgramTool } from "./toolcall.js";
import { MemorySchema, TurnSchema, type Memory as MemoryProto, type Turn as TurnProto } from "./gen/ptcsidecar/v1/turn_pb.js";
import type { Value } from "./gen/ptcsidecar/v1/values_pb.js";
import { EDN, parseJSON, type Native } from "./values.js";

/** A wire message as plain JSON data, by the protobuf JSON mapping with the
 * proto's field names (int64 fields as strings, defaults left out). */
export function toPlain<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): JsonValue {
  return toJson(schema, message, { useProtoFieldName: true });
}

/** The wire message of plain JSON data written by toPlain (either client's);
 * fields a newer client added are skipped. Throws TypeError naming what when
 * the data does not fit. */
export function fromPlain<Desc extends DescMessage>(schema: Desc, data: unknown, what: string): MessageShape<Desc> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new TypeError(`${what}: want a JSON object, got ${data === null ? "null" : Array.isArray(data) ? "an array" : typeof data}`);
  }
  try {
    return fromJson(schema, data as JsonValue, { ignoreUnknownFields: true });
  } catch (err) {
    throw new TypeError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The native form of a wire value: its JSON (big integers as BigInt), an EDN
 * object when it has no JSON form, null when absent. */
export function fromWire(v: Value | undefined): Native {
  if (v?.json) return parseJSON(v.json);
  if (v?.edn) return new EDN(v.edn);
  return null;
}

/** Why a turn failed, written for the LLM. */
export interface TurnError {
  type: string;
  message: string;
  hint: string;
}

/** Something the sidecar forgave in a turn that ran anyway (a stray closing
 * bracket, code blocks joined), written for the LLM: the turn strategies show
 * the last turn's warnings on the next prompt. */
export interface TurnWarning {
  type: string;
  message: string;
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

/** One name a program defined: value is the EDN object of its text (a
 * function's is its source). */
export interface Binding {
  name: string;
  value: Native;
  isFn: boolean;
  params: string[];
  docstring: string;
  returnType: string;
  turn: number;
}

/** What the run's programs have defined so far, as the sidecar sent it.
 * Opaque to the agent: pass it back as the next evalTurn's memory (a Run does
 * this itself). */
export class Memory {
  /** @internal */
  readonly proto: MemoryProto;

  constructor(proto?: MemoryProto) {
    this.proto = proto ?? create(MemorySchema);
  }

  get bindings(): Binding[] {
    return this.proto.bindings.map((b) => ({
      name: b.name,
      value: fromWire(b.value),
      isFn: b.isFn,
      params: [...b.params],
      docstring: b.docstring,
      returnType: b.returnType,
      turn: b.turn,
    }));
  }

  /** The defined names, in the order each was first defined. */
  get names(): string[] {
    return this.proto.bindings.map((b) => b.name);
  }

  get size(): number {
    return this.proto.bindings.length;
  }

  equals(other: Memory): boolean {
    return equals(MemorySchema, this.proto, other.proto);
  }

  toJSON(): JsonValue {
    return toPlain(MemorySchema, this.proto);
  }

  static fromJSON(data: unknown): Memory {
    return new Memory(fromPlain(MemorySchema, data, "memory"));
  }
}

/** The record of one evaluated program. result, and each tool call's args
 * and result, are native values (an EDN object for a value with no JSON
 * form). memory is what the program left defined; a Run keeps only its
 * newest memory, so the turns in run.turns have memory null. */
export class Turn {
  readonly number: number;
  readonly program: string;
  readonly rawResponse: string;
  readonly result: Native;
  readonly success: boolean;
  readonly error: TurnError | null;
  readonly prints: string[];
  readonly toolCalls: ToolCall[];
  readonly defined: string[];
  readonly returned: boolean;
  readonly failed: boolean;
  readonly durationMs: number;
  readonly warnings: TurnWarning[];
  readonly memory: Memory | null;
  /** @internal The wire Turn without its memory, sent back as it came. */
  readonly wire: TurnProto;

  /** @internal */
  constructor(t: TurnProto, memory: Memory | null) {
    this.wire = t;
    this.memory = memory;
    this.number = t.number;
    this.program = t.program;
    this.rawResponse = t.rawResponse;
    this.result = fromWire(t.result);
    this.success = t.success;
    this.error = t.error ? { type: t.error.type, message: t.error.message, hint: t.error.hint } : null;
    this.prints = [...t.prints];
    this.toolCalls = t.toolCalls.map((c) => ({
      index: c.index,
      name: c.name,
      args: fromWire(c.args),
      result: fromWire(c.result),
      error: c.error,
      durationMs: Number(c.durationMs),
    }));
    this.defined = [...t.defined];
    this.returned = t.returned;
    this.failed = t.failed;
    this.durationMs = Number(t.durationMs);
    this.warnings = t.warnings.map((w) => ({ type: w.type, message: w.message }));
  }

  /** The Turn of a wire Turn, its memory included when set. */
  static fromProto(t: TurnProto): Turn {
    const wire = clone(TurnSchema, t);
    wire.memory = undefined;
    return new Turn(wire, t.memory ? new Memory(clone(MemorySchema, t.memory)) : null);
  }

  /** This turn with memory null: what a run keeps of past turns. */
  withoutMemory(): Turn {
    return this.memory === null ? this : new Turn(this.wire, null);
  }

  /** @internal The wire Turn, with its memory only when asked: ToMessages
   * reads one snapshot at most, and the rest would make a long run's
   * requests grow with the square of its length. */
  toProto(withMemory: boolean, memory: Memory | null = this.memory): TurnProto {
    if (!withMemory || memory === null) return this.wire;
    return { ...this.wire, memory: memory.proto };
  }

  /** The turn as plain JSON data, memory included when set. */
  toJSON(): JsonValue {
    return toPlain(TurnSchema, this.toProto(true));
  }

  static fromJSON(data: unknown): Turn {
    return Turn.fromProto(fromPlain(TurnSchema, data, "turn"));
  }
}

/** Where a prompt's stable prefix ends: after `offset` characters (Unicode
 * code points) of the content of message `messageIndex`. */
export interface CacheBreakpoint {
  messageIndex: number;
  offset: number;
}

/** What a compression did, by the CompressionStats field names (camelCase):
 * counts are numbers, the breakpoints and the program tool null when unset. */
export type Stats = Omit<StatsProto, "$typeName" | "$unknown" | "cacheBreakpoint" | "nextCacheBreakpoint" | "programTool"> & {
  cacheBreakpoint: CacheBreakpoint | null;
  nextCacheBreakpoint: CacheBreakpoint | null;
  programTool: ProgramTool | null;
};

export function statsOf(s: StatsProto | undefined): Stats {
  const { $typeName: _, $unknown: __, cacheBreakpoint, nextCacheBreakpoint, programTool, ...rest } = s ?? ({} as StatsProto);
  const point = (b: typeof cacheBreakpoint): CacheBreakpoint | null => (b ? { messageIndex: b.messageIndex, offset: b.offset } : null);
  const tool = programTool ? { name: programTool.name, description: programTool.description, parameters: programTool.parameters } : null;
  return {
    ...(rest as Omit<Stats, "cacheBreakpoint" | "nextCacheBreakpoint" | "programTool">),
    cacheBreakpoint: point(cacheBreakpoint),
    nextCacheBreakpoint: point(nextCacheBreakpoint),
    programTool: tool,
  };
}

/** A compression strategy: its name, what it reads ("turns" or "history")
 * and the options it honours. */
export interface Strategy {
  name: string;
  description: string;
  input: string;
  options: { name: string; defaultValue: string; description: string }[];
}
