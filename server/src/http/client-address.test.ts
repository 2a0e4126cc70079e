import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientAddress, overTls, parseTrustedProxies } from "./client-address.ts";
import { createApp } from "../app.ts";
import { testTables } from "../testing/database.ts";
import { createHarness, seedLoop, socketEnv } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";

const { userSessions } = testTables;

const trusted = parseTrustedProxies(["127.0.0.1", "10.0.0.0/8"]);

describe("clientAddress", () => {
  it("uses the socket address when the peer is not a trusted proxy", () => {
    expect(clientAddress("198.51.100.1", "203.0.113.9", trusted)).toBe("198.51.100.1");
  });
  it("takes the first untrusted hop from the right behind a trusted proxy", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9, 10.1.2.3", trusted)).toBe("203.0.113.9");
    expect(clientAddress("::ffff:127.0.0.1", "1.2.3.4, 203.0.113.9", trusted)).toBe("203.0.113.9");
  });
  it("refuses (null) a trusted proxy's malformed header, never falling back to the proxy's address", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.9, nonsense", trusted)).toBeNull();
    expect(clientAddress("127.0.0.1", "nonsense, 203.0.113.9", trusted)).toBeNull();
    expect(clientAddress("127.0.0.1", "203.0.113.9,,10.1.2.3", trusted)).toBeNull();
    expect(clientAddress("127.0.0.1", "", trusted)).toBeNull();
    expect(clientAddress("127.0.0.1", "203.0.113.9:443", trusted)).toBeNull();
  });
  it("refuses (null) a header naming only trusted proxies: the proxy is never the client", () => {
    expect(clientAddress("127.0.0.1", "10.1.2.3", trusted)).toBeNull();
    expect(clientAddress("127.0.0.1", "127.0.0.1, 10.9.9.9", trusted)).toBeNull();
  });
  it("ignores the header of an untrusted peer, malformed or not", () => {
    expect(clientAddress("198.51.100.1", "nonsense", trusted)).toBe("198.51.100.1");
  });
  it("answers a trusted peer without the header as itself (a direct call from the proxy's host)", () => {
    expect(clientAddress("127.0.0.1", undefined, trusted)).toBe("127.0.0.1");
  });
  it("refuses an invalid proxy entry", () => {
    expect(() => parseTrustedProxies(["not-an-ip"])).toThrow(/invalid trusted proxy/);
  });
});

describe("overTls", () => {
  it("believes X-Forwarded-Proto only from a trusted proxy", () => {
    expect(overTls("http://p/x", "127.0.0.1", "https", trusted)).toBe(true);
    expect(overTls("http://p/x", "198.51.100.1", "https", trusted)).toBe(false);
    expect(overTls("https://p/x", "198.51.100.1", undefined, trusted)).toBe(true);
    expect(overTls("http://p/x", "127.0.0.1", "http", trusted)).toBe(false);
  });
});

describe("X-Forwarded-For over HTTP (behind a trusted proxy at 127.0.0.1)", () => {
  let h: Harness;
  let app: ReturnType<typeof createApp>;
  beforeEach(async () => {
    h = await createHarness();
    app = createApp(h.services, "/nonexistent", parseTrustedProxies(["127.0.0.1"]));
  });
  afterEach(async () => {
    await h.close();
  });
  const send = (path: string, xff: string | undefined, init: RequestInit = {}) =>
    app.request(
      `http://postern.test${path}`,
      { ...init, headers: { host: "postern.test", ...(xff !== undefined ? { "x-forwarded-for": xff } : {}) } },
      socketEnv("127.0.0.1"),
    );

  it("answers 400 for a malformed header and never signs in as the proxy's address", async () => {
    await seedLoop(h);
    for (const xff of ["nonsense", "203.0.113.9, ::zz", "127.0.0.1", ""]) {
      const ip = await send("/api/ip", xff);
      expect(ip.status).toBe(400);
      expect(await ip.json()).toEqual({ Err: "Bad request", Extra: "X-Forwarded-For" });
      const login = await app.request(
        "http://postern.test/api/login",
        {
          method: "POST",
          headers: { host: "postern.test", "content-type": "application/json", "x-forwarded-for": xff },
          body: JSON.stringify({ UserName: "alice", Password: "alice-password", KioskMode: false }),
        },
        socketEnv("127.0.0.1"),
      );
      expect(login.status).toBe(400);
    }
    expect(await h.services.db.select().from(userSessions)).toHaveLength(0);
  });
  it("never takes a trusted proxy's own address for a user's: a direct call without the header cannot sign a user in", async () => {
    await seedLoop(h);
    const login = await app.request(
      "http://postern.test/api/login",
      {
        method: "POST",
        headers: { host: "postern.test", "content-type": "application/json" },
        body: JSON.stringify({ UserName: "alice", Password: "alice-password", KioskMode: false }),
      },
      socketEnv("127.0.0.1"),
    );
    expect(login.status).toBe(400);
    expect(await login.json()).toEqual({ Err: "Bad request", Extra: "X-Forwarded-For" });
    expect(await h.services.db.select().from(userSessions)).toHaveLength(0);
    // Tools on the proxy's host still reach what grants nothing (here: the address read).
    expect((await send("/api/ip", undefined)).status).toBe(200);
  });
  it("names the client of a well-formed header", async () => {
    const ip = await send("/api/ip", "198.51.100.7, 127.0.0.1");
    expect(ip.status).toBe(200);
    expect(await ip.json()).toEqual({ IP: "198.51.100.7" });
  });
});
