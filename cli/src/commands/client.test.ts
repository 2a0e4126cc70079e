import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eq } from "drizzle-orm";
import { SessionStatusSchema, UserWriteSchema } from "@postern/shared";
import type { ApiKeyUserSession, SessionStatus } from "@postern/shared";
import { startServer } from "@postern/server";
import type { RunningServer } from "@postern/server";
import { tablesOf } from "../../../server/src/db/index.ts";
import { seedLoop, unfoldAudits } from "../../../server/src/testing/harness.ts";
import type { Harness } from "../../../server/src/testing/harness.ts";
import {
  FatalClientError,
  MAX_ATTEMPTS,
  RetryableError,
  backoffMs,
  parseInterval,
  parseServerUrl,
  runClient,
  statusLine,
  withRetry,
} from "./client.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
/** Each CLI start takes about a second here (type stripping); the long runs add a few intervals. */
const SLOW = 120_000;
const actor = { adminName: "test-admin", ip: "127.0.0.1" };

let dir = "";
let server: RunningServer;
/** The server's clock: real time shifted by `offset` ms (the renewal test moves it back). */
const clock = {
  offset: 0,
  now(): number {
    return Date.now() + this.offset;
  },
};
let aclId = "";
/** API-key users and their keys, by user name. */
const keys = new Map<string, { id: string; key: string }>();
const children: ChildProcess[] = [];

async function apiKeyUser(userName: string): Promise<{ id: string; key: string }> {
  const input = UserWriteSchema.parse({
    Name: userName.toUpperCase(),
    UserName: userName,
    AuthType: "apikey",
    AclIds: [aclId],
  });
  const created = await server.services.apiKeyUsers.createUser(
    input,
    { Name: `${userName} key`, ExpiredAfter: null },
    actor,
  );
  const entry = { id: created.ID, key: created.ApiKey.PlaintextKey! };
  keys.set(userName, entry);
  return entry;
}
const liveSessions = async (userId: string) => await server.services.users.sessions(userId);
const audits = async (action: string) =>
  await server.services.db
    .select()
    .from(tablesOf(server.services.db).auditLog)
    .where(eq(tablesOf(server.services.db).auditLog.action, action));

