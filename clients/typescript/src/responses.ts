// OpenAI Responses API input items, and the Agents SDK's session items.
//
// In: fromResponses(items) reads the items of a Responses API input (or an
// Agents SDK session's getItems(), the same items) for toMessages({ history
// }). Out: Messages.toResponses() gives the prompt as Responses API input
// items with instructions, for responses.create({ ...prompt, model }).
//
// Mapping. A run of consecutive items the model wrote (reasoning, assistant
// messages, function calls: one response's output) is one assistant message
// on the wire: its text, its calls as tool calls, and, when it holds
// reasoning items, its text and reasoning as parts in item order (a
// reasoning item is a reasoning part: its summary as text, encrypted_content
// as data, its other fields in provider_json), so that keep_thinking_turns
// clears it like any reasoning. function_call_output is a tool message;
// user, system and developer messages are messages of that role. A
// compaction item (from /responses/compact or compact_threshold) opens an
// assistant message, as its compaction part, with the model's items that
// follow it in the same run, so that the strategies' compaction rule holds:
// everything before the last compaction is replaced by it (OpenAI's guide:
// the latest compaction item carries the context needed), and it is never
// split from what follows.
//
// Nothing is lost of what the strategy keeps: a wire message that comes back
// unchanged is written as the caller's own items, whole (ids, status,
// encrypted_content, annotations). One the strategy changed is written from
// its source's items where they still hold: each reasoning item stays in
// front of the items it preceded, a kept call keeps its id and status with
// the new arguments, and a reasoning item is dropped when keep_thinking_turns
// cleared it or when nothing it preceded is left. A function_call_output whose call is not in the output
// is never written: the API refuses it.

import { create, toBinary } from "@bufbuild/protobuf";

import { History, merged, part, type Prompt, type Source } from "./chat.js";
import { ChatMessageSchema, ChatToolCallSchema, ContentPartSchema, type ChatMessage, type ContentPart } from "./gen/ptcsidecar/v1/chat_pb.js";

type Json = Record<string, unknown>;

const FORMAT = "responses";
const INSTRUCTIONS = "responses:instructions";
const TEXT_PARTS = new Set(["input_text", "output_text", "text"]);
const MODEL_KINDS = new Set(["reasoning", "function_call", "compaction"]); // with assistant messages: what a response outputs

/** Responses API items read for toMessages({ history }). Made by
 * fromResponses; holds the wire messages and, for each, the items it came
 * from, so that Messages.toResponses() gives unchanged ones back whole. */
export class ResponsesHistory {
  /** @internal */
  constructor(readonly history: History) {}

  get length(): number {
    return this.history.wire.length;
  }
}

/** A prompt as Responses API parameters: instructions (the system prompt,
 * or undefined) and input (the items). */
export interface ResponsesPrompt {
  instructions?: string;
  input: Json[];
}

/** Reads Responses API input items (an Agents SDK session's items) for
 * toMessages({ history }); instructions, the request's instructions
 * parameter, is the system message when given. Items other than messages,
 * reasoning, function calls and their outputs and compaction items (hosted
 * tools' calls, images, files) are refused with their index: the sidecar
 * reads text. */
export function fromResponses(items: readonly unknown[], options: { instructions?: string } = {}): ResponsesHistory {
  if (!Array.isArray(items)) throw new TypeError("items: want an array of Responses API items");
  const out = new History();
  if (options.instructions !== undefined) {
    if (typeof options.instructions !== "string") throw new TypeError("instructions: want a string");
    out.add(create(ChatMessageSchema, { role: "system", content: options.instructions }), source(options.instructions, -1, INSTRUCTIONS));
  }
  let run: Json[] = []; // the model's items since the last input item
  let first = 0;
  items.forEach((raw, i) => {
    const here = `items[${i}]`;
    const item = object(raw, here);
    const kind = kindOf(item, here);
    if (kind === "compaction" && run.length > 0) {
      // It opens a message: nothing before it may travel with it.
      out.add(modelMessage(run, `items[${first}:${i}]`), source(run, first, FORMAT));
      run = [];
    }
    if (MODEL_KINDS.has(kind) || (kind === "message" && item.role === "assistant")) {
      if (run.length === 0) first = i;
      run.push(item);
      return;
    }
    if (run.length > 0) {
      out.add(modelMessage(run, `items[${first}:${i}]`), source(run, first, FORMAT));
      run = [];
    }
    let wire: ChatMessage;
    if (kind === "message") {
      const role = item.role === "developer" ? "system" : item.role;
      if (role !== "user" && role !== "system") {
        throw new TypeError(`${here}.role: ${JSON.stringify(item.role)} is not a message role (want user, system, developer or assistant)`);
      }
      wire = create(ChatMessageSchema, { role, content: text(item.content, `${here}.content`) });
    } else if (kind === "function_call_output") {
      wire = create(ChatMessageSchema, { role: "tool", toolCallId: required(item, "call_id", here), content: text(item.output, `${here}.output`) });
    } else {
      throw new TypeError(
        `${here}.type: a ${JSON.stringify(kind)} item cannot be compressed: the sidecar reads message, reasoning, function_call, function_call_output and compaction items; drop it or describe it in a message`,
      );
    }
    out.add(wire, source([item], i, FORMAT));
  });
  if (run.length > 0) out.add(modelMessage(run, `items[${first}:]`), source(run, first, FORMAT));
  return new ResponsesHistory(out);
}

