/**
 * TypeScript client for ptc-sidecar.
 *
 * ```ts
 * const client = new Client("127.0.0.1:50051");
 * const run = client.run({ mission: "...", tools: { search }, data: { budget: 100 } });
 * while (!run.done) {
 *   const { messages } = await run.nextMessages({ signal });     // OpenAI messages
 *   await run.step(await myLLM(messages), { signal });             // tools run here
 *   await writeFile("run.json", JSON.stringify(run));              // the whole state
 * }
 * console.log(run.result);
 * ```
 *
 * A run resumes from its JSON with client.resume(saved, { tools }). Values
 * arrive as native values read from their JSON form, integers beyond 2^53 as
 * BigInt; a value with no JSON form arrives as an EDN object
 * (docs/VALUES.md). Errors are SidecarError and its subclasses.
 */
export { Client, Messages, type CallOptions, type ClientOptions, type EvalTurnOptions, type ToMessagesOptions } from "./client.js";
export { type Balancing } from "./pool.js";
export { Run, RUN_VERSION, type RunOptions, type RunStatus, type SavedRun } from "./run.js";
export { ResponsesHistory, fromResponses, type ResponsesPrompt } from "./responses.js";
export { PROGRAM_TOOL, programCall, type ProgramCallInput, type ProgramTool, type ToolCallReply } from "./toolcall.js";
export { Memory, Turn, fromWire, type Binding, type CacheBreakpoint, type Stats, type Strategy, type ToolCall, type TurnError, type TurnWarning } from "./models.js";
export { toWire, type Limits, type OptionFields, type Tool, type ToolContext, type ToolFunction, type Tools } from "./requests.js";
export {
  AnthropicHistory,
  fromAnthropic,
  replyText,
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicMessageInput,
  type AnthropicPrompt,
  type CacheControl,
  type OpenAIMessage,
  type OpenAIMessageInput,
  type OpenAIToolCall,
  type Reply,
  type TextPart,
} from "./chat.js";
export {
  CanceledError,
  ClientClosedError,
  DeadlineExceededError,
  InvalidArgumentError,
  ResourceExhaustedError,
  RunFailedError,
  RunFinishedError,
  SidecarError,
  UnavailableError,
  badRequestViolations,
  type FieldViolation,
} from "./errors.js";
export { SummaryRequest, summaryRequestMessages, type Summariser, type Summary } from "./summary.js";
export { EDN, parseJSON, stringifyJSON, type Native } from "./values.js";
export { VERSION } from "./version.js";
export { Code } from "@connectrpc/connect";
