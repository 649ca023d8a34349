// Chat messages between the providers' shapes and the sidecar's wire.
//
// In: OpenAI Chat Completions messages, or Anthropic Messages messages
// through fromAnthropic. Out: OpenAI messages (Messages.messages) or
// Anthropic parameters (Messages.toAnthropic()). The types here are
// structural copies of the SDKs' (the tests check them against the `openai`
// and `@anthropic-ai/sdk` packages), so the package depends on neither.
//
// The wire ChatMessage holds text, tool calls, a name and reasoning; a
// provider message can hold more (content parts, a refusal, a tool result's
// is_error, a thinking block's signature). Nothing is guessed: a message the
// strategy leaves unchanged comes back as the caller's own message, whole; a
// message the strategy changed or made is written fresh from the wire. Parts
// that are not text (images, audio, files, documents) are refused, naming the
// message, because the sidecar counts and compresses text only.
import { create, toBinary } from "@bufbuild/protobuf";

import { ChatMessageSchema, ChatToolCallSchema, type ChatMessage } from "./gen/ptcsidecar/v1/chat_pb.js";
import type { CacheBreakpoint } from "./models.js";

// ---- the OpenAI shapes ----------------------------------------------------

/** A text content part. */
export interface TextPart {
  type: "text";
  text: string;
}

/** A tool call of an assistant message. */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** An OpenAI Chat Completions message as the package writes it: assignable
 * to the openai package's ChatCompletionMessageParam. */
export type OpenAIMessage =
  | { role: "system"; content: string | TextPart[]; name?: string }
  | { role: "developer"; content: string | TextPart[]; name?: string }
  | { role: "user"; content: string | TextPart[]; name?: string }
  | {
      role: "assistant";
      content: string | null | (TextPart | { type: "refusal"; refusal: string })[];
      name?: string;
      tool_calls?: OpenAIToolCall[];
      refusal?: string | null;
    }
  | { role: "tool"; content: string | TextPart[]; tool_call_id: string };

/** What the package reads as an OpenAI message: the openai package's
 * ChatCompletionMessageParam and ChatCompletionMessage, and the sidecar's
 * own keys (source, sender_id, reasoning). */
export interface OpenAIMessageInput {
  role: string;
  content?: string | null | readonly { type: string; text?: string; refusal?: string }[];
  name?: string;
  tool_calls?: readonly {
    id: string;
    type: string;
    function?: { name: string; arguments: string };
    custom?: { name: string; input: string };
  }[];
  tool_call_id?: string;
  refusal?: string | null;
  source?: string;
  sender_id?: string;
  reasoning?: string;
}

// ---- the Anthropic shapes -------------------------------------------------

/** Anthropic's cache_control. */
export interface CacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** The blocks the package writes, assignable to @anthropic-ai/sdk's
 * ContentBlockParam. Unchanged messages come back with the caller's own
 * blocks, whatever their type. */
export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: CacheControl | null }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: CacheControl | null }
  | { type: "tool_result"; tool_use_id: string; content?: string | { type: "text"; text: string }[]; is_error?: boolean; cache_control?: CacheControl | null }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** An Anthropic message, assignable to @anthropic-ai/sdk's MessageParam. */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}

/** What the package reads as an Anthropic message: @anthropic-ai/sdk's
 * MessageParam and Message. */
export interface AnthropicMessageInput {
  role: string;
  content: string | readonly AnthropicBlockInput[];
}

/** Any content block, read by its type. */
export interface AnthropicBlockInput {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  thinking?: string;
}

/** A prompt as Anthropic Messages parameters: spread it into
 * messages.create({ model, max_tokens, ...prompt }). */
export interface AnthropicPrompt {
  system?: string | { type: "text"; text: string; cache_control?: CacheControl | null }[];
  messages: AnthropicMessage[];
}

// ---- reading --------------------------------------------------------------

type Json = Record<string, unknown>;

/** Where one wire message came from: the caller's message (as plain data),
 * which of the caller's messages it was, in which shape, and how many wire
 * messages that message made. */