function source(original: unknown, group: number, format: "responses" | "responses:instructions"): Source {
  return { original, group, format, size: 1 };
}

function encrypted(item: Json, what: string): string {
  const data = item.encrypted_content;
  if (data !== undefined && data !== null && typeof data !== "string") throw new TypeError(`${what}.encrypted_content: want a string`);
  return data ?? "";
}

function compactionPart(item: Json, what: string): ContentPart {
  return part("compaction", item, { encrypted_content: true }, { data: encrypted(item, what) });
}

/** A reasoning item as a reasoning part: the texts of its summary (and
 * content) as text, for counting; encrypted_content as data; the rest,
 * summary included, in provider_json, so that the item is rebuilt exactly. */
function reasoningPart(item: Json, what: string): ContentPart {
  const thoughts: string[] = [];
  for (const p of [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])]) {
    const got = object(p, `${what} reasoning`);
    if (typeof got.text === "string") thoughts.push(got.text);
  }
  return part("reasoning", item, { encrypted_content: true }, { text: thoughts.join("\n"), data: encrypted(item, what) });
}

/** The item a reasoning or compaction part was read from, or undefined. */
function partItem(p: ContentPart): Json | undefined {
  if (p.type !== "reasoning" && p.type !== "compaction") return undefined;
  const item: Json = { type: p.type };
  if (p.data) item.encrypted_content = p.data;
  merged(item, p);
  if (p.type === "reasoning" && !("summary" in item)) item.summary = p.text ? [{ type: "summary_text", text: p.text }] : [];
  return item;
}

const key = (p: ContentPart): string => Buffer.from(toBinary(ContentPartSchema, p)).toString("base64");

function kindOf(item: Json, here: string): string {
  if (item.type === undefined && "role" in item) return "message"; // an easy input message: { role, content }
  if (typeof item.type !== "string") throw new TypeError(`${here}.type: missing: want message, reasoning, function_call, function_call_output or compaction`);
  return item.type;
}

