// Starts the real ptc-sidecar on a free loopback port for the tests.
// PTC_SIDECAR_BIN names a built binary; without it the server is built from
// the repository with `go build`.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

export interface Server {
  target: string;
  stop(): Promise<void>;
}

export async function startServer(): Promise<Server> {
  const work = mkdtempSync(join(tmpdir(), "ptc-sidecar-ts-"));
  let binary = process.env.PTC_SIDECAR_BIN;
  if (!binary) {
    binary = join(work, "ptc-sidecar");
    execFileSync("go", ["build", "-o", binary, "./cmd/ptc-sidecar"], { cwd: repo, stdio: "inherit" });
  }
  const child: ChildProcess = spawn(binary, ["serve", "--listen", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const log: string[] = [];
  // Port 0: the server logs the address it bound in its "serving" line once
  // it is ready. It is waited for as long as the server runs, however busy
  // the machine: a server that cannot start exits.
  const target = await new Promise<string>((resolveTarget, reject) => {
    createInterface({ input: child.stderr! }).on("line", (line) => {
      log.push(line);
      try {
        const entry = JSON.parse(line);
        if (entry.msg === "serving") {
          resolveTarget(entry.addr);
        }
      } catch {
        // not a JSON line
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited with ${code}:\n${log.join("\n")}`)));
  });
  return {
    target,
    stop: () =>
      new Promise<void>((done) => {
        child.on("exit", () => {
          rmSync(work, { recursive: true, force: true });
          done();
        });
        child.kill("SIGTERM");
      }),
  };
}
