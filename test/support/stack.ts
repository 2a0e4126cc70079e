/**
 * The whole Postern stack for end-to-end tests: a real server in-process (real database file,
 * TestClock so expiry needs no sleeping), an admin signed in over HTTP, agents enrolled through the
 * real enrolment endpoint, and started in-process or as a real `postern-agent run` child process
 * (stopped by PID). User requests can come from a chosen 127.0.0.x source address.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { request } from "node:http";
import type { Agent } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestPostgresDatabase, testPostgresUrl } from "../../server/src/testing/database.ts";
import { startServer, TestClock, AdminSessionService, createLogger } from "../../server/src/index.ts";
import type { RunningServer, StartOptions } from "../../server/src/index.ts";
import { enrol } from "../../agent/src/enrol.ts";
import { issueTestLicence, ROOMY_LICENCE, testLicenceKey } from "../../server/src/testing/licences.ts";
import type { AgentCapabilities } from "../../shared/src/index.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** One HTTP exchange's result. */
export interface HttpResult {
  status: number;
  body: unknown;
  setCookie: string[];
}

/**
 * Sends one JSON request with node:http (bounded by 10 s), on a connection of its own unless `agent`
 * (a keep-alive http.Agent, as a browser keeps its connection) is given. `localAddress` picks the
 * source address (127.0.0.x); `headers` adds more (e.g. X-Forwarded-For behind a trusted proxy).
 */
