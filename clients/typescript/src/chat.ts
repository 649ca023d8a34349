// Chat messages between the providers' shapes and the sidecar's wire.
//
// In: OpenAI Chat Completions messages, or Anthropic Messages messages
// through fromAnthropic. Out: OpenAI messages (Messages.messages) or
// Anthropic parameters (Messages.toAnthropic()). The types here are
// structural copies of the SDKs' (the tests check them against the `openai`
// and `@anthropic-ai/sdk` packages), so the package depends on neither.
//
// The wire ChatMessage holds text, tool calls, a name, reasoning and content
// parts (images, audio, files, documents, thinking blocks with their
// signatures, redacted thinking, compaction blocks); a provider message can
// hold more (a tool result's is_error, cache_control). Nothing is guessed: a
// message the strategy leaves unchanged comes back as the caller's own
// message, whole; a message the strategy changed or made is written fresh
// from the wire, its parts in order, each rebuilt from the part's fields and
// the provider's own fields the part carries in providerJson.
import { create, toBinary } from "@bufbuild/protobuf";

import {
  ChatMessageSchema,
  ChatToolCallSchema,
  ContentPartSchema,
  type ChatMessage,
  type ContentPart,
} from "./gen/ptcsidecar/v1/chat_pb.js";
import type { CacheBreakpoint } from "./models.js";

// ---- the OpenAI shapes ----------------------------------------------------

/** A text content part. */
export interface TextPart {
  type: "text";
  text: string;
}

/** A user message's content part that is not text. */
export type MediaPart =
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } };

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
  | { role: "user"; content: string | (TextPart | MediaPart)[]; name?: string }
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
  | { type: "redacted_thinking"; data: string }
  | {
      type: "image";
      source:
        | { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string }
        | { type: "url"; url: string }
        | { type: "file"; file_id: string };
      cache_control?: CacheControl | null;
    }
  | {
      type: "document";
      source:
        | { type: "base64"; media_type: "application/pdf"; data: string }
        | { type: "text"; media_type: "text/plain"; data: string }
        | { type: "url"; url: string }
        | { type: "file"; file_id: string };
      title?: string | null;
      cache_control?: CacheControl | null;
    };
// Anthropic's compaction blocks (a beta) are written too, as the caller gave
// them; @anthropic-ai/sdk types them among its beta blocks.

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
      name: str(d, "name", here),
      toolCallId: str(d, "tool_call_id", here),
      reasoning: str(d, "reasoning", here),
      source: str(d, "source", here),
      senderId: str(d, "sender_id", here),
    });
    if (hasMedia(d.content)) wire.parts = (d.content as unknown[]).map((p, j) => openaiPart(p, `${here}.content[${j}]`));
    else wire.content = openaiText(d.content, `${here}.content`);
    const calls = d.tool_calls ?? [];
    if (!Array.isArray(calls)) throw new TypeError(`${here}.tool_calls: want an array`);
    calls.forEach((c, j) => wire.toolCalls.push(openaiToolCall(c, `${here}.tool_calls[${j}]`)));
    out.add(wire, { original: d, group: i, format: "openai", size: 1 });
  });
  return out;
}

/** Whether content is an array of parts holding more than text: then it goes
 * on the wire as parts, in order; text alone goes as a string. */
function hasMedia(content: unknown): boolean {
  return Array.isArray(content) && content.some((p) => typeof p === "object" && p !== null && !["text", "refusal"].includes((p as Json).type as string));
}

/** The fields taken out of a block into a part's own fields: true for a
 * field, a nested map for a nested object's fields. */
/** @internal The fields of a block a part holds itself (a nested object names nested fields). */
export type Taken = { [key: string]: true | Taken };

/** d less the fields taken, or undefined when nothing is left: what
 * providerJson carries. Keys are sorted, as the Python client writes them. */
