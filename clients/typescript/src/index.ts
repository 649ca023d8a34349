/**
 * TypeScript client for ptc-sidecar.
 *
 * ```ts
 * const client = new Client("127.0.0.1:50051");
 * const turn = await client.evalTurn({ program, tools: { search }, data: { budget: 100 } });
 * turn.result; turn.toolCalls; turn.prints;        // native JS values
 * const { messages } = await client.toMessages([turn], { mission: "...", tools: { search } });
 * ```
 *
 * Values arrive as native values read from their JSON form, integers beyond
 * 2^53 as BigInt; a value with no JSON form arrives as an EDN object
 * (docs/VALUES.md). Memory is opaque: pass a Turn's memory back. A refused
 * call throws SidecarError with the gRPC code and the request field.
 */
export {
  Client,
  fromWire,
  toWire,
  type ChatCompletionMessage,
  type ClientOptions,
  type EvalTurnOptions,
  type Messages,
  type Strategy,
  type ToMessagesOptions,
  type Tool,
  type ToolCall,
  type ToolFunction,
  type Tools,
  type Turn,
  type TurnError,
} from "./client.js";
export { SidecarError, badRequestViolations, type FieldViolation } from "./errors.js";
export { EDN, parseJSON, stringifyJSON, type Native } from "./values.js";
export { Code } from "@connectrpc/connect";
