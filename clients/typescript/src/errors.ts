// The errors the package throws: one base class and a subclass per thing a
// caller handles differently (fix the request, wait, give up, look at the
// run).
//
//   SidecarError
//   ├── InvalidArgumentError     the request is wrong: fix the field named
//   ├── ResourceExhaustedError   the sidecar is busy, or the request too large
//   ├── UnavailableError         no sidecar answered, after the retries
//   ├── DeadlineExceededError    the call's timeoutMs ran out
//   ├── CanceledError            the call's AbortSignal fired
//   ├── ClientClosedError        a call on a closed client
//   ├── RunFinishedError         a run asked for more after it ended
//   └── RunFailedError           a run's result asked for when it has none
import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** One bad field of a request: its path and what is wrong with it. `option`
 * names the package's option the field comes from (camelCase, e.g.
 * `maxTurns` for `options.max_turns`), when there is one. */
export interface FieldViolation {
  field: string;
  description: string;
  option?: string;
}

// The sidecar's messages start with the field they are about:
// "turns[0].result.edn: parse_error ...".
const FIELD_PREFIX = /^([a-z_][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z_][a-z0-9_]*(?:\[\d+\])?)*): /;
// gRPC's refusal of a message over the receiver's size limit, which no retry
// can change.
const TOO_LARGE = /larger than max/;

/** The base of every error the package throws. */
export class SidecarError extends Error {
  /** The gRPC status code (Code.InvalidArgument is 3, ...), or null when no
   * RPC answered with one. */
  readonly code: Code | null;
  /** The code's name, e.g. "InvalidArgument", or null. */
  readonly codeName: string | null;
  /** The first violation's field (e.g. "data"), or null. */
  readonly field: string | null;
  /** Every bad field the server listed: google.rpc.BadRequest details when
   * it sends them, else the field its message names. */
  readonly violations: FieldViolation[];
  /** The server's own message, without the advice `message` adds. */
  readonly rawMessage: string;

