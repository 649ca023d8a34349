// The README's "TypeScript in ten lines" compiles with tsc --strict, runs as
// printed and prints what it says; the package README's whole programs
// compile with tsc --strict (against the real openai package's types).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { repo, startServer } from "./server.js";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "../..");
const tsc = join(pkg, "node_modules/typescript/bin/tsc");

function snippets(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

/** Compiles files with tsc --strict inside the package, where "ptc-sidecar"
 * resolves to it by name, and returns the directory of the output. */
function compile(files: Record<string, string>): string {
  const dir = join(pkg, `readme-check-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
  try {
    execFileSync(
      process.execPath,
      [tsc, "--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node", "--skipLibCheck", ...Object.keys(files).map((f) => join(dir, f))],
      { encoding: "utf8" },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`tsc --strict refused the README's code:\n${(err as { stdout?: string }).stdout}`);
  }
  return dir;
}

test("TypeScript in ten lines", async () => {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.split("\n## TypeScript in ten lines\n")[1].split("\n## ")[0];
  const code = snippets(section)[0];
  assert.ok(code.trim().split("\n").length <= 10);
  // The line that logs says what it logs: console.log(...); // expected
  const expected = /^console\.log\(.*\);\s*\/\/\s*(.+)$/m.exec(code)![1];
  const server = await startServer();
  const dir = compile({ "snippet.ts": code.replace("127.0.0.1:50051", server.target) });
  try {
    const out = execFileSync(process.execPath, [join(dir, "snippet.js")], { encoding: "utf8", timeout: 60_000 });
    assert.equal(out.trim(), expected.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
});

test("the package README's programs compile under --strict", () => {
  const programs = snippets(readFileSync(join(pkg, "README.md"), "utf8")).filter((code) => code.startsWith("import "));
  assert.ok(programs.length >= 1);
  const files = Object.fromEntries(programs.map((code, i) => [`program${i}.ts`, code]));
  rmSync(compile(files), { recursive: true, force: true });
});

test("CommonJS code on Node 20.19+ requires the package", () => {
  const out = execFileSync(process.execPath, ["-e", 'const p = require("ptc-sidecar"); console.log(typeof p.Client, typeof p.Run, p.VERSION)'], {
    cwd: pkg,
    encoding: "utf8",
  });
  assert.match(out, /^function function \d+\.\d+\.\d+/);
});