export interface Source {
  original: unknown;
  group: number;
  format: "openai" | "anthropic" | "anthropic:system" | "responses" | "responses:instructions";
  size: number;
}

/** A caller's chat log on the wire, with the source of each message. */
export class History {
  readonly wire: ChatMessage[] = [];
  readonly sources: Source[] = [];

  add(m: ChatMessage, source: Source): void {
    this.wire.push(m);
    this.sources.push(source);
  }
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** A message as plain data: a copy of an object (an SDK's class instance by
 * its own enumerable fields). */
function asObject(m: unknown, what: string): Json {
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    throw new TypeError(`${what}: ${m === null ? "null" : Array.isArray(m) ? "an array" : `a ${typeof m}`} is not a message`);
  }
  return structuredClone(m) as Json;
}

function str(d: Json, key: string, what: string): string {
  const v = d[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new TypeError(`${what}.${key}: want a string, got ${typeof v}`);
  return v;
}

/** The wire form of OpenAI Chat Completions messages. The developer role is
 * the system role on the wire; the deprecated function role is refused. */
export function readOpenAI(messages: readonly unknown[], what = "history"): History {
  if (!Array.isArray(messages)) throw new TypeError(`${what}: want an array of messages`);
  const out = new History();
  messages.forEach((m, i) => {
    const here = `${what}[${i}]`;
    const d = asObject(m, here);
    let role = d.role;
    if (role === "developer") role = "system";
    else if (role === "function") {
      throw new TypeError(`${here}.role: the function role (deprecated function calling) has no place on the wire: send the result as a tool message answering a tool_call_id`);
    } else if (typeof role !== "string" || !ROLES.has(role)) {
      throw new TypeError(`${here}.role: ${JSON.stringify(role)} is not a chat role (want system, developer, user, assistant or tool)`);
    }
    const wire = create(ChatMessageSchema, {
      role: role as string,
      content: openaiText(d.content, `${here}.content`),
      name: str(d, "name", here),
      toolCallId: str(d, "tool_call_id", here),
      reasoning: str(d, "reasoning", here),
      source: str(d, "source", here),
      senderId: str(d, "sender_id", here),
    });
    const calls = d.tool_calls ?? [];
    if (!Array.isArray(calls)) throw new TypeError(`${here}.tool_calls: want an array`);
    calls.forEach((c, j) => wire.toolCalls.push(openaiToolCall(c, `${here}.tool_calls[${j}]`)));
    out.add(wire, { original: d, group: i, format: "openai", size: 1 });
  });
  return out;
}

function openaiText(content: unknown, what: string): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TypeError(`${what}: want a string, null or an array of content parts`);
  return content
    .map((part, j) => {
      const p = asObject(part, `${what}[${j}]`);
      if (p.type === "text") return str(p, "text", `${what}[${j}]`);
      if (p.type === "refusal") return str(p, "refusal", `${what}[${j}]`);
      throw new TypeError(`${what}[${j}]: a ${JSON.stringify(p.type)} part cannot be compressed: the sidecar reads text only; send text parts (describe or drop the rest)`);
    })
    .join("\n");
}

function openaiToolCall(call: unknown, what: string) {
  const c = asObject(call, what);
  const kind = c.type ?? "function";
  let name: string, args: string;
  if (kind === "function") {
    const fn = asObject(c.function ?? {}, `${what}.function`);
    [name, args] = [str(fn, "name", `${what}.function`), str(fn, "arguments", `${what}.function`)];
  } else if (kind === "custom") {
    const custom = asObject(c.custom ?? {}, `${what}.custom`);
    [name, args] = [str(custom, "name", `${what}.custom`), str(custom, "input", `${what}.custom`)];
  } else {
    throw new TypeError(`${what}.type: ${JSON.stringify(kind)} is not a tool call type (want function or custom)`);
  }
  if (!c.id) throw new TypeError(`${what}.id: empty: a tool call needs the id its tool message answers`);
  return create(ChatToolCallSchema, { id: str(c, "id", what), name, arguments: args });
}

