// Starts the real ptc-sidecar on a loopback port for the tests. PTC_SIDECAR_BIN
// names a built binary; without it the server is built from the repository
// with `go build`, once.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "../src/index.js";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

let built: string | undefined;

function binary(): string {
  if (process.env.PTC_SIDECAR_BIN) return process.env.PTC_SIDECAR_BIN;
  if (!built) {
    built = join(mkdtempSync(join(tmpdir(), "ptc-sidecar-ts-")), "ptc-sidecar");
    execFileSync("go", ["build", "-o", built, "./cmd/ptc-sidecar"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

/** The server as a process that can be stopped and started again on the
 * same address, as a sidecar container is restarted in its pod. */
export class Server {
  target = "127.0.0.1:0";
  /** The /metrics address, with --metrics-listen. */
  metrics: string | undefined;
  /** The server's log lines (stderr), of every start. */
  readonly log: string[] = [];
  private child: ChildProcess | undefined;

  private constructor(private readonly args: string[]) {}

  static async start(...args: string[]): Promise<Server> {
    const server = new Server(args);
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const child = spawn(binary(), ["serve", "--listen", this.target, ...this.args], { stdio: ["ignore", "ignore", "pipe"] });
    this.child = child;
    const log = this.log;
    // Port 0: the server logs the address it bound in its "serving" line once
    // it is ready. It is waited for as long as the server runs, however busy
    // the machine: a server that cannot start exits.
    this.target = await new Promise<string>((resolveTarget, reject) => {
      createInterface({ input: child.stderr! }).on("line", (line) => {
        log.push(line);
        try {
          const entry = JSON.parse(line);
          if (entry.msg === "metrics listening") this.metrics = entry.addr;
          if (entry.msg === "serving") resolveTarget(entry.addr);
        } catch {
          // not a JSON line
        }
      });
      child.on("exit", (code) => reject(new Error(`the server exited with ${code}:\n${log.join("\n")}`)));
    });
  }

  /** Stops the server: SIGTERM, as a rolling update does (it drains first),
   * or SIGKILL, as a crash. */
  stop(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise<void>((done) => {
      child.on("exit", () => done());
      child.kill(signal);
    });
  }
}

/** A started server, for the suites that need one for all their tests. */
export async function startServer(): Promise<{ target: string; stop(): Promise<void> }> {
  const server = await Server.start();
  return { target: server.target, stop: () => server.stop() };
}

/** Starts a server before the tests of the file that calls it, with a
 * Client of it, and stops both after them. */
export function serveForThisFile(): { readonly target: string; readonly client: Client } {
  const shared = {} as { target: string; client: Client; server: Server };
  before(async () => {
    shared.server = await Server.start();
    shared.target = shared.server.target;
    shared.client = new Client(shared.target);
  });
  after(async () => {
    shared.client.close();
    await shared.server.stop();
  });
  return shared;
}
