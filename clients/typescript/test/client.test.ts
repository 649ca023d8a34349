// ptc-sidecar's TypeScript client against the real server.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import {
  Code,
  EDN,
  InvalidArgumentError,
  Memory,
  SidecarError,
  Turn,
  badRequestViolations,
  parseJSON,
  stringifyJSON,
  type Tools,
} from "../src/index.js";
import { ConnectError } from "@connectrpc/connect";

import { isRetryable } from "../src/errors.js";
import { serveForThisFile } from "./server.js";

const ORDERS: Record<number, { id: number; total: number }[]> = {
  7: [
    { id: 1, total: 30.5 },
    { id: 2, total: 12.0 },
  ],
};

const TOOLS: Tools = {
  "lookup-user": ({ name }) => ({ id: 7, name }),
  // An async tool with the signature the LLM is shown.
  orders: { fn: async (args: { "user-id": number }) => ORDERS[args["user-id"]], signature: "(user-id :int) -> [:map]" },
};

const sidecar = serveForThisFile();

for (const protocol of ["replay", "stream"] as const) {
  describe(`over ${protocol}`, () => {
    test("a three-turn agent: tool calls, a failed turn that recovers, memory reused", async () => {
      const data = { customer: "Ada" };
      const one = await sidecar.client.evalTurn({
        program:
          '(def user (tool/lookup-user {:name data/customer}))\n(def order-list (tool/orders {:user-id (:id user)}))\n(println "orders:" (count order-list))',
        tools: TOOLS,
        data,
        protocol,
      });
      assert.ok(one.success, JSON.stringify(one.error));
      assert.deepEqual(one.prints, ["orders: 2"]);
      assert.deepEqual(
        one.toolCalls.map((c) => [c.name, c.args, c.result]),
        [
          ["lookup-user", { name: "Ada" }, { id: 7, name: "Ada" }],
          ["orders", { "user-id": 7 }, ORDERS[7]],
        ],
      );

      const two = await sidecar.client.evalTurn({ program: "(+ 1 (:name user))", tools: TOOLS, data, memory: one.memory, turnNumber: 2, protocol });
      assert.equal(two.success, false);
      assert.equal(two.result, null);
      assert.equal(two.error?.type, "type_error");
      assert.deepEqual(two.memory?.names, ["user", "order-list"]);

      const three = await sidecar.client.evalTurn({
        program: "(return {:user (:name user), :spent (reduce + (map :total order-list))})",
        tools: TOOLS,
        data,
        memory: two.memory,
        turnNumber: 3,
        protocol,
      });
      assert.ok(three.success && three.returned);
      assert.deepEqual(three.result, { user: "Ada", spent: 42.5 });

      const prompt = await sidecar.client.toMessages([one, two, three], { mission: "What did Ada spend?", tools: TOOLS, data });
      assert.deepEqual(prompt.messages.map((m) => m.role), ["system", "user"]);
      assert.match(String(prompt.messages[1].content), /What did Ada spend\?/);
      assert.equal(prompt.stats.strategy, "single-user-coalesced");
      assert.equal(prompt.stats.turnsCompressed, 3);
      assert.equal(prompt.stats.errorTurnsCollapsed, 1);
      // Stats are numbers: arithmetic on them compiles.
      assert.ok(prompt.stats.tokensAfter - prompt.stats.stablePrefixTokens >= 0);
      assert.equal(typeof prompt.stats.billedTokens, "number");
    });

    test("a tool that throws is a tool error the program sees", async () => {
      const turn = await sidecar.client.evalTurn({
        program: '(tool/stock {:sku "A-1"})',
        tools: {
          stock: () => {
            throw new RangeError("the warehouse is closed");
          },
        },
        protocol,
      });
      assert.equal(turn.success, false);
      assert.equal(turn.error?.type, "tool_error");
      assert.equal(turn.toolCalls[0].error, "RangeError: the warehouse is closed");
      assert.deepEqual(turn.toolCalls[0].args, { sku: "A-1" });
      assert.equal(turn.toolCalls[0].result, null);
    });

    test("awkward values: big integers, keywords, sets, floats, no JSON form", async () => {
      let seen: unknown;
      const turn = await sidecar.client.evalTurn({
        program:
          "(def r (tool/echo {:n 9007199254740993, :tags #{:b :a}, :kw :ok, :f 2.5}))\n(println (:back r) (:huge r))\n[(:back r) {1 :int-key} ##NaN]",
        tools: {
          echo: async (args) => {
            seen = args;
            return { back: args.n, huge: 2n ** 63n - 1n };
          },
        },
        protocol,
      });
      assert.ok(turn.success, JSON.stringify(turn.error));
      assert.deepEqual(seen, { n: 9007199254740993n, tags: ["a", "b"], kw: "ok", f: 2.5 });
      assert.deepEqual(turn.prints, ["9007199254740993 9223372036854775807"]);
      assert.deepEqual(turn.toolCalls[0].result, { back: 9007199254740993n, huge: 9223372036854775807n });
      assert.deepEqual(turn.result, new EDN("[9007199254740993 {1 :int-key} ##NaN]"));
      const clash = await sidecar.client.evalTurn({ program: '{:a 1, "a" 2}', protocol });
      assert.ok(clash.result instanceof EDN);
    });
  });
}