/** A wire message as an OpenAI message: only fields the API takes, content
 * null for an assistant message that only calls tools. */
export function openaiMessage(m: ChatMessage): OpenAIMessage {
  if (m.role === "tool") return { role: "tool", content: m.content, tool_call_id: m.toolCallId };
  if (m.role === "assistant") {
    const out: OpenAIMessage = { role: "assistant", content: m.content };
    if (m.name) out.name = m.name;
    if (m.toolCalls.length > 0) {
      out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
      if (!m.content) out.content = null;
    }
    return out;
  }
  const out = { role: m.role as "system" | "user", content: m.content } as OpenAIMessage & { name?: string };
  if (m.name) out.name = m.name;
  return out;
}

/** An Anthropic Messages conversation read for toMessages({ history }): made
 * by fromAnthropic; holds the wire messages and, for each, the Anthropic
 * message it came from, so that Messages.toAnthropic() gives unchanged
 * messages back whole (thinking signatures, is_error, citations and
 * cache_control included). */
export class AnthropicHistory {
  /** @internal */
  constructor(readonly history: History) {}

  get length(): number {
    return this.history.wire.length;
  }
}

/** Reads an Anthropic Messages conversation (messages as for
 * messages.create; system the system parameter) for toMessages({ history }).
 * A user message's tool_result blocks become tool messages (before its
 * text), an assistant message's tool_use blocks tool calls and its thinking
 * its reasoning. Image, document and other non-text blocks are refused with
 * the index of the message. */
export function fromAnthropic(
  messages: readonly AnthropicMessageInput[],
  options: { system?: string | readonly { type: string; text?: string }[] } = {},
): AnthropicHistory {
  if (!Array.isArray(messages)) throw new TypeError("messages: want an array of messages");
  const out = new History();
  if (options.system !== undefined) {
    const original = structuredClone(options.system);
    out.add(create(ChatMessageSchema, { role: "system", content: anthropicText(original, "system") }), {
      original,
      group: -1,
      format: "anthropic:system",
      size: 1,
    });
  }
  messages.forEach((m, i) => {
    const here = `messages[${i}]`;
    const d = asObject(m, here);
    const made: ChatMessage[] = [];
    if (d.role === "system") made.push(create(ChatMessageSchema, { role: "system", content: anthropicText(d.content, `${here}.content`) }));
    else if (d.role === "user") made.push(...anthropicUser(d.content, `${here}.content`));
    else if (d.role === "assistant") made.push(anthropicAssistant(d.content, `${here}.content`));
    else throw new TypeError(`${here}.role: ${JSON.stringify(d.role)} is not an Anthropic role (want user or assistant)`);
    for (const wire of made) out.add(wire, { original: d, group: i, format: "anthropic", size: made.length });
  });
  return new AnthropicHistory(out);
}

function blocks(content: unknown, what: string): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw new TypeError(`${what}: want a string or an array of content blocks`);
  return content.map((b, j) => asObject(b, `${what}[${j}]`));
}

function refuse(b: Json, what: string): TypeError {
  return new TypeError(`${what}: a ${JSON.stringify(b.type)} block cannot be compressed: the sidecar reads text, tool use and tool results only; drop it or describe it in text`);
}

function anthropicText(content: unknown, what: string): string {
  if (content === undefined || content === null) return "";
  return blocks(content, what)
    .map((b, j) => {
      if (b.type !== "text") throw refuse(b, `${what}[${j}]`);
      return str(b, "text", `${what}[${j}]`);
    })
    .join("\n");
}

function anthropicUser(content: unknown, what: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  const texts: string[] = [];
  blocks(content, what).forEach((b, j) => {
    if (b.type === "tool_result") {
      out.push(
        create(ChatMessageSchema, {
          role: "tool",
          toolCallId: str(b, "tool_use_id", `${what}[${j}]`),
          content: anthropicText(b.content, `${what}[${j}].content`),
        }),
      );
    } else if (b.type === "text") texts.push(str(b, "text", `${what}[${j}]`));
    else throw refuse(b, `${what}[${j}]`);
  });
  if (texts.length > 0 || out.length === 0) out.push(create(ChatMessageSchema, { role: "user", content: texts.join("\n") }));
  return out;
}

