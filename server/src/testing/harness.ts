/**
 * Test harness for in-process server tests: the real schema in an in-memory SQLite, a TestClock, a
 * silent logger, the real services and app. Agents are reached through a recording AgentChannel
 * (the process boundary), so the grant logic under test is the real one.
 */
import type { Op } from "@postern/shared";
import { migrateDatabase, type OpenDatabase } from "../db/index.ts";
import { openTestDatabase } from "./database.ts";
import { TestClock } from "../clock.ts";
import { createLogger } from "../logger.ts";
import { createServices } from "../services/index.ts";
import type { Services } from "../services/index.ts";
import { createApp } from "../app.ts";
import type { AgentChannel } from "../services/grants/engine.ts";
import { licenseHarness, unlicenseHarness } from "./licences.ts";
import { testTables } from "./database.ts";

const { auditFolds } = testTables;

/** An AgentChannel that records ops per agent and reports the agents marked online. */
export class RecordingChannel implements AgentChannel {
  readonly online = new Set<string>();
  readonly sent: { agentId: string; ops: Op[] }[] = [];
  isConnected(agentId: string): boolean {
    return this.online.has(agentId);
  }
  apply(agentId: string, ops: Op[]): boolean {
    if (!this.online.has(agentId)) return false;
    this.sent.push({ agentId, ops });
    return true;
  }
  /** Every op sent so far, flattened, and clears the record. */
  take(): Op[] {
    const all = this.sent.flatMap((s) => s.ops);
    this.sent.length = 0;
    return all;
  }
}

/** A harness: services, app, clock, channel, and a closer. */
export interface Harness {
  services: Services;
  app: ReturnType<typeof createApp>;
  clock: TestClock;
  channel: RecordingChannel;
  close(): Promise<void>;
}

/**
 * Builds a fresh harness over an empty database: in memory, or in the SQLite `file` given (created);
 * a fresh PostgreSQL database when the suite runs on PostgreSQL (testing/database.ts).
 */
export async function createHarness(file = ":memory:"): Promise<Harness> {
  const database = await openTestDatabase(file);
  await migrateDatabase(database.db);
  return harnessOn(database);
}

/**
 * A harness over a database already open and migrated (closed with the harness): e.g. a second
 * "replica" on the same PostgreSQL database (test/db/many-writers.test.ts).
 */
export function harnessOn(database: OpenDatabase): Harness {
  const clock = new TestClock();
  const services = createServices({ db: database.db, clock, log: createLogger("silent"), jsBundleHash: "test" });
  const channel = new RecordingChannel();
  services.engine.attach(channel);
  return {
    services,
    app: createApp(services, "/nonexistent"),
    clock,
    channel,
    close: async () => {
      await services.hub.close();
      await database.close();
    },
  };
}

/** Ids created by `seedLoop`. */
export interface Seeded {
  agentId: string;
  backendId: string;
  aclId: string;
  userId: string;
}

const actor = { adminName: "test-admin", ip: "127.0.0.1" };

/**
 * Seeds the core loop: the roomy test licence (`licenseHarness`; creating ACLs needs a licence),
 * an agent that has connected once (version and ipset/haproxy capabilities), a haproxy backend, one
 * ACL (#ID 1, options as given) and a local user "alice" (password "alice-password") assigned to it.
 * With `licence: false` the licence store is emptied again once the ACL exists (tests of the
 * unlicensed install); alice is then created unlicensed (SessionLimit as given: unlimited).
 */
