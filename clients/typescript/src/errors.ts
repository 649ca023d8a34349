import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** One bad field of a request: its path and what is wrong with it. */
export interface FieldViolation {
  field: string;
  description: string;
}

// The sidecar's messages start with the field they are about:
// "turns[0].result.edn: parse_error ...".
const FIELD_PREFIX = /^([a-z_][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z_][a-z0-9_]*(?:\[\d+\])?)*): /;

/** A call the sidecar refused or could not complete. */
export class SidecarError extends Error {
  /** The gRPC status code, e.g. Code.InvalidArgument (3). */
  readonly code: Code;
  /** The code's name, e.g. "InvalidArgument". */
  readonly codeName: string;
  /** The request field the error is about (e.g. "data"), or null. */
  readonly field: string | null;
  /** Every bad field the server listed: google.rpc.BadRequest details when
   * it sends them, else the field its message names. */
  readonly violations: FieldViolation[];

  constructor(code: Code, message: string, violations: FieldViolation[] = []) {
    super(`${Code[code]}: ${message}`);
    this.name = "SidecarError";
    this.code = code;
    this.codeName = Code[code];
    this.violations = violations;
    this.field = violations[0]?.field ?? null;
  }

  /** The SidecarError of whatever a call threw. */
  static from(err: unknown): SidecarError {
    const ce = ConnectError.from(err);
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
    return new SidecarError(ce.code, ce.rawMessage, violations);
  }
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