function anthropicAssistant(content: unknown, what: string): ChatMessage {
  const out = create(ChatMessageSchema, { role: "assistant" });
  const texts: string[] = [];
  const thoughts: string[] = [];
  blocks(content, what).forEach((b, j) => {
    if (b.type === "text") texts.push(str(b, "text", `${what}[${j}]`));
    else if (b.type === "tool_use") {
      out.toolCalls.push(
        create(ChatToolCallSchema, { id: str(b, "id", `${what}[${j}]`), name: str(b, "name", `${what}[${j}]`), arguments: JSON.stringify(b.input ?? {}) }),
      );
    } else if (b.type === "thinking") thoughts.push(str(b, "thinking", `${what}[${j}]`));
    else if (b.type !== "redacted_thinking") throw refuse(b, `${what}[${j}]`); // redacted: no text; kept when unchanged
  });
  out.content = texts.join("\n");
  out.reasoning = thoughts.join("\n");
  return out;
}

// ---- writing --------------------------------------------------------------

/** One emitted block that may carry cache_control, with the stretch of the
 * wire message's content it holds, in code points: [start, end), or end null
 * when it follows the content (a tool_use block). */
interface Mark {
  blocks: Json[];
  index: number;
  wire: number;
  start: number;
  end: number | null;
  text: boolean;
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

const cpSlice = (s: string, start: number, end?: number): string => Array.from(s).slice(start, end).join("");

/** A ToMessages response with what is needed to write it for either
 * provider: the output wire messages and, for each, the history message it
 * repeats unchanged (or null). */
export class Prompt {
  readonly repeats: (number | null)[];

  constructor(
    readonly wire: ChatMessage[],
    readonly history: History = new History(),
  ) {
    this.repeats = match(wire, history.wire);
  }

  /** Where the synthetic nudge is: the user message the strategy made,
   * marked with source "system", that repeats nothing in the history. */
  nudgeIndex(): number | null {
    const k = this.wire.findIndex((m, i) => this.repeats[i] === null && m.role === "user" && m.source === "system");
    return k < 0 ? null : k;
  }

  openaiMessages(): OpenAIMessage[] {
    return this.wire.map((m, k) => {
      const j = this.repeats[k];
      const source = j === null ? undefined : this.history.sources[j];
      return source?.format === "openai" ? (structuredClone(source.original) as OpenAIMessage) : openaiMessage(m);
    });
  }

  toAnthropic(breakpoints: readonly CacheBreakpoint[], ttl?: "5m" | "1h"): AnthropicPrompt {
    const system: Json[] = [];
    let systemOriginal: unknown;
    const messages: Json[] = [];
    const marks: Mark[] = [];
    const asText: Json[] = [];
    const whole = this.wholeGroups();
    for (let k = 0; k < this.wire.length; ) {
      const m = this.wire[k];
      const j = this.repeats[k];
      const source = j === null ? undefined : this.history.sources[j];
      if (source?.format === "anthropic:system" && system.length === 0) {
        systemOriginal = structuredClone(source.original);
        system.push(...blocks(systemOriginal, "system"));
        textMarks(marks, system, 0, k);
        k++;
        continue;
      }
      if (m.role === "system") {
        const start = system.length;
        if (m.content) system.push({ type: "text", text: m.content });
        textMarks(marks, system, start, k);
        systemOriginal = undefined;
        k++;
        continue;
      }
      if (whole.has(k) && source) {
        const original = structuredClone(source.original) as Json;
        const target = open(messages, original.role as string);
        const start = target.length;
        target.push(...blocks(original.content, "content"));
        if (start === 0) {
          messages[messages.length - 1] = { ...original, content: target };
          if (typeof original.content === "string") asText.push(messages[messages.length - 1]);
        }
        originalMarks(marks, target, start, k, this.wire.slice(k, k + source.size));
        k += source.size;
        continue;
      }
      fresh(messages, m, k, marks);
      k++;
    }
    const control: CacheControl = ttl ? { type: "ephemeral", ttl } : { type: "ephemeral" };
    for (const point of breakpoints) mark(marks, point.messageIndex, point.offset, control);
    for (const message of asText) {
      const content = message.content as Json[];
      if (content.length === 1 && Object.keys(content[0]).sort().join() === "text,type") message.content = content[0].text;
    }
    const cached = system.some((b) => "cache_control" in b);
    let outSystem: AnthropicPrompt["system"];
    if (system.length === 0) outSystem = undefined;
    else if (systemOriginal !== undefined && !cached) outSystem = systemOriginal as AnthropicPrompt["system"];
    else if (system.length === 1 && !cached && Object.keys(system[0]).sort().join() === "text,type") outSystem = system[0].text as string;
    else outSystem = system as AnthropicPrompt["system"];
    const out: AnthropicPrompt = { messages: messages as unknown as AnthropicMessage[] };
    if (outSystem !== undefined) out.system = outSystem;
    return out;
  }

