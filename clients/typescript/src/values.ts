// Values between JavaScript and the sidecar's wire Value (docs/VALUES.md).

/** A value that has no JSON form, kept as its PTC-Lisp (EDN) text. The
 * sidecar sends a JSON form next to the EDN whenever the value has a faithful
 * one; a function, a regex, NaN or infinity, or a map with a key that is not a
 * string or keyword has none, and arrives as an EDN object instead of a
 * guess. An EDN object passed as data or a tool's result is sent as is. */
export class EDN {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a value becomes in JavaScript. Integers outside ±(2^53 − 1) are
 * BigInts; every other number is a number. */
export type Native =
  | null
  | boolean
  | number
  | bigint
  | string
  | EDN
  | Native[]
  | { [key: string]: Native };

/** Parses JSON text like JSON.parse, except that an integer a double cannot
 * hold exactly becomes a BigInt instead of being rounded. */
export function parseJSON(text: string): Native {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`invalid JSON at ${i}: ${what}`);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const value = (): Native => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const out: { [key: string]: Native } = {};
      space();
      if (text[i] === "}") {
        i++;
        return out;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        space();
        if (text[i++] !== ":") fail("expected ':'");
        Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === ",") i++;
        else if (text[i++] === "}") return out;
        else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const out: Native[] = [];
      space();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        if (text[i] === ",") i++;
        else if (text[i++] === "]") return out;
        else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return number();
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail("unterminated string");
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const number = (): number | bigint => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) return fail("unexpected character");
    i += match[0].length;
    if (match[2] === undefined && match[3] === undefined) {
      const n = Number(match[0]);
      return Number.isSafeInteger(n) ? n : BigInt(match[0]);
    }
    return Number(match[0]);
  };
  const out = value();
  space();
  if (i < text.length) fail("unexpected data after the value");
  return out;
}

/** Writes a JavaScript value as JSON: BigInts as integers, Sets and Maps
 * with string keys as arrays and objects, objects with toJSON through it.
 * Throws TypeError for what JSON cannot carry (NaN, infinities, functions,
 * symbols, EDN nested inside another value). */
export function stringifyJSON(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
      return JSON.stringify(value);
    case "undefined":
      return "null";
    case "object": {
      if (value === null) return "null";
      if (value instanceof EDN) throw new TypeError("an EDN value can only be sent whole, not inside JSON");
      if (Array.isArray(value) || value instanceof Set) {
        return `[${Array.from(value, (v) => stringifyJSON(v)).join(",")}]`;
      }
      const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
      if (!(value instanceof Map) && typeof (value as { toJSON?: unknown }).toJSON === "function") {
        return stringifyJSON((value as { toJSON: () => unknown }).toJSON());
      }
      const parts: string[] = [];
      for (const [k, v] of entries) {
        if (typeof k !== "string") throw new TypeError(`a Map key ${String(k)} is not a string`);
        if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJSON(v)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      throw new TypeError(`a ${typeof value} has no JSON form`);
  }
}
