// Summaries written by the caller's model (strategies summarize and
// summarize-turns): the sidecar asks for one in a response, the caller's
// model writes it, and the next request sends it back with what it covers.
import { create } from "@bufbuild/protobuf";

import type { OpenAIMessage } from "./chat.js";
import type { ChatMessage } from "./gen/ptcsidecar/v1/chat_pb.js";
import { SummarySchema, type Summary as SummaryProto, type ToMessagesResponse } from "./gen/ptcsidecar/v1/compression_pb.js";

/** A summary the caller's model wrote for a SummaryRequest: its text, and
 * through, askedAt and digest copied from the request, by which the sidecar
 * checks that it is sent with the messages it covers. */
export interface Summary {
  readonly text: string;
  readonly through: number;
  readonly askedAt: number;
  readonly digest: string;
}

/** A function that writes a summary: it takes the OpenAI messages of a
 * summary request (a prompt an earlier call sent, then the instruction) and
 * returns the model's answer. */
export type Summariser = (messages: OpenAIMessage[]) => string | Promise<string>;

/** The summary the sidecar asks the caller's model for: send messages to
 * the model, and its answer back as summary(text). */
export class SummaryRequest {
  constructor(
    readonly messages: OpenAIMessage[],
    readonly through: number,
    readonly askedAt: number,
    readonly digest: string,
  ) {}

  /** The Summary that sends text back for this request. */
  summary(text: string): Summary {
    if (typeof text !== "string" || text.trim() === "") {
      throw new TypeError(`summariser: a summary is the text the model wrote (a non-empty string), got ${JSON.stringify(text)?.slice(0, 80)}`);
    }
    return { text, through: this.through, askedAt: this.askedAt, digest: this.digest };
  }
}

/** The wire messages a ToMessagesResponse's summaryRequest asks the
 * caller's model to summarise: the response's first prefixMessages
 * messages, then the request's own (the instruction). Either form of
 * summary request (option summaryRequestForm "prefix" or "whole") gives
 * the same list; [] when the response asks for no summary. */
export function summaryRequestMessages(response: ToMessagesResponse): ChatMessage[] {
  const r = response.summaryRequest;
  if (r === undefined) return [];
  if (r.prefixMessages > response.messages.length) {
    throw new RangeError(`summaryRequest.prefixMessages is ${r.prefixMessages}, but the response holds ${response.messages.length} messages`);
  }
  return [...response.messages.slice(0, r.prefixMessages), ...r.messages];
}

/** The wire form of a Summary given as toMessages' summary option. */
export function summaryProto(s: Summary | null | undefined): SummaryProto | undefined {
  if (s === null || s === undefined) return undefined;
  if (typeof s !== "object" || typeof s.text !== "string" || !Number.isInteger(s.through) || !Number.isInteger(s.askedAt) || typeof s.digest !== "string") {
    throw new TypeError("summary: want a Summary ({ text, through, askedAt, digest }: the previous Messages.summary)");
  }
  return create(SummarySchema, { text: s.text, through: s.through, askedAt: s.askedAt, digest: s.digest });
}

/** The Summary of a wire one. */
export function summaryOf(p: SummaryProto | undefined): Summary | null {
  return p ? { text: p.text, through: p.through, askedAt: p.askedAt, digest: p.digest } : null;
}

/** Checks that a summariser is a function. */
export function checkSummariser(summariser: unknown): Summariser {
  if (typeof summariser !== "function") throw new TypeError(`summariser: want a function of the summary request's messages, got ${typeof summariser}`);
  return summariser as Summariser;
}