/** A running `postern client` child: its output so far, and its exit. */
interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the real CLI entry as a child process with `input` on stdin. */
function client(args: string[], input: string): Run {
  const child = spawn(process.execPath, [MAIN, "client", ...args], {
    env: { ...process.env, POSTERN_DATA_DIR: join(dir, "unused") },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString("utf8")));
  child.stdin!.end(input);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Waits (polling every 50 ms, at most `ms`) until `f` is true; throws with `what` otherwise. */
async function until(what: string, f: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const statusLines = (r: Run) =>
  r
    .stderr()
    .split("\n")
    .filter((l) => l.startsWith("status "));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "postern-client-"));
  server = await startServer({
    dataDir: join(dir, "data"),
    listen: "127.0.0.1:0",
    migrate: true,
    logLevel: "silent",
    webDir: join(dir, "no-web"),
    clock,
  });
  // An agent, a backend and an ACL that grants at sign-in (the agent is not connected: AgentOffline).
  aclId = (await seedLoop({ services: server.services } as unknown as Harness, { clickToGrant: false })).aclId;
  await apiKeyUser("robot");
  await apiKeyUser("runner");
  await apiKeyUser("phoenix");
  await apiKeyUser("renewer");
}, SLOW);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("postern client against a real server", () => {
  it(
    "--once signs in, prints the status as JSON on stdout and exits; the session stays",
    async () => {
      const robot = keys.get("robot")!;
      const run = client(["--server", `${server.url}/`, "--key-stdin", "--once"], `${robot.key}\n`);
      expect(await run.exited).toBe(0);
      const status: SessionStatus = SessionStatusSchema.parse(JSON.parse(run.stdout()));
      expect(status).toMatchObject({
        Name: "ROBOT",
        CurrentAddress: "127.0.0.1",
        AuthType: "apikey",
        ACLs: [{ ACLID: aclId, Status: 3 }],
      });
      expect(run.stderr()).toMatch(/^signed in as ROBOT: session [0-9a-f-]{36} ends /);
      const sessions = await liveSessions(robot.id);
      expect(sessions).toHaveLength(1);
      expect(run.stderr()).toContain(sessions[0]!.ID);
      expect((await audits("userLoggedIn")).filter((a) => a.userName === "robot")).toHaveLength(1);
    },
    SLOW,
  );

  it(
    "runs every --interval, prints a status line per check, and on SIGTERM signs out and exits 0",
    async () => {
      const runner = keys.get("runner")!;
      const run = client(["--server", server.url, "--key-stdin", "--interval", "1"], runner.key);
      await until("two status lines", () => statusLines(run).length >= 2);
      expect(statusLines(run)[0]).toMatch(
        /^status \S+Z: RUNNER at 127\.0\.0\.1, session ends \S+Z; Intranet: AgentOffline$/,
      );
      expect(await liveSessions(runner.id)).toHaveLength(1);
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
      expect(run.stderr()).toContain("SIGTERM: stopping");
      expect(run.stderr()).toMatch(/signed out: session [0-9a-f-]{36} ended/);
      expect(await liveSessions(runner.id)).toEqual([]);
      expect((await audits("userLoggedOut")).filter((a) => a.userName === "runner")).toHaveLength(1);
    },
    SLOW,
  );

  it(
    "signs in again when an admin ends its session",
    async () => {
      const phoenix = keys.get("phoenix")!;
      const run = client(["--server", server.url, "--key-stdin", "--interval", "1", "--keep-session"], phoenix.key);
      await until("the first status line", () => statusLines(run).length >= 1);
      const [first] = await liveSessions(phoenix.id);
      await server.services.sessions.endUserSession(first!.ID, actor);
      await until("a new session", () => /signed in again as PHOENIX/.test(run.stderr()));
      expect(run.stderr()).toContain(`session ${first!.ID} has ended; signing in again`);
      const after = await liveSessions(phoenix.id);
      expect(after).toHaveLength(1);
      expect(after[0]!.ID).not.toBe(first!.ID);
      const lines = statusLines(run).length;
      await until("a status line of the new session", () => statusLines(run).length > lines);
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(0);
      // --keep-session: the session is left to run out.
      expect((await liveSessions(phoenix.id)).map((s) => s.ID)).toEqual([after[0]!.ID]);
      expect((await audits("userLoggedIn")).filter((a) => a.userName === "phoenix")).toHaveLength(2);
    },
    SLOW,
  );

  it(
    "renews the session ahead of its end and ends the replaced one",
    async () => {
      const renewer = keys.get("renewer")!;
      // Sessions issued now end 7 s from now in real time (480 minutes of the shifted server clock);
      // with checks every 2 s the client renews when 4 s or less are left: at the second check.
      clock.offset = -(480 * 60_000 - 7000);
      try {
        const run = client(["--server", server.url, "--key-stdin", "--interval", "2"], renewer.key);
        await until("a renewal", () => /renewed as RENEWER: session /.test(run.stderr()));
        const lines = statusLines(run).length;
        await until("a status line after the renewal", () => statusLines(run).length > lines);
        run.child.kill("SIGTERM");
        expect(await run.exited).toBe(0);
        const renewed = run.stderr().match(/renewed as RENEWER: session ([0-9a-f-]{36})/)![1]!;
        const first = run.stderr().match(/^signed in as RENEWER: session ([0-9a-f-]{36})/)![1]!;
        expect(renewed).not.toBe(first);
        // The replaced session was ended with the key; the session live at SIGTERM was signed out.
        const outs = (await audits("userLoggedOut")).filter((a) => a.userName === "renewer");
        expect(outs[0]).toMatchObject({ description: 'session ended with API key "renewer key"' });
        expect(outs.length).toBeGreaterThanOrEqual(2);
        expect(await liveSessions(renewer.id)).toEqual([]);
        expect(run.stderr()).not.toContain("has ended");
      } finally {
        clock.offset = 0;
      }
    },
    SLOW,
  );

  it(
    "a refused key is fatal at once (exit 1, no retries); bad arguments are refused before any request",
    async () => {
      const denied = (await audits("apiKeyAccessDenied")).length;
      const run = client(["--server", server.url, "--key-stdin"], "pst_not_a_key");
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain("postern: sign-in refused (401 Unauthorised)");
      expect(run.stderr()).not.toContain("retrying");
      expect(await audits("apiKeyAccessDenied")).toHaveLength(denied + 1);
      await unfoldAudits(server); // the next refusal from this address is audited on its own, not folded
      const other = client(
        ["--server", server.url, "--key-stdin", "--once", "--user", "robot"],
        keys.get("runner")!.key,
      );
      expect(await other.exited).toBe(1);
      expect(other.stderr()).toContain("postern: sign-in refused (403 Unauthorised)");
      const bad = [
        [["--server", "ftp://example", "--key-stdin"], "--server must be an http or https URL"],
        [["--server", server.url, "--key-stdin", "--interval", "0"], "--interval must be whole seconds"],
        [["--server", server.url, "--key-stdin", "--once"], "no API key on standard input"],
      ] as const;
      const runs = bad.map(([args]) => client([...args], "\n"));
      expect(await Promise.all(runs.map((r) => r.exited))).toEqual([1, 1, 1]);
      runs.forEach((r, i) => expect(r.stderr()).toContain(bad[i]![1]));
      expect(await audits("apiKeyAccessDenied")).toHaveLength(denied + 2);
    },
    SLOW,
  );
});