export async function seedLoop(
  h: Harness,
  acl: { clickToGrant?: boolean; maximumGrantDurationSeconds?: number | null; licence?: boolean } = {},
): Promise<Seeded> {
  await licenseHarness(h);
  const s = h.services;
  const agent = await s.agents.create("edge", "http://127.0.0.1:8080", actor);
  await s.agents.enrol(
    {
      Token: agent.Token,
      SigningPublicKey: "x",
      BoxPublicKey: "y",
      Version: "1.9.0",
      Capabilities: { haproxy: { socket_location: "/run/haproxy.sock" } },
    },
    "127.0.0.1",
  );
  const backendId = await s.backends.create(
    { Name: "proxy", AgentID: agent.ID, Config: { haproxy: { Protocol: "unix", Address: "/run/haproxy.sock" } } },
    actor,
  );
  const aclId = await s.acls.create(
    {
      Description: "Intranet",
      URL: "https://intranet.example",
      Category: "Default",
      Icon: "",
      ClickToGrant: acl.clickToGrant ?? true,
      CGNATOpen: false,
      HideFromUsers: false,
      HideFromAdmins: false,
      AutoBrowseUsers: false,
      MaximumGrantDuration: acl.maximumGrantDurationSeconds ?? null,
      BackendID: backendId,
      ParentID: "00000000-0000-0000-0000-000000000000",
      IpExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      GrantType: { Type: "userIp", Ips: [] },
      Config: { UriToken: "", haproxy: { ID: 1 } },
    },
    actor,
  );
  if (acl.licence === false) await unlicenseHarness(h);
  const userId = await s.users.create(
    {
      Name: "Alice",
      UserName: "alice",
      Company: "",
      Duration: 480,
      SessionLimit: null,
      AuthType: "local",
      PlainPassword: "alice-password",
      ConfirmPassword: "alice-password",
      TOTPEnabled: false,
      ValidUntil: null,
      ThirdPartyAuth: { DN: "" },
      AclIds: [aclId],
    },
    actor,
  );
  return { agentId: agent.ID, backendId, aclId, userId };
}

/** One in-process API exchange's result. */
export interface ApiResult {
  status: number;
  body: unknown;
  setCookie: string;
  headers: Headers;
}

/** The node-server binding's socket as getConnInfo reads it: requests come from 203.0.113.5 unless told. */
export function socketEnv(remoteAddress = "203.0.113.5") {
  return {
    incoming: {
      socket: { remoteAddress, remotePort: 40000, remoteFamily: remoteAddress.includes(":") ? "IPv6" : "IPv4" },
    },
  };
}

/**
 * Sends one request to the harness app (host postern.test). A body that is a string is sent as is,
 * anything else as JSON. `cookie` is a `name=value` pair.
 */
export async function apiRequest(
  h: Harness,
  method: string,
  path: string,
  body?: unknown,
  opts: { cookie?: string; headers?: Record<string, string>; from?: string } = {},
): Promise<ApiResult> {
  const res = await h.app.request(
    `http://postern.test${path}`,
    {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(opts.cookie ? { cookie: opts.cookie } : {}),
        host: "postern.test",
        ...opts.headers,
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    },
    socketEnv(opts.from),
  );
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json") && text) parsed = JSON.parse(text) as unknown;
  return { status: res.status, body: parsed, setCookie: res.headers.get("set-cookie") ?? "", headers: res.headers };
}

/** Creates an admin "root" (password "root-password") and returns its session cookie. */
export async function signInAdmin(h: Harness, userName = "root"): Promise<string> {
  await h.services.adminSessions.createLocalAdmin({ userName, name: userName, password: "root-password" });
  const r = await apiRequest(h, "POST", "/api/admin/login", { UserName: userName, Password: "root-password" });
  if (r.status !== 204) throw new Error(`admin sign-in failed: ${r.status}`);
  return r.setCookie.split(";")[0] ?? "";
}

/**
 * Ends every audit folding window (services/audit-fold.ts) without its summary, so the next refusal
 * from any address is written as it is. For tests that check each refusal's own audit entry; the
 * folding itself is tested in services/audit-fold.test.ts.
 */
export async function unfoldAudits(h: { services: Pick<Services, "db"> }): Promise<void> {
  await h.services.db.delete(auditFolds);
}
