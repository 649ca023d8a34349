// The replicas a client spreads its calls over. Connect has no load
// balancer of its own, so the client keeps one HTTP/2 session per replica
// and picks one per call: round-robin, or for a run's calls by the run's id
// (see Replicas.pick).
import { lookup } from "node:dns/promises";
import { createHash } from "node:crypto";

/** How a run's calls are spread over a pool's replicas: "byRun" keeps them
 * on one replica while it lives, whose memo then reads the run once;
 * "roundRobin" spreads them like every other call. */
export type Balancing = "byRun" | "roundRobin";

// A replica that failed is passed over (unless no other is left) for this
// long, twice as long after each further failure up to MAX_DOWN_MS, until a
// call to it succeeds; a dns:/// name is resolved again after a failure at
// most every DOWN_MS.
const DOWN_MS = 1_000;
const MAX_DOWN_MS = 30_000;
// A dns:/// name is looked up again this often when nothing failed, to see
// the pool grow.
const RESOLVE_EVERY_MS = 30_000;

/** The "host:port" (or URL) addresses a target names and how to get them
 * again: a list or an ipv4:/ipv6: list as given, a dns:/// name by looking
 * it up. */
export interface Addresses {
  /** The name to look up, for a dns:/// target. */
  dnsName?: { host: string; port: string };
  /** The addresses as given, for any other target. */
  fixed?: string[];
}

export function parseTarget(target: string | readonly string[]): Addresses {
  if (typeof target !== "string") {
    if (target.length === 0 || !target.every((a) => typeof a === "string" && a !== "")) {
      throw new TypeError(`Client: target must be "host:port", "dns:///name:port" or a non-empty list of "host:port", got ${JSON.stringify(target)}`);
    }
    return { fixed: [...target] };
  }
  for (const scheme of ["ipv4:", "ipv6:"]) {
    if (target.startsWith(scheme)) return { fixed: target.slice(scheme.length).split(",").filter((a) => a !== "") };
  }
  if (target.startsWith("dns:")) {
    let name = target.slice("dns:".length).replace(/^\/\/[^/]*\//, "").replace(/^\/+/, "");
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(name);
    if (!m) throw new TypeError(`Client: target ${JSON.stringify(target)}: want dns:///name:port`);
    name = m[1].replace(/^\[|\]$/g, "");
    return { dnsName: { host: name, port: m[2] } };
  }
  return { fixed: [target] };
}

/** The replicas of a target, each with what the client made for it. */
export class Replicas<T> {
  private addresses: string[];
  private readonly made = new Map<string, T>();
  private readonly retired: T[] = [];
  private readonly downUntil = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private next = 0;
  private resolvedAt = -Infinity;
  private resolving: Promise<void> | undefined;

  constructor(
    private readonly source: Addresses,
    private readonly make: (address: string) => T,
  ) {
    this.addresses = source.fixed ?? [];
  }

  /** The replica for the next call, and what was made for it: for a run's
   * call (key given, balancing "byRun") the first of the run's ranking that
   * is not down, else the next in turn. Ranking by rendezvous hashing keeps
   * a run where it is while its replica lives; when it is gone its runs
   * spread over the others, and a new replica takes runs only from the
   * others' share. */
  async pick(key: string | undefined): Promise<{ address: string; made: T }> {
    if (this.source.dnsName && (this.addresses.length === 0 || this.stale)) await this.resolve();
    if (this.addresses.length === 0) throw new Error(`${this.source.dnsName?.host} resolved to no address`);
    const now = performance.now();
    const up = this.addresses.filter((a) => !((this.downUntil.get(a) ?? 0) > now));
    const candidates = up.length > 0 ? up : this.addresses;
    let address: string;
    if (key !== undefined && candidates.length > 1) {
      address = candidates.reduce((best, a) => (score(key, a) > score(key, best) ? a : best));
    } else {
      address = candidates[this.next++ % candidates.length];
    }
    let made = this.made.get(address);
    if (made === undefined) {
      made = this.make(address);
      this.made.set(address, made);
    }
    return { address, made };
  }

  /** A call to address lost or could not open its connection: the
   * replica may be gone. */
  failed(address: string): void {
    const n = (this.failures.get(address) ?? 0) + 1;
    this.failures.set(address, n);
    this.downUntil.set(address, performance.now() + Math.min(MAX_DOWN_MS, DOWN_MS * 2 ** (n - 1)));
  }

  /** A call to address was answered: the replica is up. */
  answered(address: string): void {
    if (this.failures.delete(address)) this.downUntil.delete(address);
  }

  /** Everything made, to close. */
  all(): T[] {
    return [...this.made.values(), ...this.retired];
  }

  private get stale(): boolean {
    const since = performance.now() - this.resolvedAt;
    return since >= RESOLVE_EVERY_MS || (since >= DOWN_MS && [...this.downUntil.values()].some((t) => t > performance.now()));
  }

  private resolve(): Promise<void> {
    this.resolving ??= (async () => {
      const { host, port } = this.source.dnsName!;
      this.resolvedAt = performance.now();
      try {
        const found = await lookup(host, { all: true });
        const v4 = found.filter((f) => f.family === 4).map((f) => `${f.address}:${port}`);
        const v6 = found.filter((f) => f.family === 6).map((f) => `[${f.address}]:${port}`);
        const addresses = [...new Set(v4.length > 0 ? v4 : v6)].sort();
        if (addresses.length > 0) {
          this.addresses = addresses;
          // A replica gone from the name is no longer picked; a call still
          // on it finishes, and its session closes once idle (Connect's
          // idle timeout) or with the client.
          for (const [a, made] of [...this.made]) {
            if (!addresses.includes(a)) {
              this.made.delete(a);
              this.retired.push(made);
            }
          }
        }
      } catch (err) {
        if (this.addresses.length === 0) throw err; // else keep the last addresses
      } finally {
        this.resolving = undefined;
      }
    })();
    return this.resolving;
  }
}

function score(key: string, address: string): string {
  return createHash("sha256").update(`${key}\0${address}`).digest("hex").slice(0, 16);
}
