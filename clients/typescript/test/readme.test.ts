// The README's "TypeScript in ten lines" runs as printed and prints what it says.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { startServer } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../../..");

test("TypeScript in ten lines", async () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.split("\n## TypeScript in ten lines\n")[1].split("\n## ")[0];
  const code = /```ts\n([\s\S]*?)```/.exec(section)![1];
  assert.ok(code.trim().split("\n").length <= 10);
  // The line that logs says what it logs: console.log(...); // expected
  const expected = /^console\.log\(.*\);\s*\/\/\s*(.+)$/m.exec(code)![1];
  const server = await startServer();
  // Inside the package, so that "ptc-sidecar" resolves to it by name.
  const file = join(here, "..", "readme-snippet.mjs");
  try {
    writeFileSync(file, code.replace("127.0.0.1:50051", server.target));
    const out = execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
    assert.equal(out.trim(), expected.trim());
  } finally {
    rmSync(file, { force: true });
    await server.stop();
  }
});