test("a bad request throws InvalidArgumentError with the code and the field", async () => {
  await assert.rejects(sidecar.client.evalTurn({ program: "(+ 1 2)", data: [1, 2] }), (err: unknown) => {
    assert.ok(err instanceof InvalidArgumentError && err instanceof SidecarError);
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(err.field, "data");
    assert.match(err.message, /must be a map/);
    return true;
  });
  await assert.rejects(sidecar.client.evalTurn({}), (err: unknown) => err instanceof SidecarError && err.field === "program");
  await assert.rejects(sidecar.client.toMessages([], { strategy: "no-such-strategy" }), (err: unknown) =>
    err instanceof SidecarError && err.code === Code.InvalidArgument && (err.field ?? "").startsWith("options.strategy"),
  );
});

test("listStrategies", async () => {
  const strategies = await sidecar.client.listStrategies();
  const coalesced = strategies.find((s) => s.name === "single-user-coalesced");
  assert.equal(coalesced?.input, "turns");
  assert.ok(coalesced?.options.some((o) => o.name === "max_turns"));
});

test("chat history goes in and out in the chat-completions shape", async () => {
  const history = [
    { role: "system", content: "You are a shop assistant." },
    { role: "user", content: "Find headphones." },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" as const, function: { name: "search", arguments: '{"q":"x"}' } }] },
    { role: "tool", content: "[]", tool_call_id: "c1" },
  ];
  const out = await sidecar.client.toMessages([], { history, strategy: "loop-slice" });
  assert.deepEqual(out.messages, history);
});

test("memory takes a turn or its memory, and is plain JSON", async () => {
  const one = await sidecar.client.evalTurn({ program: "(def x 40)" });
  assert.equal((await sidecar.client.evalTurn({ program: "(+ x 2)", memory: one })).result, 42);
  assert.equal((await sidecar.client.evalTurn({ program: "(+ x 2)", memory: one.memory })).result, 42);
  await assert.rejects(
    // @ts-expect-error: a plain object is not a Memory
    sidecar.client.evalTurn({ program: "(+ x 2)", memory: { x: 40 } }),
    /memory must be a Memory \(turn.memory\) or a Turn, got Object/,
  );
  const memory = Memory.fromJSON(JSON.parse(JSON.stringify(one.memory)));
  assert.ok(memory.equals(one.memory!));
  // A turn is plain JSON too, BigInts and all.
  const big = await sidecar.client.evalTurn({ program: "(def n 9223372036854775807) n" });
  const again = Turn.fromJSON(JSON.parse(JSON.stringify(big)));
  assert.equal(again.result, 9223372036854775807n);
  assert.deepEqual(again.toJSON(), big.toJSON());
});

test("a turn carries what was forgiven", async () => {
  const turn = await sidecar.client.evalTurn({ program: "(+ 1 2))" });
  assert.equal(turn.result, 3);
  assert.deepEqual(turn.warnings.map((w) => w.type), ["unmatched_closing_bracket"]);
  assert.match(turn.warnings[0].message, /closing bracket/);
  assert.deepEqual(Turn.fromJSON(JSON.parse(JSON.stringify(turn))).warnings, turn.warnings);
  assert.deepEqual((await sidecar.client.evalTurn({ program: "(+ 1 2)" })).warnings, []);
});

test("parseJSON keeps integers a double cannot hold", () => {
  assert.deepEqual(parseJSON('{"a":[9007199254740991,9007199254740992,-9223372036854775808,1.5,2.0,1e3],"b":"\\u00e9\\n","__proto__":1}'), {
    a: [9007199254740991, 9007199254740992n, -9223372036854775808n, 1.5, 2, 1000],
    b: "é\n",
    ["__proto__"]: 1,
  });
  assert.equal(Object.getPrototypeOf(parseJSON('{"__proto__":{"x":1}}')), Object.prototype);
  for (const bad of ["", "[1,", "{1:2}", "01", "[1] 2", '"unterminated']) {
    assert.throws(() => parseJSON(bad), SyntaxError, bad);
  }
  assert.equal(stringifyJSON({ n: 2n ** 64n, s: new Set(["x"]), u: undefined }), '{"n":18446744073709551616,"s":["x"]}');
  assert.throws(() => stringifyJSON(NaN), TypeError);
});

test("BadRequest details are read from the status", () => {
  // BadRequest{field_violations: [{field: "data", description: "must be a map"}]}, encoded by hand.
  const violation = [0x0a, 4, ...Buffer.from("data"), 0x12, 13, ...Buffer.from("must be a map")];
  const bytes = new Uint8Array([0x0a, violation.length, ...violation]);
  assert.deepEqual(badRequestViolations(bytes), [{ field: "data", description: "must be a map" }]);
  assert.deepEqual(badRequestViolations(new Uint8Array([0x0a, 9, 1])), []);
});

test("a stream the server refused is retried, an internal error is not", () => {
  // Node reports HTTP/2's REFUSED_STREAM, which a restarting sidecar sends
  // for streams it never started, as a stream error: Internal to Connect.
  const refused = new ConnectError("Stream closed with error code NGHTTP2_REFUSED_STREAM", Code.Internal);
  assert.equal(isRetryable(refused), true);
  assert.equal(isRetryable(new ConnectError("index out of range", Code.Internal)), false);
  assert.equal(isRetryable(new ConnectError("connection refused", Code.Unavailable)), true);
});
