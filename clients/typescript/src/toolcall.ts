// The program as a tool call (option programForm "tool_call"): the LLM calls
// one function tool, run_ptc_lisp, with {"program": "..."} instead of
// writing a fenced block. Messages.tools (anthropicTools, responsesTools) is
// the tool's definition in each provider's shape, from the stats'
// programTool; programCall finds the call in an LLM's reply, in any of the
// shapes step takes, so that a run sends it to EvalTurn as programCall;
// asToolCall reads one call the caller found itself, for evalTurn's
// programCall.

import { create } from "@bufbuild/protobuf";

import { replyText, type Reply } from "./chat.js";
import { ChatToolCallSchema, type ChatToolCall } from "./gen/ptcsidecar/v1/chat_pb.js";

export const PROGRAM_TOOL = "run_ptc_lisp";

/** The program tool's definition, as the stats carry it. */
export interface ProgramTool {
  name: string;
  description: string;
  /** The JSON schema of the arguments, as JSON text. */
  parameters: string;
}

/** A reply that calls tools, in the shapes step takes besides Reply's. */
export type ToolCallReply =
  | { role?: string; content?: unknown; tool_calls?: readonly unknown[] }
  | { choices: readonly { message: { content?: unknown; tool_calls?: readonly unknown[] } }[] }
  | { output: readonly unknown[] }
  | readonly unknown[];

type Json = Record<string, unknown>;

/** The program tool as Chat Completions tools ([] when there is none). */
export function openaiTools(tool: ProgramTool | null): Json[] {
  if (!tool) return [];
  return [{ type: "function", function: { name: tool.name, description: tool.description, parameters: JSON.parse(tool.parameters) } }];
}

/** The program tool as Anthropic Messages tools. */
export function anthropicTools(tool: ProgramTool | null): Json[] {
  if (!tool) return [];
  return [{ name: tool.name, description: tool.description, input_schema: JSON.parse(tool.parameters) }];
}

/** The program tool as OpenAI Responses API (and Agents SDK) function tools. */
export function responsesTools(tool: ProgramTool | null): Json[] {
  if (!tool) return [];
  return [{ type: "function", name: tool.name, description: tool.description, parameters: JSON.parse(tool.parameters), strict: true }];
}

/** The first run_ptc_lisp call a reply makes and the reply's text beside it,
 * or a null call and the reply's text when it makes none. Calls of other
 * tools are not the run's and are left out; the prompt asks for one call per
 * reply, and a second is ignored. */
export function programCall(reply: Reply | ToolCallReply): { call: ChatToolCall | null; text: string } {
  if (typeof reply === "string") return { call: null, text: reply };
  if (Array.isArray(reply)) return responsesCall(reply, "reply");
  let d = object(reply, "reply");
  if (Array.isArray(d.output)) return responsesCall(d.output, "reply.output");
  if ("choices" in d) {
    const choices = d.choices;
    if (!Array.isArray(choices) || choices.length === 0) throw new TypeError("reply: the completion has no choices");
    d = object(object(choices[0], "reply.choices[0]").message ?? {}, "reply.choices[0].message");
  }
  const text = replyText(d as Reply);
  for (const [i, c] of (Array.isArray(d.tool_calls) ? d.tool_calls : []).entries()) {
    const call = object(c, `reply.tool_calls[${i}]`);
    const fn = object(call.function ?? {}, `reply.tool_calls[${i}].function`);
    if (fn.name === PROGRAM_TOOL) return { call: toolCall(call.id, fn.arguments), text };
  }
  for (const [i, b] of (Array.isArray(d.content) ? d.content : []).entries()) {
    const block = object(b, `reply.content[${i}]`);
    if (block.type === "tool_use" && block.name === PROGRAM_TOOL) return { call: toolCall(block.id, block.input), text };
  }
  return { call: null, text };
}

/** A tool call as evalTurn's programCall takes it: an OpenAI Chat
 * Completions tool call, an Anthropic tool_use block, a Responses API
 * function_call item, or a ChatToolCall. The server checks that it calls
 * run_ptc_lisp and reads its arguments. */
export type ProgramCallInput =
  | { id?: string; type?: string; function: { name: string; arguments?: string } }
  | { type: "tool_use"; id?: string; name: string; input?: unknown }
  | { type: "function_call"; call_id?: string; name: string; arguments?: string }
  | ChatToolCall;

/** @internal One tool call as the wire's ChatToolCall (see ProgramCallInput);
 * what names it in errors. */
export function asToolCall(call: ProgramCallInput, what: string): ChatToolCall {
  if (typeof call !== "object" || call === null || Array.isArray(call)) {
    throw new TypeError(`${what}: want a tool call (OpenAI's, an Anthropic tool_use block or a Responses function_call item), got ${typeof call}: give a program as program`);
  }
  if ("$typeName" in call) return call as ChatToolCall;
  const d = call as Json;
  const name = (v: unknown) => (typeof v === "string" ? v : "");
  if ((typeof d.function === "object" && d.function !== null) || d.type === "function") {
    const fn = object(d.function ?? {}, `${what}.function`);
    return named(d.id, name(fn.name), fn.arguments);
  }
  if (d.type === "tool_use") return named(d.id, name(d.name), d.input);
  if (d.type === "function_call") return named(d.call_id, name(d.name), d.arguments);
  throw new TypeError(`${what}.type: ${JSON.stringify(d.type)} is not a tool call: want an OpenAI tool call (type function), an Anthropic tool_use block or a Responses API function_call item`);
}

/** @internal What a run in tool-call form sends as programCall for a reply
 * that made no call: an empty call, so that the server's no_program hint
 * tells the LLM to call run_ptc_lisp rather than to write a fenced block. */
export function noCall(): ChatToolCall {
  return create(ChatToolCallSchema, {});
}

/** The run_ptc_lisp function_call among Responses API output items, and the
 * text of their output messages. */
function responsesCall(items: readonly unknown[], what: string): { call: ChatToolCall | null; text: string } {
  const texts: string[] = [];
  let call: ChatToolCall | null = null;
  for (const [i, it] of items.entries()) {
    const item = object(it, `${what}[${i}]`);
    if (item.type === "message") {
      if (typeof item.content === "string") texts.push(item.content);
      for (const p of Array.isArray(item.content) ? item.content : []) {
        const part = object(p, `${what}[${i}].content`);
        if ((part.type === "output_text" || part.type === "input_text" || part.type === "text") && typeof part.text === "string") texts.push(part.text);
      }
    } else if (item.type === "function_call" && item.name === PROGRAM_TOOL && call === null) {
      call = toolCall(item.call_id, item.arguments);
    }
  }
  return { call, text: texts.join("\n") };
}

/** A wire tool call of the program tool: OpenAI's arguments are text (passed
 * on as they are, for the server to read), Anthropic's a parsed object. */
function toolCall(id: unknown, args: unknown): ChatToolCall {
  return named(id, PROGRAM_TOOL, args);
}

function named(id: unknown, name: string, args: unknown): ChatToolCall {
  const text = typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args);
  return create(ChatToolCallSchema, { id: typeof id === "string" ? id : "", name, arguments: text });
}

function object(v: unknown, what: string): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new TypeError(`${what}: want an object`);
  return v as Json;
}