  /** The output positions where an Anthropic message starts that comes back
   * whole: every wire message it made, unchanged and in a row. */
  private wholeGroups(): Set<number> {
    const out = new Set<number>();
    this.repeats.forEach((j, k) => {
      if (j === null) return;
      const source = this.history.sources[j];
      const previous = this.history.sources[j - 1];
      if (source.format !== "anthropic" || (previous?.format === "anthropic" && previous.group === source.group)) return;
      for (let n = 0; n < source.size; n++) if (this.repeats[k + n] !== j + n) return;
      out.add(k);
    });
    return out;
  }
}

/** The block list new blocks of role go into: the last message's when it has
 * the same role (tool results and the user's text after them share one user
 * message), else a new message's. */
function open(messages: Json[], role: string): Json[] {
  const last = messages.at(-1);
  if (last && last.role === role) {
    if (typeof last.content === "string") last.content = [{ type: "text", text: last.content }];
    return last.content as Json[];
  }
  const content: Json[] = [];
  messages.push({ role, content });
  return content;
}

function fresh(messages: Json[], m: ChatMessage, k: number, marks: Mark[]): void {
  if (m.role === "tool") {
    const target = open(messages, "user");
    target.push({ type: "tool_result", tool_use_id: m.toolCallId, content: m.content });
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: codePoints(m.content), text: false });
    return;
  }
  const target = open(messages, m.role);
  if (m.content) {
    target.push({ type: "text", text: m.content });
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: codePoints(m.content), text: true });
  }
  m.toolCalls.forEach((call, n) => {
    let input: unknown = {};
    if (call.arguments) {
      try {
        input = JSON.parse(call.arguments);
      } catch {
        throw new TypeError(
          `messages[${k}].tool_calls[${n}].arguments: not JSON, and Anthropic's tool_use input must be a JSON object: ${JSON.stringify(call.arguments.slice(0, 80))}`,
        );
      }
    }
    target.push({ type: "tool_use", id: call.id, name: call.name, input });
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: null, text: false });
  });
  if (target.length === 0) messages.pop(); // Anthropic refuses a message without content
}

/** Marks for the text blocks blocks[start:], which hold wire message k's
 * content joined by newlines. */
function textMarks(marks: Mark[], list: Json[], start: number, k: number): void {
  let pos = 0;
  for (let i = start; i < list.length; i++) {
    const n = codePoints(String(list[i].text ?? ""));
    marks.push({ blocks: list, index: i, wire: k, start: pos, end: pos + n, text: true });
    pos += n + 1;
  }
}

/** Marks for the blocks list[start:] of an Anthropic message given back
 * whole, which made the wire messages wire (from k on) as fromAnthropic reads
 * it: one tool message per tool_result, then one message holding the text
 * (and the tool uses of an assistant message). */
