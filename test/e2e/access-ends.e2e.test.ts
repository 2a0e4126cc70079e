/**
 * Access ends when it should (issue #8 items 1–3; docs/decisions.md "Access ends with the account"),
 * end to end on a real HAProxy enforced by a real `postern-agent run` process:
 * 1. an account's ValidUntil ends its sessions and their firewall entries within 1 s, and a later
 *    ValidUntil never revives them;
 * 2. addresses observed by IP discovery leave the firewall when the session's main address moves,
 *    and age out after OBSERVED_ADDRESS_TTL_MS otherwise;
 * 3. deleting an API key, or its expiry, ends the sessions it signed in and their entries.
 * Each user comes from its own 127.0.0.x addresses. Only the last test moves the server's test clock
 * (the others wait in real time, so the agent's clock and the server's agree).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { httpGetFrom, startHaproxy } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";
import {
  ApiClient,
  aclStatus,
  createAndEnrolAgent,
  createUser,
  httpJson,
  spawnAgent,
  startStack,
  waitFor,
} from "../support/stack.ts";
import type { AgentProcess, Stack } from "../support/stack.ts";
import { discoveryPortsOf } from "../../server/src/http/discovery.ts";
import { OBSERVED_ADDRESS_TTL_MS } from "../../server/src/services/grants/observed.ts";

const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;

describe.skipIf(!hasHaproxy)("access ends when it should (real HAProxy)", () => {
  let haproxy: HaproxyInstance;
  let stack: Stack;
  let agent: AgentProcess;
  let aclId = "";
  let frontend = "";
  let discoveryPort = 0;

  /** True when HAProxy lets `ip` through, false when it refuses it (403); throws on anything else. */
  const allowed = async (ip: string): Promise<boolean> => {
    const r = await httpGetFrom(ip, frontend);
    if (r !== 200 && r !== 403) throw new Error(`HAProxy answered ${String(r)} to ${ip}`);
    return r === 200;
  };
  /** Waits (bounded by `ms`) until HAProxy refuses `ip`; returns whether it did. */
  const refusedWithin = (ip: string, ms: number) => waitFor(async () => !(await allowed(ip)), ms, 25);

  /** A client of `user` coming from `ip` (the same session cookie). */
  const from = (user: ApiClient, ip: string): ApiClient => {
    const c = new ApiClient(stack.server.url, { localAddress: ip });
    c.cookie = user.cookie;
    return c;
  };

  /** Signs a local user in from `ip` and grants the ACL; waits until HAProxy lets `ip` through. */
  const signInAndGrant = async (userName: string, ip: string): Promise<ApiClient> => {
    const user = new ApiClient(stack.server.url, { localAddress: ip });
    await user.ok("POST", "/api/login", { UserName: userName, Password: `${userName}-password`, KioskMode: false });
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(async () => (await aclStatus(user, aclId)).Status === 0)).toBe(true);
    expect(await allowed(ip)).toBe(true);
    return user;
  };

  /** Sets a user's ValidUntil (epoch ms, or null) through the admin API. */
  const setValidUntil = (userId: string, userName: string, at: number | null) =>
    stack.admin.ok("PUT", `/api/admin/users/${userId}`, {
      Name: userName,
      UserName: userName,
      AclIds: [aclId],
      ValidUntil: at === null ? null : new Date(at).toISOString(),
    });

  /** Creates an API-key user with its key (ExpiredAfter epoch ms or null); returns the user id, key id and key. */
  const createKeyUser = async (userName: string, expiredAfter: number | null) => {
    const created = await stack.admin.ok<{ ID: string; ApiKey: { ID: string; PlaintextKey: string } }>(
      "POST",
      "/api/admin/users",
      {
        Name: userName,
        UserName: userName,
        AuthType: "apikey",
        AclIds: [aclId],
        ApiKey: {
          Name: `${userName}-key`,
          ExpiredAfter: expiredAfter === null ? null : new Date(expiredAfter).toISOString(),
        },
      },
    );
    return { userId: created.ID, keyId: created.ApiKey.ID, key: created.ApiKey.PlaintextKey };
  };

  /** Signs an API-key user in with `key` from `ip` (POST /api/v1/user_sessions), grants, waits for HAProxy. */
  const keySignInAndGrant = async (key: string, ip: string): Promise<ApiClient> => {
    const r = await httpJson("POST", `${stack.server.url}/api/v1/user_sessions`, undefined, {
      localAddress: ip,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(r.status).toBe(201);
    const user = new ApiClient(stack.server.url, { localAddress: ip });
    user.cookie = `postern_session=${(r.body as { Token: string }).Token}`;
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(async () => (await aclStatus(user, aclId)).Status === 0)).toBe(true);
    expect(await allowed(ip)).toBe(true);
    return user;
  };

  beforeAll(async () => {
    haproxy = await startHaproxy();
    frontend = `http://127.0.0.1:${haproxy.frontendPort}/`;
    stack = await startStack({ discoveryPorts: [0] });
    discoveryPort = discoveryPortsOf(stack.server.services)[0]!;
    const { agentId, configPath } = await createAndEnrolAgent(
      stack,
      "edge",
      { haproxy: { socket_location: haproxy.socketPath } },
      { haproxySocket: haproxy.socketPath, driftCheckSeconds: 1 },
    );
    agent = spawnAgent(configPath);
    expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
    const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "proxy",
      AgentID: agentId,
      Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
    });
    aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "Intranet",
      BackendID: backend.ID,
      ClickToGrant: true,
      CGNATOpen: true,
      Config: { haproxy: { ID: haproxy.aclId } },
    });
  });

  afterAll(async () => {
    await agent?.kill();
    await stack?.close();
    await haproxy?.stop();
  });

  describe("1. account expiry ends access", () => {
    it("a ValidUntil set a few seconds ahead ends the live session and its entry within 1 s of it; a later ValidUntil does not revive it", async () => {
      const userId = await createUser(stack, "vera", "vera-password", [aclId]);
      const user = await signInAndGrant("vera", "127.0.0.31");
      const validUntil = stack.clock.now() + 3_000;
      await setValidUntil(userId, "vera", validUntil);
      // The session's end and the grant's expiry come forward to ValidUntil (and so does the agent's entry).
      expect(Date.parse((await aclStatus(user, aclId)).ExpiredAfter)).toBeLessThanOrEqual(validUntil);
      expect(await allowed("127.0.0.31")).toBe(true);
      expect(await refusedWithin("127.0.0.31", 6_000)).toBe(true);
      expect(stack.clock.now() - validUntil).toBeLessThan(1_000);
      expect((await user.call("GET", "/api/status")).status).toBe(401);
      // The sweep ends the session within 1 s of ValidUntil, audited with the reason.
      const expired = async () =>
        (
          await stack.admin.ok<{ Entry: { Action: string; UserName?: string; Description?: string } }[]>(
            "GET",
            "/api/admin/logs?search=vera",
          )
        ).some(
          (l) =>
            l.Entry.Action === "sessionExpired" &&
            l.Entry.UserName === "vera" &&
            l.Entry.Description === "session ended: the account expired (ValidUntil)",
        );
      expect(await waitFor(expired, 1_000)).toBe(true);

      await setValidUntil(userId, "vera", null);
      expect((await user.call("GET", "/api/status")).status).toBe(401);
      expect(await stack.admin.ok<unknown[]>("GET", `/api/admin/users/${userId}/sessions`)).toEqual([]);
      await new Promise((r) => setTimeout(r, 1_500)); // a drift check of the agent: nothing comes back
      expect(await allowed("127.0.0.31")).toBe(false);
    });

    it("a ValidUntil set in the past ends the session and its entry at once", async () => {
      const userId = await createUser(stack, "walt", "walt-password", [aclId]);
      const user = await signInAndGrant("walt", "127.0.0.32");
      await setValidUntil(userId, "walt", stack.clock.now() - 1_000);
      expect(await refusedWithin("127.0.0.32", 1_000)).toBe(true);
      expect((await user.call("GET", "/api/status")).status).toBe(401);
    });
  });

  describe("3. API keys", () => {
    it("deleting the key ends the sessions it signed in and takes their entries out within 1 s", async () => {
      const { keyId, key } = await createKeyUser("robot-a", null);
      const user = await keySignInAndGrant(key, "127.0.0.41");
      await stack.admin.ok("DELETE", `/api/admin/api-keys/${keyId}`);
      expect(await refusedWithin("127.0.0.41", 1_000)).toBe(true);
      expect((await user.call("GET", "/api/status")).status).toBe(401);
    });

    it("the key's expiry ends the sessions it signed in and takes their entries out within 1 s of it", async () => {
      const expiredAfter = stack.clock.now() + 4_000;
      const { key } = await createKeyUser("robot-b", expiredAfter);
      const user = await keySignInAndGrant(key, "127.0.0.42");
      expect(Date.parse((await aclStatus(user, aclId)).ExpiredAfter)).toBeLessThanOrEqual(expiredAfter);
      expect(await refusedWithin("127.0.0.42", 7_000)).toBe(true);
      expect(stack.clock.now() - expiredAfter).toBeLessThan(1_000);
      expect(stack.clock.now()).toBeGreaterThanOrEqual(expiredAfter);
      expect((await user.call("GET", "/api/status")).status).toBe(401);
    });
  });

  describe("2. observed addresses do not outlive their network", () => {
    /** GET /api/ip on the discovery port from `ip` with the user's cookie: the server observes `ip`. */
    const discover = async (user: ApiClient, ip: string) => {
      const r = await httpJson("GET", `http://127.0.0.1:${discoveryPort}/api/ip`, undefined, {
        localAddress: ip,
        cookie: user.cookie,
      });
      expect(r.body).toEqual({ IP: ip });
    };

    it("moving from .22 to .23 to .24 leaves only .24 in the firewall", async () => {
      await createUser(stack, "moritz", "moritz-password", [aclId]);
      const user = new ApiClient(stack.server.url, { localAddress: "127.0.0.22" });
      await user.ok("POST", "/api/login", { UserName: "moritz", Password: "moritz-password", KioskMode: false });
      await discover(user, "127.0.0.23");
      await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      expect(await waitFor(async () => (await aclStatus(user, aclId)).Status === 0)).toBe(true);
      expect(await allowed("127.0.0.22")).toBe(true);
      expect(await allowed("127.0.0.23")).toBe(true); // observed: CGNATOpen grants it too

      await from(user, "127.0.0.23").ok("GET", "/api/status");
      expect(await waitFor(() => allowed("127.0.0.23"))).toBe(true);
      await from(user, "127.0.0.24").ok("GET", "/api/status");
      expect(await waitFor(() => allowed("127.0.0.24"))).toBe(true);
      expect(await refusedWithin("127.0.0.23", 1_000)).toBe(true);
      expect(await refusedWithin("127.0.0.22", 1_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 1_500)); // a drift check of the agent: nothing comes back
      expect(await allowed("127.0.0.23")).toBe(false);
      expect(await allowed("127.0.0.24")).toBe(true);
    });

    it("an observed address ages out and leaves the firewall; the session's own address stays granted", async () => {
      await createUser(stack, "nina", "nina-password", [aclId]);
      const user = await signInAndGrant("nina", "127.0.0.25");
      await discover(user, "127.0.0.26");
      // A grant made after the observation carries it: revoke and grant again.
      const entry = await aclStatus(user, aclId);
      await user.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
      expect(await waitFor(async () => (await aclStatus(user, aclId)).Status === 9)).toBe(true);
      await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      expect(await waitFor(async () => (await aclStatus(user, aclId)).Status === 0)).toBe(true);
      expect(await allowed("127.0.0.26")).toBe(true);

      stack.clock.advance(OBSERVED_ADDRESS_TTL_MS - 10_000);
      await new Promise((r) => setTimeout(r, 600));
      expect(await allowed("127.0.0.26")).toBe(true); // not yet
      stack.clock.advance(10_000);
      expect(await refusedWithin("127.0.0.26", 1_000)).toBe(true);
      expect(await allowed("127.0.0.25")).toBe(true);
      expect((await aclStatus(user, aclId)).Status).toBe(0);
    });
  });
});