  constructor(message: string, options: { code?: Code | null; rawMessage?: string; violations?: FieldViolation[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? null;
    this.codeName = this.code === null ? null : Code[this.code];
    this.rawMessage = options.rawMessage ?? message;
    this.violations = options.violations ?? [];
    this.field = this.violations[0]?.field ?? null;
  }
}

/** The sidecar refused the request as malformed (InvalidArgument):
 * `violations` names each bad field; fix it and send again. */
export class InvalidArgumentError extends SidecarError {}

/** ResourceExhausted: the sidecar was at its most evaluations at once
 * through every retry, or the request is over its size limit. */
export class ResourceExhaustedError extends SidecarError {}

/** Unavailable through every retry: no sidecar answered at the target. */
export class UnavailableError extends SidecarError {}

/** The call's timeoutMs ran out. For evalTurn it covers the whole
 * evaluation, the tools' time included. */
export class DeadlineExceededError extends SidecarError {}

/** The call's AbortSignal fired; `cause` is the signal's reason. */
export class CanceledError extends SidecarError {}

/** A call on a client after close(). */
export class ClientClosedError extends SidecarError {}

/** nextMessages() or step() on a run that has returned, failed or used its
 * turns. */
export class RunFinishedError extends SidecarError {}

/** A run's result was asked for, and the run has none: its program called
 * (fail ...), or it used every turn without returning. */
export class RunFailedError extends SidecarError {
  constructor(
    message: string,
    /** "failed" or "outOfTurns". */
    readonly status: "failed" | "outOfTurns",
    /** The run's last turn. */
    readonly turn: unknown,
  ) {
    super(message);
  }
}

/** What the error's advice needs to know about the call that failed. */
export interface CallContext {
  method: string;
  target: string;
  timeoutMs: number | null;
  attempts: number;
  elapsedMs: number;
}

// The codes Node's HTTP/2 gives a call whose connection went away under it
// (a stream reset is Canceled, a reset socket Aborted): the sidecar answers
// neither itself, and the caller's own cancellation is told apart before
// these are looked at.
const CONNECTION_LOST = new Set([Code.Unavailable, Code.Canceled, Code.Aborted]);

// A stream the server refused (HTTP/2 REFUSED_STREAM, as a sidecar going
// away or restarting sends for the streams it will not start) was never
// processed: gRPC counts it as Unavailable, but Node reports it as a
// stream error that arrives here as Internal.
const REFUSED_STREAM = /NGHTTP2_REFUSED_STREAM/;

/** Whether trying the same request again may succeed: the sidecar was
 * unreachable, restarting or busy. Every RPC of the sidecar is pure, so a
 * retry repeats no effect; a request over the size limit fails the same way
 * every time. */
export function isRetryable(err: ConnectError): boolean {
  if (err.code === Code.ResourceExhausted) return !TOO_LARGE.test(err.rawMessage);
  return CONNECTION_LOST.has(err.code) || REFUSED_STREAM.test(err.rawMessage);
}

/** The package's error for what a call threw, with advice on what to do. */
export function errorFromRpc(err: unknown, ctx: CallContext): SidecarError {
  if (err instanceof SidecarError) return err;
  const ce = ConnectError.from(err);
  const raw = ce.rawMessage;
  const violations = fieldViolations(ce);
  const tries = `${ctx.attempts} attempt${ctx.attempts === 1 ? "" : "s"} over ${(ctx.elapsedMs / 1000).toFixed(1)} s`;
  switch (ce.code) {
    case Code.InvalidArgument: {
      const named = violations.map((v) => (v.option ? `${v.field} is the option ${v.option}` : "")).filter(Boolean);
      const more = violations.slice(1).map((v) => `${v.field}: ${v.description}`);
      const text =
        `InvalidArgument: ${raw}` + (more.length ? ` (also ${more.join("; ")})` : "") + (named.length ? ` [${named.join("; ")}]` : "");
      return new InvalidArgumentError(text, { code: ce.code, rawMessage: raw, violations, cause: err });
    }
    case Code.DeadlineExceeded:
      return deadlineError(ctx, raw, err);
    case Code.Unavailable:
    case Code.Canceled: // by the connection, not the caller: see CONNECTION_LOST
    case Code.Aborted:
      return new UnavailableError(
        `${Code[ce.code]}: ${raw} (${ctx.method} to ${ctx.target}, ${tries}): check that the sidecar runs there ` +
          "(ptc-sidecar serve), or raise maxRetries to wait longer through a restart",
        { code: ce.code, rawMessage: raw, violations, cause: err },
      );
    case Code.ResourceExhausted: {
      const advice = TOO_LARGE.test(raw)
        ? "the request is larger than the sidecar accepts (its --max-recv-bytes): send fewer turns, a shorter history or smaller data"
        : `still busy after ${tries}: run fewer evaluations at once, raise maxRetries, or give the sidecar more --max-concurrent-evals`;
      return new ResourceExhaustedError(`ResourceExhausted: ${raw}; ${advice}`, { code: ce.code, rawMessage: raw, violations, cause: err });
    }
    default:
      return new SidecarError(`${Code[ce.code]}: ${raw} (${ctx.method})`, { code: ce.code, rawMessage: raw, violations, cause: err });
  }
}

/** The error of a call whose timeoutMs ran out, on the server or here. */
export function deadlineError(ctx: CallContext, raw = "", cause?: unknown): DeadlineExceededError {
  const what = ctx.method.startsWith("EvalTurn") ? "the evaluation, its tools' time included," : ctx.method;
  let text = `DeadlineExceeded: ${what} did not finish within the timeout of ${ctx.timeoutMs} ms; pass a longer timeoutMs to the call or the client`;
  if (raw && !/deadline|aborted/i.test(raw)) text += ` (${raw})`;
  return new DeadlineExceededError(text, { code: Code.DeadlineExceeded, rawMessage: raw || "deadline exceeded", cause });
}

function fieldViolations(ce: ConnectError): FieldViolation[] {
  let violations: FieldViolation[] = [];
  for (const d of ce.details) {
    if ("type" in d && d.type === "google.rpc.BadRequest" && d.value instanceof Uint8Array) {
      violations = violations.concat(badRequestViolations(d.value));
    }
  }
  if (violations.length === 0) {
    const m = FIELD_PREFIX.exec(ce.rawMessage);
    if (m) violations = [{ field: m[1], description: ce.rawMessage.slice(m[0].length) }];
  }
  return violations.map((v) => {
    const option = optionOf(v.field);
    return option ? { ...v, option } : v;
  });
}

// Request fields whose option has another name than the field's camelCase.
const RENAMED: Record<string, string> = { prelude: "memory" };

/** The package option a request field comes from: `options.max_turns` is
 * `maxTurns`, `limits.max_steps` (or `start.limits.max_steps`) is
 * `limits.maxSteps`, `turn_number` is `turnNumber`. */
export function optionOf(field: string): string | undefined {
  const path = field.replace(/^start\./, "").split(".");
  const name = (s: string) => s.replace(/\[\d+\]$/, "").replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  if (path[0] === "options" && path.length > 1) return name(path[1]);
  if (path[0] === "limits" && path.length > 1) return `limits.${name(path[1])}`;
  const top = name(path[0]);
  return RENAMED[top] ?? (top !== path[0] ? top : undefined);
}

/** The field violations of a serialized google.rpc.BadRequest
 * (field_violations = 1; FieldViolation.field = 1, .description = 2), read
 * with protobuf-es's wire reader: the google.rpc messages are not in its
 * runtime, and two small frozen messages do not warrant a dependency. */
export function badRequestViolations(bytes: Uint8Array): FieldViolation[] {
  const out: FieldViolation[] = [];
  try {
    const r = new BinaryReader(bytes);
    while (r.pos < r.len) {
      const [no, wt] = r.tag();
      if (no !== 1 || wt !== WireType.LengthDelimited) {
        r.skip(wt, no);
        continue;
      }
      const v = new BinaryReader(r.bytes());
      const violation: FieldViolation = { field: "", description: "" };
      while (v.pos < v.len) {
        const [vno, vwt] = v.tag();
        if (vno === 1 && vwt === WireType.LengthDelimited) violation.field = v.string();
        else if (vno === 2 && vwt === WireType.LengthDelimited) violation.description = v.string();
        else v.skip(vwt, vno);
      }
      out.push(violation);
    }
  } catch {
    return [];
  }
  return out;
}