function required(item: Json, key: string, here: string): string {
  const v = item[key];
  if (typeof v !== "string" || v === "") throw new TypeError(`${here}.${key}: want a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

/** The text of a message's content or a call's output: a string, null, or
 * parts of which only text parts are read. */
function text(content: unknown, what: string): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TypeError(`${what}: want a string or an array of content parts`);
  return content
    .map((raw, j) => {
      const part = object(raw, `${what}[${j}]`);
      if (typeof part.type === "string" && TEXT_PARTS.has(part.type)) return typeof part.text === "string" ? part.text : "";
      if (part.type === "refusal") return typeof part.refusal === "string" ? part.refusal : "";
      throw new TypeError(`${what}[${j}]: a ${JSON.stringify(part.type)} part cannot be compressed: the sidecar reads text only; send text parts (describe or drop the rest)`);
    })
    .join("\n");
}

/** One wire assistant message of a run of the model's items. */
function modelMessage(run: Json[], what: string): ChatMessage {
  const out = create(ChatMessageSchema, { role: "assistant" });
  const parts: ContentPart[] = [];
  for (const item of run) {
    const kind = item.type ?? "message";
    if (kind === "message") {
      const t = text(item.content, `${what} content`);
      if (t) parts.push(create(ContentPartSchema, { type: "text", text: t }));
    } else if (kind === "reasoning") {
      parts.push(reasoningPart(item, what));
    } else if (kind === "compaction") {
      parts.push(compactionPart(item, what));
    } else {
      out.toolCalls.push(
        create(ChatToolCallSchema, {
          id: required(item, "call_id", what),
          name: required(item, "name", what),
          arguments: typeof item.arguments === "string" ? item.arguments : "",
        }),
      );
    }
  }
  if (parts.some((p) => p.type !== "text")) out.parts = parts; // in item order, so that each reasoning part keeps its place
  else out.content = parts.map((p) => p.text).join("\n");
  return out;
}

/** @internal The prompt's wire messages as Responses API items. */
export function toResponses(prompt: Prompt): ResponsesPrompt {
  let instructions: string | undefined;
  const items: Json[] = [];
  const called = new Set<unknown>();
  prompt.wire.forEach((m, k) => {
    const j = prompt.repeats[k];
    const src = j === null ? undefined : prompt.history.sources[j];
    if (src?.format === INSTRUCTIONS && instructions === undefined && items.length === 0) {
      instructions = src.original as string;
      return;
    }
    if (src === undefined && m.role === "system" && k === 0) {
      instructions = m.content; // the strategy's system prompt
      return;
    }
    let made: Json[];
    if (src?.format === FORMAT) {
      made = structuredClone(src.original as Json[]); // unchanged: the caller's own items
    } else {
      const origin = src ?? changedSource(prompt, k);
      made = fresh(m, origin?.format === FORMAT ? (origin.original as Json[]) : []);
    }
    for (const item of made) {
      if (item.type === "function_call") called.add(item.call_id);
      else if (item.type === "function_call_output" && !called.has(item.call_id)) continue; // an orphan: the API refuses it
      items.push(item);
    }
  });
  return instructions === undefined ? { input: items } : { instructions, input: items };
}

/** The source of a message the strategy changed: for an assistant message,
 * the history's holding one of its tool calls; for a tool message, the
 * history's answering the same call. */
function changedSource(prompt: Prompt, k: number): Source | undefined {
  const m = prompt.wire[k];
  const ids = new Set(m.role === "assistant" ? m.toolCalls.map((c) => c.id) : m.role === "tool" ? [m.toolCallId] : []);
  for (let i = 0; i < prompt.history.wire.length; i++) {
    const wm = prompt.history.wire[i];
    const s = prompt.history.sources[i];
    if (wm.role !== m.role || s.format !== FORMAT) continue;
    const theirs = m.role === "assistant" ? wm.toolCalls.map((c) => c.id) : [wm.toolCallId];
    if (theirs.some((id) => ids.has(id))) return s;
  }
  return undefined;
}

/** Items for a wire message the strategy changed or made, built on the
 * items it came from (original, empty when none). */
function fresh(m: ChatMessage, original: Json[]): Json[] {
  if (m.role === "tool") {
    const kept = original.find((item) => item.type === "function_call_output");
    return [kept ? { ...structuredClone(kept), call_id: m.toolCallId, output: m.content } : { type: "function_call_output", call_id: m.toolCallId, output: m.content }];
  }
  if (m.role !== "assistant") return [{ role: m.role === "system" ? "developer" : m.role, content: m.content }];
  const calls = new Map(m.toolCalls.map((c) => [c.id, c]));
  const texts = m.parts.length > 0 ? m.parts.filter((p) => p.type === "text").map((p) => p.text) : m.content ? [m.content] : [];
  // The reasoning and compaction the message still carries (keep_thinking_turns clears reasoning).
  const keptOpaque = m.parts.filter((p) => p.type === "reasoning" || p.type === "compaction").map(key);
  const out: Json[] = [];
  if (original.length === 0) {
    // A message the history did not hold: its parts in order.
    for (const p of m.parts) {
      const item = partItem(p);
      if (item) out.push(item);
    }
  }
  let pending: Json[] = [];
  for (const item of original) {
    const kind = item.type ?? "message";
    if (kind === "reasoning" || kind === "compaction") {
      const n = keptOpaque.indexOf(key(kind === "reasoning" ? reasoningPart(item, kind) : compactionPart(item, kind)));
      if (n >= 0) {
        keptOpaque.splice(n, 1);
        pending.push(structuredClone(item));
      }
      continue;
    }
    let made: Json;
    if (kind === "message") {
      const had = text(item.content, "content");
      if (!had || texts.length === 0) continue; // no text part stood for it, or the strategy dropped its text
      const t = texts.shift()!;
      made = t === had ? structuredClone(item) : { ...structuredClone(item), content: [{ type: "output_text", text: t, annotations: [] }] };
    } else {
      const call = calls.get(item.call_id as string);
      if (!call) continue; // the strategy dropped this call
      calls.delete(call.id);
      made = { ...structuredClone(item), name: call.name, arguments: call.arguments };
    }
    out.push(...pending, made); // reasoning stays in front of what it preceded
    pending = [];
  }
  out.push(...pending); // nothing followed it (a compaction alone)
  if (texts.length > 0) {
    // Text the source did not hold goes before the calls.
    const at = out.findIndex((item) => item.type === "function_call");
    out.splice(at < 0 ? out.length : at, 0, { role: "assistant", content: texts.join("\n") });
  }
  for (const call of calls.values()) out.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
  return out;
}

function object(v: unknown, what: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new TypeError(`${what}: want an object`);
  return structuredClone(v) as Json;
}
