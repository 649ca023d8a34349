// OpenAI Responses API input items, and the Agents SDK's session items.
//
// In: fromResponses(items) reads the items of a Responses API input (or an
// Agents SDK session's getItems(), the same items) for toMessages({ history
// }). Out: Messages.toResponses() gives the prompt as Responses API input
// items with instructions, for responses.create({ ...prompt, model }).
//
// Mapping. A run of consecutive items the model wrote (reasoning, assistant
// messages, function calls: one response's output) is one assistant message
// on the wire: its text, its reasoning summaries as reasoning, its calls as
// tool calls. function_call_output is a tool message; user, system and
// developer messages are messages of that role. A compaction item travels
// as a user message holding a marker, "[compaction <id>]", so that a
// strategy sees it in place.
//
// Nothing is lost of what the strategy keeps: a wire message that comes back
// unchanged is written as the caller's own items, whole (ids, status,
// encrypted_content, annotations). One the strategy changed is written from
// its source's items where they still hold: each reasoning item stays in
// front of the items it preceded, a kept call keeps its id and status with
// the new arguments, and a reasoning item is dropped only when nothing it
// preceded is left. A function_call_output whose call is not in the output
// is never written: the API refuses it.

import { create } from "@bufbuild/protobuf";

import { History, type Prompt, type Source } from "./chat.js";
import { ChatMessageSchema, ChatToolCallSchema, type ChatMessage } from "./gen/ptcsidecar/v1/chat_pb.js";

type Json = Record<string, unknown>;

const FORMAT = "responses";
const INSTRUCTIONS = "responses:instructions";
const TEXT_PARTS = new Set(["input_text", "output_text", "text"]);

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
    if (kind === "reasoning" || kind === "function_call" || (kind === "message" && item.role === "assistant")) {
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
    } else if (kind === "compaction") {
      wire = create(ChatMessageSchema, { role: "user", content: compactionMarker(item, i) });
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

/** The text a compaction item travels as: its id, else its position. */
function compactionMarker(item: Json, index: number): string {
  return `[compaction ${typeof item.id === "string" && item.id ? item.id : `at item ${index}`}]`;
}

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
  const texts: string[] = [];
  const thoughts: string[] = [];
  for (const item of run) {
    const kind = item.type ?? "message";
    if (kind === "message") {
      texts.push(text(item.content, `${what} content`));
    } else if (kind === "reasoning") {
      const parts = [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])];
      for (const p of parts) {
        const part = object(p, `${what} reasoning`);
        if (typeof part.text === "string") thoughts.push(part.text);
      }
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
  out.content = texts.filter((t) => t).join("\n");
  out.reasoning = thoughts.join("\n");
  return out;
}

/** @internal The prompt's wire messages as Responses API items. */
export function toResponses(prompt: Prompt): ResponsesPrompt {
  let instructions: string | undefined;
  const items: Json[] = [];
  const called = new Set<unknown>();
  const markers = compactions(prompt.history);
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
    } else if (m.role === "user" && markers.has(m.content)) {
      made = [structuredClone(markers.get(m.content)!)];
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

/** The compaction items of a history, by the text they travel as. */
function compactions(history: History): Map<string, Json> {
  const out = new Map<string, Json>();
  history.wire.forEach((m, i) => {
    const s = history.sources[i];
    const original = s.original as Json[];
    if (s.format === FORMAT && original.length === 1 && original[0].type === "compaction") out.set(m.content, original[0]);
  });
  return out;
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
  const out: Json[] = [];
  let pendingReasoning: Json[] = [];
  let wroteText = !m.content;
  for (const item of original) {
    const kind = item.type ?? "message";
    if (kind === "reasoning") {
      pendingReasoning.push(structuredClone(item));
      continue;
    }
    let made: Json;
    if (kind === "message") {
      if (wroteText) continue;
      made = { ...structuredClone(item), content: [{ type: "output_text", text: m.content, annotations: [] }] };
      wroteText = true;
    } else {
      const call = calls.get(item.call_id as string);
      if (!call) continue; // the strategy dropped this call
      calls.delete(call.id);
      made = { ...structuredClone(item), name: call.name, arguments: call.arguments };
    }
    out.push(...pendingReasoning, made); // reasoning stays in front of what it preceded
    pendingReasoning = [];
  }
  if (!wroteText) {
    // Text the source did not hold goes before the calls.
    const at = out.findIndex((item) => item.type === "function_call");
    out.splice(at < 0 ? out.length : at, 0, { role: "assistant", content: m.content });
  }
  for (const call of calls.values()) out.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
  return out;
}

function object(v: unknown, what: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new TypeError(`${what}: want an object`);
  return structuredClone(v) as Json;
}
