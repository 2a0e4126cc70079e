/**
 * The server's Prometheus metrics (docs/operations.md "Metrics"), one registry per running server,
 * made with prom-client. Names follow the Prometheus conventions (`_total` counters, base units:
 * seconds) and are checked with `promtool check metrics` in a test.
 *
 * - `postern_grants{status}`: grants in each status, read from the database at scrape time.
 * - `postern_grant_latency_seconds`: grant request → the target's acknowledgement (the engine's hook).
 * - `postern_agents_connected`: agents holding a connection now.
 * - `postern_sign_ins_total{audience,method,result}`: sign-in steps by method and outcome.
 * - `postern_allowlist_reads_total{result}`: public allowlist reads (ok, not_modified, refused).
 * - `postern_http_requests_total{method,route,status}` and `postern_http_request_duration_seconds`.
 * - the process and Node.js metrics of prom-client's default collectors, except its three
 *   `nodejs_active_*_total` gauges (a gauge must not end in `_total`).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { GrantStatus } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { countGrantsByStatus } from "../repositories/grants.ts";

/** Status code → the `status` label of `postern_grants` (the spec's names in snake case). */
const STATUS_LABELS: ReadonlyMap<number, string> = new Map(
  Object.entries(GrantStatus).map(([name, code]) => [
    code,
    name.replace(/[A-Z]/g, (m, i) => (i ? "_" : "") + m.toLowerCase()),
  ]),
);

/** Which audience a sign-in was for: the user portal or the admin console. */
export type SignInAudience = "user" | "admin";
/** How the sign-in step proved the identity. Local and LDAP passwords share "password". */
export type SignInMethod = "password" | "saml" | "apikey" | "totp" | "passkey";

/** The metrics of one server and the registry `/metrics` renders. */
export class ServerMetrics {
  /** The registry rendered at /metrics. */
  readonly registry = new Registry();
  readonly #signIns: Counter<"audience" | "method" | "result">;
  readonly #allowlistReads: Counter<"result">;
  readonly #httpRequests: Counter<"method" | "route" | "status">;
  readonly #httpDuration: Histogram<"method" | "route">;
  readonly #grantLatency: Histogram;

  /** `db` is read for the grant counts and `connectedAgents` for the agent gauge, both at scrape time. */
  constructor(db: Db, connectedAgents: () => number) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // prom-client names these gauges with "_total", which promtool refuses; the other defaults stay.
    for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
      this.registry.removeSingleMetric(name);
    new Gauge({
      name: "postern_grants",
      help: "Grants in each status.",
      labelNames: ["status"],
      registers,
      async collect() {
        this.reset();
        for (const [code, n] of await countGrantsByStatus(db))
          this.set({ status: STATUS_LABELS.get(code) ?? String(code) }, n);
      },
    });
    new Gauge({
      name: "postern_agents_connected",
      help: "Agents holding a connection to this server.",
      registers,
      collect() {
        this.set(connectedAgents());
      },
    });
    this.#grantLatency = new Histogram({
      name: "postern_grant_latency_seconds",
      help: "Time from a grant request to the target's acknowledgement that the address is let through.",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#signIns = new Counter({
      name: "postern_sign_ins_total",
      help: "Sign-in steps by audience, method and result.",
      labelNames: ["audience", "method", "result"],
      registers,
    });
    this.#allowlistReads = new Counter({
      name: "postern_allowlist_reads_total",
      help: "Reads of the public allowlists by result.",
      labelNames: ["result"],
      registers,
    });
    this.#httpRequests = new Counter({
      name: "postern_http_requests_total",
      help: "HTTP requests by method, route pattern and status code.",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.#httpDuration = new Histogram({
      name: "postern_http_request_duration_seconds",
      help: "Time to answer HTTP requests by method and route pattern.",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
  }

  /** Records one grant's request-to-acknowledgement time in SECONDS. */
  grantAcknowledged(seconds: number): void {
    this.#grantLatency.observe(Math.max(0, seconds));
  }

  /** Records one sign-in step. */
  signIn(audience: SignInAudience, method: SignInMethod, ok: boolean): void {
    this.#signIns.inc({ audience, method, result: ok ? "success" : "failure" });
  }

  /** Records one public allowlist read. */
  allowlistRead(result: "ok" | "not_modified" | "refused"): void {
    this.#allowlistReads.inc({ result });
  }

  /** Records one HTTP request: `route` is the matched route pattern (not the path), `seconds` its time. */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.#httpRequests.inc({ method, route, status: String(status) });
    this.#httpDuration.observe({ method, route }, seconds);
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