describe("client pieces", () => {
  it("formats status lines with each ACL's state and error", () => {
    const status = SessionStatusSchema.parse({
      Name: "Robot",
      CurrentAddress: "198.51.100.20",
      Ends: "2030-01-01T08:00:00.000Z",
      ValidUntil: null,
      Licensed: true,
      UserLicensed: false,
      NewUserDashboard: false,
      AuthType: "apikey",
      AutoBrowseToURI: "",
      ACLs: [
        {
          ID: "11111111-1111-4111-8111-111111111111",
          ACLID: "11111111-1111-4111-8111-111111111112",
          ParentID: "00000000-0000-0000-0000-000000000000",
          Description: "Intranet",
          URL: "",
          Icon: "",
          Category: "Default",
          Status: 0,
          Error: "",
          ExpiredAfter: "",
          ClickToGrant: false,
          CGNATOpen: false,
          HideFromUsers: false,
          DisableForUser: false,
          GrantTypeFixedIps: false,
          AutoBrowseUsers: false,
          Config: { UriToken: "" },
        },
        {
          ID: "11111111-1111-4111-8111-111111111113",
          ACLID: "11111111-1111-4111-8111-111111111114",
          ParentID: "00000000-0000-0000-0000-000000000000",
          Description: "Wiki",
          URL: "",
          Icon: "",
          Category: "Default",
          Status: 1,
          Error: "agent refused",
          ExpiredAfter: "",
          ClickToGrant: true,
          CGNATOpen: false,
          HideFromUsers: false,
          DisableForUser: false,
          GrantTypeFixedIps: false,
          AutoBrowseUsers: false,
          Config: { UriToken: "" },
        },
      ],
    });
    expect(statusLine(status, new Date("2030-01-01T00:00:00.000Z"))).toBe(
      "status 2030-01-01T00:00:00.000Z: Robot (not licensed) at 198.51.100.20, session ends 2030-01-01T08:00:00.000Z; Intranet: Granted, Wiki: GrantError (agent refused)",
    );
    expect(statusLine({ ...status, UserLicensed: true, ACLs: [] }, new Date(0))).toBe(
      "status 1970-01-01T00:00:00.000Z: Robot at 198.51.100.20, session ends 2030-01-01T08:00:00.000Z; no ACLs",
    );
  });

  it("checks --server and --interval", () => {
    expect(parseServerUrl(" https://postern.example.com/ ")).toBe("https://postern.example.com");
    expect(parseServerUrl("http://127.0.0.1:8080/base//")).toBe("http://127.0.0.1:8080/base");
    for (const bad of ["postern.example.com", "ftp://x", "https://u:p@x", "https://x/?a=1", "https://x/#f"])
      expect(() => parseServerUrl(bad), bad).toThrow(/--server/);
    expect(parseInterval("30")).toBe(30);
    expect(parseInterval("3600")).toBe(3600);
    for (const bad of ["0", "3601", "1.5", "-1", "x", ""]) expect(() => parseInterval(bad), bad).toThrow(/--interval/);
  });

  it("backs off 1 s doubling to 30 s with ±20 % jitter", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map((a) => backoffMs(a, () => 0.5))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(backoffMs(1, () => 0)).toBe(800);
    expect(backoffMs(1, () => 1)).toBe(1200);
  });

  it("retries only retryable failures, at most MAX_ATTEMPTS times, and stops on abort", async () => {
    const lines: string[] = [];
    const o = { signal: new AbortController().signal, err: (l: string) => lines.push(l), backoff: () => 1 };
    let calls = 0;
    await expect(
      withRetry(o, "x", () => {
        calls += 1;
        return Promise.reject(new RetryableError("busy"));
      }),
    ).rejects.toThrow("busy");
    expect(calls).toBe(MAX_ATTEMPTS);
    expect(lines).toHaveLength(MAX_ATTEMPTS - 1);
    calls = 0;
    await expect(
      withRetry(o, "x", () => {
        calls += 1;
        return Promise.reject(new FatalClientError("refused"));
      }),
    ).rejects.toThrow("refused");
    expect(calls).toBe(1);
    calls = 0;
    expect(
      await withRetry(o, "x", () => {
        calls += 1;
        return calls < 3 ? Promise.reject(new RetryableError("busy")) : Promise.resolve("ok");
      }),
    ).toBe("ok");
    const stop = new AbortController();
    const pending = withRetry({ ...o, signal: stop.signal, backoff: () => 60_000 }, "x", () =>
      Promise.reject(new RetryableError("busy")),
    );
    stop.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("retries a busy server (429/503 with Retry-After) and then signs in; a server that stays down fails after its retries", async () => {
    let hits = 0;
    const session: ApiKeyUserSession = {
      ID: "11111111-1111-4111-8111-111111111111",
      Token: "t",
      Ends: "2030-01-01T08:00:00.000Z",
      Status: {
        Name: "Robot",
        CurrentAddress: "127.0.0.1",
        Ends: "2030-01-01T08:00:00.000Z",
        ValidUntil: null,
        Licensed: true,
        UserLicensed: true,
        NewUserDashboard: false,
        AuthType: "apikey",
        AutoBrowseToURI: "",
        ACLs: [],
      },
    };
    const stub: Server = createServer((req, res) => {
      hits += 1;
      expect(req.headers.authorization).toBe("Bearer pst_key");
      if (hits === 1)
        res
          .writeHead(503, { "content-type": "application/json" })
          .end(JSON.stringify({ Err: "Internal server error" }));
      else if (hits === 2)
        res
          .writeHead(429, { "content-type": "application/json", "retry-after": "1" })
          .end(JSON.stringify({ Err: "Too many requests. Please try again in..." }));
      else res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(session));
    });
    await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
    const port = (stub.address() as AddressInfo).port;
    try {
      const url = `http://127.0.0.1:${port}`;
      const out: string[] = [];
      const err: string[] = [];
      const started = Date.now();
      await runClient({
        server: url,
        key: "pst_key",
        once: true,
        intervalSeconds: 30,
        keepSession: true,
        signal: new AbortController().signal,
        out: (l) => out.push(l),
        err: (l) => err.push(l),
        backoff: () => 10,
      });
      expect(hits).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // Retry-After: 1
      expect(err.slice(0, 2)).toEqual([
        expect.stringContaining("sign-in refused (503 Internal server error); retrying in 0.0 s (attempt 2 of 5)"),
        expect.stringContaining(
          "sign-in refused (429 Too many requests. Please try again in...); retrying in 1.0 s (attempt 3 of 5)",
        ),
      ]);
      expect(JSON.parse(out.join("\n"))).toEqual(session.Status);
    } finally {
      await new Promise<void>((r) => stub.close(() => r()));
    }
    // Nothing listens on the port any more: every attempt fails to connect.
    const err: string[] = [];
    await expect(
      runClient({
        server: `http://127.0.0.1:${port}`,
        key: "pst_key",
        once: true,
        intervalSeconds: 30,
        keepSession: true,
        signal: new AbortController().signal,
        out: () => undefined,
        err: (l) => err.push(l),
        backoff: () => 10,
      }),
    ).rejects.toThrow(/cannot reach/);
    expect(err).toHaveLength(MAX_ATTEMPTS - 1);
  });
});
