import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditLogCsvColumns, AuditLogPageSchema } from "@postern/shared";
import type { AuditLogEntry } from "@postern/shared";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";
import { AuditAction, writeAudit } from "../../services/audit.ts";
import type { AuditEntry } from "../../services/audit.ts";
import { CSV_BATCH_ROWS } from "../../services/audit-log.ts";

const { auditLog } = testTables;

let h: Harness;
let adminCookie = "";
const DAY = 24 * 60 * 60 * 1000;
/** Requests come from this socket address (as getConnInfo reads it). */
const env = { incoming: { socket: { remoteAddress: "203.0.113.5", remotePort: 40000, remoteFamily: "IPv4" } } };

async function raw(method: string, path: string, cookie = adminCookie, body?: unknown): Promise<Response> {
  return h.app.request(
    `http://postern.test${path}`,
    {
      method,
      headers: {
        host: "postern.test",
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    },
    env,
  );
}
async function get(path: string, cookie = adminCookie) {
  const res = await raw("GET", path, cookie);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}
async function adminLogin(): Promise<string> {
  const res = await raw("POST", "/api/admin/login", "", { UserName: "root", Password: "root-password" });
  expect(res.status).toBe(204);
  return (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
}
/** Empties the log (the harness set-up writes entries) so counts below are exact. */
async function emptyLog(): Promise<void> {
  await h.services.db.delete(auditLog);
}
async function write(entry: Partial<AuditEntry> & { at: number }): Promise<void> {
  await writeAudit(h.services.db, { action: AuditAction.userLoggedIn, ...entry });
}

/** A strict RFC 4180 reader (CRLF records, "" escapes), to check the export byte for byte. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else cell += ch;
      i += 1;
      continue;
    }
    if (ch === '"') {
      if (cell !== "") throw new Error(`quote inside an unquoted cell at ${i}`);
      quoted = true;
    } else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i += 1;
    } else if (ch === "\n" || ch === "\r") throw new Error(`bare line break outside quotes at ${i}`);
    else cell += ch;
    i += 1;
  }
  if (quoted) throw new Error("unterminated quote");
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

beforeEach(async () => {
  h = await createHarness();
  await h.services.adminSessions.createLocalAdmin({ userName: "root", name: "Root", password: "root-password" });
  adminCookie = await adminLogin();
});
afterEach(async () => {
  await h.close();
});

describe("GET /api/admin/logs", () => {
  it("pages newest first with the paging in headers, and answers an empty page past the end", async () => {
    await emptyLog();
    const base = h.clock.now() - 1000 * 60_000;
    for (let i = 0; i < 60; i++) await write({ at: base + i * 1000, userName: `user${i}` });

    const first = await get("/api/admin/logs");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-total-count")).toBe("60");
    expect(first.headers.get("x-page")).toBe("1");
    expect(first.headers.get("x-page-size")).toBe("25");
    const page1 = AuditLogPageSchema.parse(first.body);
    expect(page1).toHaveLength(25);
    expect(page1[0]).toEqual({
      ID: page1[0]!.ID,
      Date: new Date(base + 59_000).toISOString(),
      Entry: { Action: "userLoggedIn", UserName: "user59" },
    });

    const page2 = AuditLogPageSchema.parse((await get("/api/admin/logs?page=2")).body);
    const last = await get("/api/admin/logs?page=3&pageSize=25");
    const page3 = AuditLogPageSchema.parse(last.body);
    expect(page2).toHaveLength(25);
    expect(page3).toHaveLength(10);
    expect(last.headers.get("x-page")).toBe("3");
    const names = [...page1, ...page2, ...page3].map((e) => e.Entry.UserName);
    expect(names).toEqual(Array.from({ length: 60 }, (_, i) => `user${59 - i}`));

    const past = await get("/api/admin/logs?page=4");
    expect(past).toMatchObject({ status: 200, body: [] });
    expect(past.headers.get("x-total-count")).toBe("60");

    const all = await get("/api/admin/logs?pageSize=200");
    expect(all.body).toHaveLength(60);
    expect(all.headers.get("x-page-size")).toBe("200");
    const one = AuditLogPageSchema.parse((await get("/api/admin/logs?page=60&pageSize=1")).body);
    expect(one.map((e) => e.Entry.UserName)).toEqual(["user0"]);
  });

  it("orders entries of the same millisecond by the order they were written", async () => {
    await emptyLog();
    const at = h.clock.now();
    await write({ at, description: "first" });
    await write({ at, description: "second" });
    await write({ at: at - 1, description: "earlier" });
    const page = AuditLogPageSchema.parse((await get("/api/admin/logs")).body);
    expect(page.map((e) => e.Entry.Description)).toEqual(["second", "first", "earlier"]);
  });

  it("carries every detail the entry holds and leaves out the empty ones", async () => {
    await emptyLog();
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    await write({
      at,
      action: AuditAction.grantError,
      userName: "alice",
      adminName: "root",
      agentName: "edge",
      ipAddress: "2001:db8::1",
      errorMessage: "refused",
      aclDescription: "Intranet",
      description: "d",
    });
    await write({ at: at + 1, action: AuditAction.agentDeleted, agentName: "edge" });
    const page = (await get("/api/admin/logs")).body as AuditLogEntry[];
    expect(page.map(({ Date, Entry }) => ({ Date, Entry }))).toEqual([
      { Date: "2026-01-02T03:04:05.679Z", Entry: { Action: "agentDeleted", AgentName: "edge" } },
      {
        Date: "2026-01-02T03:04:05.678Z",
        Entry: {
          Action: "grantError",
          UserName: "alice",
          AdminName: "root",
          AgentName: "edge",
          IpAddress: "2001:db8::1",
          ErrorMessage: "refused",
          AclDescription: "Intranet",
          Description: "d",
        },
      },
    ]);
    expect(page[0]!.ID).toBeGreaterThan(page[1]!.ID);
  });

  it("searches case-insensitively for a literal substring, wildcards included", async () => {
    await emptyLog();
    const at = h.clock.now();
    await write({ at, description: "disk 100% full" });
    await write({ at, description: "disk 1000 full" });
    await write({ at, description: "rule a_b" });
    await write({ at, description: "rule axb" });
    await write({ at, description: "path C:\\temp" });
    await write({ at, description: "path C:temp" });
    await write({ at, userName: "Alice" });
    await write({ at, adminName: "ALICE-admin" });
    await write({ at, agentName: "edge-alice" });
    await write({ at, ipAddress: "198.51.100.7" });
    await write({ at, errorMessage: "Timeout talking to agent" });
    await write({ at, aclDescription: "Intranet" });
    await write({ at, action: AuditAction.revokeError });

    const find = async (term: string) => {
      const r = await get(`/api/admin/logs?pageSize=200&search=${encodeURIComponent(term)}`);
      expect(r.status).toBe(200);
      const entries = r.body as AuditLogEntry[];
      expect(r.headers.get("x-total-count")).toBe(String(entries.length));
      return entries.map((e) => e.Entry);
    };
    expect((await find("100%")).map((e) => e.Description)).toEqual(["disk 100% full"]);
    expect((await find("a_b")).map((e) => e.Description)).toEqual(["rule a_b"]);
    expect((await find("%")).map((e) => e.Description)).toEqual(["disk 100% full"]);
    expect((await find("_")).map((e) => e.Description)).toEqual(["rule a_b"]);
    expect((await find("C:\\t")).map((e) => e.Description)).toEqual(["path C:\\temp"]);
    expect((await find("alice")).map((e) => e.UserName ?? e.AdminName ?? e.AgentName)).toEqual([
      "edge-alice",
      "ALICE-admin",
      "Alice",
    ]);
    expect(await find("  51.100.7 ")).toEqual([{ Action: "userLoggedIn", IpAddress: "198.51.100.7" }]);
    expect(await find("TIMEOUT")).toEqual([{ Action: "userLoggedIn", ErrorMessage: "Timeout talking to agent" }]);
    expect(await find("intranet")).toEqual([{ Action: "userLoggedIn", AclDescription: "Intranet" }]);
    expect(await find("revokeerr")).toEqual([{ Action: "revokeError" }]);
    expect(await find("nothing like this")).toEqual([]);
    expect(await find("")).toHaveLength(13);
  });

  it("refuses bad query values with 400 Bad request naming the parameter", async () => {
    const bad = async (query: string) => {
      const r = await get(`/api/admin/logs?${query}`);
      expect(r.status).toBe(400);
      return r.body;
    };
    const page = { Err: "Bad request", Extra: "page must be a whole number from 1 to 1000000" };
    const size = { Err: "Bad request", Extra: "pageSize must be a whole number from 1 to 200" };
    expect(await bad("page=0")).toEqual(page);
    expect(await bad("page=-1")).toEqual(page);
    expect(await bad("page=abc")).toEqual(page);
    expect(await bad("page=1.5")).toEqual(page);
    expect(await bad("page=")).toEqual(page);
    expect(await bad("page=1000001")).toEqual(page);
    expect(await bad("pageSize=0")).toEqual(size);
    expect(await bad("pageSize=201")).toEqual(size);
    expect(await bad("pageSize=1e2")).toEqual(size);
    expect(await bad(`search=${"x".repeat(201)}`)).toEqual({
      Err: "Bad request",
      Extra: "search must be at most 200 characters",
    });
    expect((await get(`/api/admin/logs?page=1000000&pageSize=200&search=${"x".repeat(200)}`)).status).toBe(200);
    expect((await get("/api/admin/logs/export?page=0")).body).toEqual(page);
  });
});

describe("DELETE /api/admin/logs", () => {
  it("removes entries older than 30 days, keeps the rest, and records the clear", async () => {
    await emptyLog();
    await write({ at: h.clock.now(), description: "old" });
    h.clock.advance(2 * DAY);
    await write({ at: h.clock.now(), description: "kept" });
    h.clock.advance(29 * DAY);
    // 31 days after "old", 29 after "kept"; the admin session of 12 hours has ended meanwhile.
    expect((await get("/api/admin/logs")).body).toEqual({ Err: "err.invalidSession" });
    adminCookie = await adminLogin();
    const res = await raw("DELETE", "/api/admin/logs");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ Removed: 1 });

    const entries = (await get("/api/admin/logs")).body as AuditLogEntry[];
    expect(entries.map((e) => e.Entry.Action)).toEqual(["auditLogCleared", "adminLoggedIn", "userLoggedIn"]);
    expect(entries[2]!.Entry.Description).toBe("kept");
    const cutoff = new Date(h.clock.now() - 30 * DAY).toISOString().slice(0, 16);
    expect(entries[0]!.Entry).toMatchObject({ Action: "auditLogCleared", AdminName: "root", IpAddress: "203.0.113.5" });
    expect(entries[0]!.Entry.Description).toMatch(
      new RegExp(`^Removed 1 entries older than 30 days \\(before ${cutoff}`),
    );

    const again = await raw("DELETE", "/api/admin/logs");
    expect(await again.json()).toEqual({ Removed: 0 });
  });
});

describe("GET /api/admin/logs/export", () => {
  it("streams a CSV with a header row, ISO dates, proper quoting and formula-safe cells", async () => {
    await emptyLog();
    const at = Date.UTC(2026, 4, 6, 7, 8, 9, 10);
    await write({ at, userName: 'say "hi", then\r\nleave', description: "line1\nline2" });
    await write({
      at: at + 1,
      userName: '=HYPERLINK("http://evil")',
      adminName: "+1",
      agentName: "-2",
      ipAddress: "@SUM(A1)",
      description: "\tTab",
      errorMessage: "a = b",
      aclDescription: "Über ACL",
    });
    const res = await raw("GET", "/api/admin/logs/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${day}-postern-audit.csv"`);
    const text = await res.text();
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...AuditLogCsvColumns]);
    expect(rows.slice(1).map((r) => r.slice(1))).toEqual([
      [
        "2026-05-06T07:08:09.011Z",
        "userLoggedIn",
        '\'=HYPERLINK("http://evil")',
        "'+1",
        "'-2",
        "'@SUM(A1)",
        "Über ACL",
        "'\tTab",
        "a = b",
      ],
      ["2026-05-06T07:08:09.010Z", "userLoggedIn", 'say "hi", then\r\nleave', "", "", "", "", "line1\nline2", ""],
    ]);
    expect(Number(rows[1]![0])).toBeGreaterThan(Number(rows[2]![0]));
    expect(text.endsWith("\r\n")).toBe(true);
  });

  it("exports only the current search, and every entry across read batches", async () => {
    await emptyLog();
    const base = h.clock.now() - 10 * DAY;
    const n = CSV_BATCH_ROWS * 2 + 7;
    for (let i = 0; i < n; i++)
      await write({ at: base + Math.floor(i / 3), description: i % 2 === 0 ? `even ${i}` : `odd ${i}` });
    const all = parseCsv(await (await raw("GET", "/api/admin/logs/export")).text());
    expect(all).toHaveLength(n + 1);
    const ids = all.slice(1).map((r) => Number(r[0]));
    expect(new Set(ids).size).toBe(n);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const odd = parseCsv(await (await raw("GET", "/api/admin/logs/export?search=ODD")).text());
    expect(odd).toHaveLength(Math.floor(n / 2) + 1);
    expect(odd.slice(1).every((r) => r[8]!.startsWith("odd "))).toBe(true);
    const none = parseCsv(await (await raw("GET", "/api/admin/logs/export?search=zzz")).text());
    expect(none).toEqual([[...AuditLogCsvColumns]]);
  });
});

describe("audit log access", () => {
  it("is for admins only: no session and a user session are refused", async () => {
    await h.services.users.create(
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
        AclIds: [],
      },
      { adminName: "root", ip: "127.0.0.1" },
    );
    const login = await raw("POST", "/api/login", "", { UserName: "alice", Password: "alice-password" });
    expect(login.status).toBe(200);
    const userCookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const before = (await get("/api/admin/logs?pageSize=200")).body as unknown[];
    for (const cookie of ["", userCookie, "postern_admin_session=forged"]) {
      for (const [method, path] of [
        ["GET", "/api/admin/logs"],
        ["GET", "/api/admin/logs/export"],
        ["DELETE", "/api/admin/logs"],
      ] as const) {
        const res = await raw(method, path, cookie);
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ Err: "err.invalidSession" });
      }
    }
    expect((await get("/api/admin/logs?pageSize=200")).body).toEqual(before);
  });
});