function originalMarks(marks: Mark[], list: Json[], start: number, k: number, wire: ChatMessage[]): void {
  const results = list.slice(start).filter((b) => b.type === "tool_result").length;
  let r = 0;
  let pos = 0;
  for (let i = start; i < list.length; i++) {
    const type = list[i].type;
    if (type === "tool_result") {
      marks.push({ blocks: list, index: i, wire: k + r, start: 0, end: codePoints(wire[r].content), text: false });
      r++;
    } else if (type === "text") {
      const n = codePoints(String(list[i].text ?? ""));
      marks.push({ blocks: list, index: i, wire: k + results, start: pos, end: pos + n, text: true });
      pos += n + 1;
    } else if (type === "tool_use") {
      marks.push({ blocks: list, index: i, wire: k + results, start: 0, end: null, text: false });
    }
  }
}

/** Puts cache_control at a breakpoint: on the text block that holds that
 * point, split there, else on the last block that ends at or before it.
 * Never after it: a cached prefix the next call does not repeat is paid for
 * and never read. */
function mark(marks: Mark[], index: number, offset: number, control: CacheControl): void {
  let best: Mark | undefined;
  for (let n = 0; n < marks.length; n++) {
    const b = marks[n];
    const block = b.blocks[b.index];
    if (b.wire === index && b.text && b.end !== null && b.start < offset && offset < b.end && !block.citations) {
      const cut = offset - b.start;
      const text = String(block.text);
      const head: Json = { ...block, text: cpSlice(text, 0, cut), cache_control: control };
      const tail: Json = { ...block, text: cpSlice(text, cut) }; // keeps a mark it had: it ends where the block did
      if (!("cache_control" in block)) delete tail.cache_control;
      b.blocks.splice(b.index, 1, head, tail);
      for (const m of marks) if (m.blocks === b.blocks && m.index > b.index) m.index++;
      marks.splice(n + 1, 0, { ...b, index: b.index + 1, start: offset });
      b.end = offset;
      return;
    }
    if (b.wire < index || (b.wire === index && b.end !== null && b.end <= offset)) best = b;
  }
  if (best) best.blocks[best.index].cache_control = control;
}

/** For each output message, the input message it repeats unchanged, or null.
 * Strategies keep the history's order, so each match is the first equal
 * input after the previous match. */
function match(outputs: ChatMessage[], inputs: ChatMessage[]): (number | null)[] {
  const where = new Map<string, number[]>();
  const key = (m: ChatMessage) => Buffer.from(toBinary(ChatMessageSchema, m)).toString("base64");
  inputs.forEach((m, j) => {
    const k = key(m);
    const list = where.get(k);
    if (list) list.push(j);
    else where.set(k, [j]);
  });
  let last = -1;
  return outputs.map((m) => {
    const next = (where.get(key(m)) ?? []).find((j) => j > last);
    if (next === undefined) return null;
    last = next;
    return next;
  });
}

/** The text of an LLM's reply: a string as it is; an OpenAI ChatCompletion
 * (its first choice), its message, or an Anthropic Message (its text
 * blocks). */
export function replyText(reply: Reply): string {
  if (typeof reply === "string") return reply;
  let d = asObject(reply, "reply");
  if ("choices" in d) {
    const choices = d.choices;
    if (!Array.isArray(choices) || choices.length === 0) throw new TypeError("reply: the completion has no choices");
    d = asObject(asObject(choices[0], "reply.choices[0]").message ?? {}, "reply.choices[0].message");
  }
  const content = d.content;
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TypeError("reply.content: want a string or an array of blocks");
  return content
    .map((b, j) => asObject(b, `reply.content[${j}]`))
    .filter((b) => b.type === "text")
    .map((b, j) => str(b, "text", `reply.content[${j}]`))
    .join("\n");
}

/** An LLM's reply, as step takes it. */
export type Reply =
  | string
  | { role?: string; content?: string | null | readonly { type: string; text?: string }[] }
  | { choices: readonly { message: { content?: string | null } }[] };