export function httpJson(
  method: string,
  url: string,
  body?: unknown,
  opts: { cookie?: string; localAddress?: string; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        timeout: 10_000,
        // A connection of its own per request: Node's global agent keeps connections alive, and one that
        // the server or a balancer closed meanwhile (a replica killed, an idle timeout) would be reused and
        // hang up — the client's race, not the server's (seen in test/ha under load).
        agent: opts.agent ?? false,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        headers: {
          ...(payload !== undefined
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
            : {}),
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            body: parseJsonOrText(text),
            setCookie: res.headers["set-cookie"] ?? [],
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("request timed out")));
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function parseJsonOrText(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A cookie-carrying client of the API. */
export class ApiClient {
  cookie = "";
  readonly base: string;
  readonly opts: { localAddress?: string; headers?: Record<string, string>; agent?: Agent };
  /** `opts.agent`: a keep-alive http.Agent to send every request on (default: a connection per request). */
  constructor(base: string, opts: { localAddress?: string; headers?: Record<string, string>; agent?: Agent } = {}) {
    this.base = base;
    this.opts = opts;
  }
  /** Sends a request; keeps any session cookie the server sets. */
  async call(method: string, path: string, body?: unknown): Promise<HttpResult> {
    const r = await httpJson(method, `${this.base}${path}`, body, { ...this.opts, cookie: this.cookie });
    const session = r.setCookie.map((c) => c.split(";")[0] ?? "").find((c) => /^postern_(admin_)?session=./.test(c));
    if (session) this.cookie = session;
    return r;
  }
  /** Like call, but throws unless the status is 2xx; returns the body. */
  async ok<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call(method, path, body);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as T;
  }
}

/** A running stack. */
export interface Stack {
  server: RunningServer;
  clock: TestClock;
  dir: string;
  /** The server's PostgreSQL database when the suite runs on PostgreSQL (a restart must name it again). */
  databaseUrl?: string;
  admin: ApiClient;
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 with a fresh data dir, installs the roomy test licence (the server
 * trusts the test signing key; creating ACLs needs a licence) and signs in an admin. `discoveryPorts` starts
 * IP-discovery listeners (0 picks a free port; `discoveryPortsOf(stack.server.services)` names them);
 * `licensePublicKeys` are further licence signing keys the server trusts.
 */
export async function startStack(
  opts: {
    trustedProxies?: string[];
    discoveryPorts?: number[];
    licensePublicKeys?: readonly string[];
    /** Short webhook retry schedule / poll interval for tests (server StartOptions.webhookDelivery). */
    webhookDelivery?: StartOptions["webhookDelivery"];
  } = {},
): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "postern-e2e-"));
  const clock = new TestClock();
  // On the suite's PostgreSQL (POSTERN_TEST_DATABASE=postgres) the server gets a fresh database there.
  const postgres = testPostgresUrl() ? await createTestPostgresDatabase() : undefined;
  const server = await startServer({
    dataDir: join(dir, "data"),
    ...(postgres ? { databaseUrl: postgres.url } : {}),
    listen: "127.0.0.1:0",
    clock,
    migrate: true,
    logger: createLogger(process.env["POSTERN_TEST_LOG"] ?? "silent"),
    licensePublicKeys: [testLicenceKey.publicKey, ...(opts.licensePublicKeys ?? [])],
    ...(opts.trustedProxies ? { trustedProxies: opts.trustedProxies } : {}),
    ...(opts.discoveryPorts ? { discovery: { ports: opts.discoveryPorts } } : {}),
    ...(opts.webhookDelivery ? { webhookDelivery: opts.webhookDelivery } : {}),
  });
  await new AdminSessionService(server.services.db, clock).createLocalAdmin({
    userName: "admin",
    name: "Admin",
    password: "admin-password",
  });
  await server.services.licensing.install(issueTestLicence(ROOMY_LICENCE), { adminName: "admin", ip: "127.0.0.1" });
  const admin = new ApiClient(server.url);
  await admin.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
  return {
    server,
    clock,
    dir,
    ...(postgres ? { databaseUrl: postgres.url } : {}),
    admin,
    close: async () => {
      await server.close();
      await postgres?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates an agent through the admin API and enrols it through the real endpoint; returns its id
 * and the config path. `settings` go into the agent config (haproxySocket, driftCheckSeconds, ...).
 */
export async function createAndEnrolAgent(
  stack: Stack,
  name: string,
  capabilities: AgentCapabilities,
  settings: Record<string, unknown> = {},
): Promise<{ agentId: string; configPath: string }> {
  const created = await stack.admin.ok<{ ID: string; Token: string }>("POST", "/api/admin/agents", { Name: name });
  const configPath = join(stack.dir, `${name}.json`);
  await enrol({
    server: stack.server.url,
    token: created.Token,
    configPath,
    capabilities,
    version: "1.9.0",
    settings: { useSudo: false, ...settings },
  });
  return { agentId: created.ID, configPath };
}

/** A `postern-agent run` child process. */
export interface AgentProcess {
  child: ChildProcess;
  /** Kills by PID (SIGKILL when `hard`, else SIGTERM) and waits for exit (bounded 10 s). */
  kill(hard?: boolean): Promise<void>;
}

/** Starts `postern-agent run --config FILE` as a child process (the real binary's entry). */
export function spawnAgent(configPath: string): AgentProcess {
  const child = spawn(process.execPath, [join(repoRoot, "agent/src/main.ts"), "run", "--config", configPath], {
    stdio: ["ignore", "ignore", process.env["POSTERN_TEST_LOG"] ? "inherit" : "ignore"],
  });
  return {
    child,
    kill: (hard = false) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
        }, 10_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill(hard ? "SIGKILL" : "SIGTERM");
      }),
  };
}

/** Polls `probe` every `intervalMs` until it returns true or `timeoutMs` passes; returns the last result. */
export async function waitFor(
  probe: () => Promise<boolean> | boolean,
  timeoutMs = 5_000,
  intervalMs = 50,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The user's status entry of an ACL. */
export async function aclStatus(
  user: ApiClient,
  aclId: string,
): Promise<{ ID: string; Status: number; Error: string; ExpiredAfter: string }> {
  const status = await user.ok<{
    ACLs: { ID: string; ACLID: string; Status: number; Error: string; ExpiredAfter: string }[];
  }>("GET", "/api/status");
  const entry = status.ACLs.find((a) => a.ACLID === aclId);
  if (!entry) throw new Error(`ACL ${aclId} not in the status`);
  return entry;
}

/** Creates a local user assigned to the given ACLs; returns the id. */
export async function createUser(stack: Stack, userName: string, password: string, aclIds: string[]): Promise<string> {
  return stack.admin.ok<string>("POST", "/api/admin/users", {
    Name: userName,
    UserName: userName,
    PlainPassword: password,
    ConfirmPassword: password,
    AclIds: aclIds,
  });
}