function without(d: Json, taken: Taken): Json | undefined {
  const rest: Json = {};
  for (const k of Object.keys(d).sort()) {
    const t = taken[k];
    let v = d[k];
    if (t === true) continue;
    if (t !== undefined && typeof v === "object" && v !== null && !Array.isArray(v)) {
      v = without(v as Json, t);
      if (v === undefined) continue;
    }
    rest[k] = v;
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** JSON text with every object's keys sorted, compact: Python's
 * json.dumps(sort_keys=True, separators=(",", ":")), so both clients put
 * the same bytes on the wire. */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Json)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

/** @internal A wire part of a provider block: the fields given, the block's
 * others (less type and taken) in provider_json. */
export function part(type: string, original: Json, taken: Taken, fields: Partial<Omit<ContentPart, "$typeName" | "type">>): ContentPart {
  const out = create(ContentPartSchema, { type, ...fields });
  const rest = without(original, { type: true, ...taken });
  if (rest !== undefined) out.providerJson = sortedJson(rest);
  return out;
}

/** @internal block with the provider's own fields the part carried put back. */
export function merged(block: Json, p: ContentPart): Json {
  if (!p.providerJson) return block;
  const merge = (into: Json, extra: Json) => {
    for (const [k, v] of Object.entries(extra)) {
      const have = into[k];
      if (typeof v === "object" && v !== null && !Array.isArray(v) && typeof have === "object" && have !== null && !Array.isArray(have)) merge(have as Json, v as Json);
      else into[k] = structuredClone(v);
    }
  };
  merge(block, JSON.parse(p.providerJson) as Json);
  return block;
}

/** [media type, base64 data] of a data: URL, or undefined. */
function splitDataUrl(url: string): [string, string] | undefined {
  if (!url.startsWith("data:")) return undefined;
  const k = url.indexOf(";base64,");
  return k < 0 ? undefined : [url.slice(5, k), url.slice(k + 8)];
}

/** An OpenAI content part as a wire part. */
function openaiPart(raw: unknown, what: string): ContentPart {
  const p = asObject(raw, what);
  switch (p.type) {
    case "text":
      return part("text", p, { text: true }, { text: str(p, "text", what) });
    case "refusal": // the text of a refusal; providerJson says it was one
      return part("text", p, { refusal: true }, { text: str(p, "refusal", what) });
    case "image_url": {
      const image = asObject(p.image_url ?? {}, `${what}.image_url`);
      return part("image", p, { image_url: { url: true, detail: true } }, { url: str(image, "url", `${what}.image_url`), detail: str(image, "detail", `${what}.image_url`) });
    }
    case "input_audio": {
      const audio = asObject(p.input_audio ?? {}, `${what}.input_audio`);
      const format = str(audio, "format", `${what}.input_audio`);
      return part("audio", p, { input_audio: { data: true, format: true } }, { data: str(audio, "data", `${what}.input_audio`), mediaType: format ? `audio/${format}` : "" });
    }
    case "file": {
      const f = asObject(p.file ?? {}, `${what}.file`);
      const fileData = str(f, "file_data", `${what}.file`);
      const [mediaType, data] = splitDataUrl(fileData) ?? ["", fileData];
      return part("file", p, { file: { file_data: true, file_id: true } }, { data, mediaType, fileId: str(f, "file_id", `${what}.file`) });
    }
  }
  throw new TypeError(`${what}.type: ${JSON.stringify(p.type)} is not an OpenAI content part (want text, refusal, image_url, input_audio or file)`);
}

/** A wire part as an OpenAI content part, or undefined for a part OpenAI's
 * Chat Completions has no place for (thinking, compaction). */
function openaiBlock(p: ContentPart): Json | undefined {
  switch (p.type) {
    case "text": {
      const extra = p.providerJson ? (JSON.parse(p.providerJson) as Json) : {};
      return merged(extra.type === "refusal" ? { type: "refusal", refusal: p.text } : { type: "text", text: p.text }, p);
    }
    case "image": {
      const url = p.url || (p.data ? `data:${p.mediaType};base64,${p.data}` : "");
      return merged({ type: "image_url", image_url: p.detail ? { url, detail: p.detail } : { url } }, p);
    }
    case "audio":
      return merged({ type: "input_audio", input_audio: { data: p.data, format: p.mediaType.replace(/^audio\//, "") } }, p);
    case "file":
    case "document": {
      if (p.text) return { type: "text", text: p.text };
      const file: Json = {};
      if (p.data) file.file_data = p.mediaType ? `data:${p.mediaType};base64,${p.data}` : p.data;
      if (p.fileId) file.file_id = p.fileId;
      return merged({ type: "file", file }, p);
    }
  }
  return undefined;
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
      throw new TypeError(`${what}[${j}]: a ${JSON.stringify(p.type)} part has no text: send it as a content part`);
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
  let content: string | Json[] = m.content;
  if (m.parts.length > 0) {
    const list = m.parts.map(openaiBlock).filter((b): b is Json => b !== undefined);
    // Only a user message takes media; elsewhere (and for text alone) the
    // texts are joined.
    content = m.role === "user" && list.some((b) => b.type !== "text") ? list : list.filter((b) => b.type === "text").map((b) => String(b.text)).join("\n");
  }
  if (m.role === "tool") return { role: "tool", content: content as string, tool_call_id: m.toolCallId };
  if (m.role === "assistant") {
    const out: OpenAIMessage = { role: "assistant", content: content as string };
    if (m.name) out.name = m.name;
    if (m.toolCalls.length > 0) {
      out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
      if (!content) out.content = null;
    }
    return out;
  }
  const out = { role: m.role as "system" | "user", content } as OpenAIMessage & { name?: string };
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
 * text), an assistant message's tool_use blocks tool calls. A message holding
 * only text (besides tool use and results) goes on the wire as text; one
 * holding image, document, thinking, redacted_thinking or compaction blocks
 * goes as parts, in order, each block's own fields the part does not hold
 * kept in its providerJson. Other blocks are refused naming the message. */
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
  return new TypeError(
    `${what}: a ${JSON.stringify(b.type)} block has no place on the wire (want text, image, document, thinking, redacted_thinking, compaction, tool_use or tool_result)`,
  );
}

const MEDIA_BLOCKS = new Set(["image", "document", "thinking", "redacted_thinking", "compaction"]);

/** An Anthropic content block (not tool use or result) as a wire part. */
function anthropicPart(b: Json, what: string): ContentPart {
  switch (b.type) {
    case "text":
      return part("text", b, { text: true }, { text: str(b, "text", what) });
    case "image":
    case "document": {
      const kind = b.type;
      const src = asObject(b.source ?? {}, `${what}.source`);
      const at = `${what}.source`;
      switch (src.type) {
        case "base64":
          return part(kind, b, { source: { type: true, media_type: true, data: true } }, { mediaType: str(src, "media_type", at), data: str(src, "data", at) });
        case "url":
          return part(kind, b, { source: { type: true, url: true } }, { url: str(src, "url", at) });
        case "file":
          return part(kind, b, { source: { type: true, file_id: true } }, { fileId: str(src, "file_id", at) });
        case "text":
          return part(kind, b, { source: { type: true, media_type: true, data: true } }, { mediaType: str(src, "media_type", at), text: str(src, "data", at) });
      }
      throw new TypeError(`${at}.type: ${JSON.stringify(src.type)} is not a source the wire holds (want base64, url, file or text)`);
    }
    case "thinking":
      return part("thinking", b, { thinking: true, signature: true }, { text: str(b, "thinking", what), signature: str(b, "signature", what) });
    case "redacted_thinking":
      return part("redacted_thinking", b, { data: true }, { data: str(b, "data", what) });
    case "compaction": {
      const summary = typeof b.content === "string";
      return part("compaction", b, summary ? { content: true, signature: true } : { signature: true }, {
        text: summary ? (b.content as string) : "",
        signature: str(b, "signature", what),
      });
    }
  }
  throw refuse(b, what);
}

/** A wire part as an Anthropic content block. */
function anthropicBlock(p: ContentPart): Json {
  switch (p.type) {
    case "image":
    case "document":
    case "file":
    case "audio": {
      let source: Json;
      const inline = p.url ? splitDataUrl(p.url) : undefined;
      if (p.data) source = { type: "base64", media_type: p.mediaType, data: p.data };
      else if (p.fileId) source = { type: "file", file_id: p.fileId };
      else if (inline) source = { type: "base64", media_type: inline[0], data: inline[1] };
      else if (p.url) source = { type: "url", url: p.url };
      else source = { type: "text", media_type: p.mediaType || "text/plain", data: p.text };
      return merged({ type: p.type === "image" ? "image" : "document", source }, p);
    }
    case "thinking":
      return merged({ type: "thinking", thinking: p.text, signature: p.signature }, p);
    case "redacted_thinking":
      return merged({ type: "redacted_thinking", data: p.data }, p);
    case "compaction": {
      const block: Json = { type: "compaction" };
      if (p.text) block.content = p.text;
      if (p.signature) block.signature = p.signature;
      return merged(block, p);
    }
  }
  return merged({ type: "text", text: p.text }, p); // text, and a reasoning item's summary
}

/** Sets into's content from list (less blocks of the types skipped): their
 * text joined when they hold only text, else every block as a part. */
function anthropicParts(list: Json[], what: string, into: ChatMessage, skip: string[] = []): void {
  const kept = list.map((b, j) => [j, b] as const).filter(([, b]) => !skip.includes(b.type as string));
  if (kept.some(([, b]) => MEDIA_BLOCKS.has(b.type as string))) {
    into.parts = kept.map(([j, b]) => anthropicPart(b, `${what}[${j}]`));
    return;
  }
  into.content = kept
    .map(([j, b]) => {
      if (b.type !== "text") throw refuse(b, `${what}[${j}]`);
      return str(b, "text", `${what}[${j}]`);
    })
    .join("\n");
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
  const list = blocks(content, what);
  list.forEach((b, j) => {
    if (b.type !== "tool_result") return;
    const result = create(ChatMessageSchema, { role: "tool", toolCallId: str(b, "tool_use_id", `${what}[${j}]`) });
    if (b.content !== undefined && b.content !== null) anthropicParts(blocks(b.content, `${what}[${j}].content`), `${what}[${j}].content`, result);
    out.push(result);
  });
  const user = create(ChatMessageSchema, { role: "user" });
  anthropicParts(list, what, user, ["tool_result"]);
  if (user.content || user.parts.length > 0 || out.length === 0) out.push(user);
  return out;
}

function anthropicAssistant(content: unknown, what: string): ChatMessage {
  const out = create(ChatMessageSchema, { role: "assistant" });
  const list = blocks(content, what);
  list.forEach((b, j) => {
    if (b.type === "tool_use") {
      out.toolCalls.push(
        create(ChatToolCallSchema, { id: str(b, "id", `${what}[${j}]`), name: str(b, "name", `${what}[${j}]`), arguments: JSON.stringify(b.input ?? {}) }),
      );
    }
  });
  anthropicParts(list, what, out, ["tool_use"]);
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

  /** Where the synthetic nudge is: the last message, a user message the
   * strategy made (source "system", repeating nothing in the history).
   * Ledger notes are marked the same way but never come last. */
  nudgeIndex(): number | null {
    const k = this.wire.length - 1;
    const m = this.wire[k];
    return m !== undefined && this.repeats[k] === null && m.role === "user" && m.source === "system" ? k : null;
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
    target.push({ type: "tool_result", tool_use_id: m.toolCallId, content: m.parts.length > 0 ? m.parts.map(anthropicBlock) : m.content });
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: codePoints(m.content), text: false });
    return;
  }
  const target = open(messages, m.role);
  if (m.content) {
    target.push({ type: "text", text: m.content });
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: codePoints(m.content), text: true });
  }
  for (const p of m.parts) {
    // A message of parts: a breakpoint at its end (offset 0) marks its last block.
    target.push(anthropicBlock(p));
    marks.push({ blocks: target, index: target.length - 1, wire: k, start: 0, end: 0, text: false });
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
    } else if (results < wire.length && wire[results].parts.length > 0 && type !== "tool_use") {
      marks.push({ blocks: list, index: i, wire: k + results, start: 0, end: 0, text: false });
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
