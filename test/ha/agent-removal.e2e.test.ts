/**
 * Deleting an agent on the replica that does not hold its connection (issue #12; docs/high-availability.md
 * "How replicas share work"; agent-hub/cluster.ts): two real `postern-server` processes on a throw-away
 * PostgreSQL, an agent (the agent's own connection code, `startConnection`, with its enrolled keys)
 * connected to the first replica and knowing both. The admin deletes it through the second replica: the
 * first closes the agent's connection within 2 s (close code 4401), and every reconnection, to either
 * replica, is refused. Without the cluster's forwarding the connection stays open and the test fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { enrol } from "../../agent/src/enrol.ts";
import { loadConfig } from "../../agent/src/config.ts";
import { startConnection } from "../../agent/src/connection.ts";
import type { ConnectionState } from "../../agent/src/connection.ts";
import { freshPostgresDatabase, postgresBinDir } from "../support/postgres.ts";
import type { FreshPostgresDatabase } from "../support/postgres.ts";
import { startReplicaSet } from "../support/replicas.ts";
import type { Replica, ReplicaSet } from "../support/replicas.ts";
import { ApiClient, waitFor } from "../support/stack.ts";

const hasPostgres = postgresBinDir() !== undefined;
if (!hasPostgres)
  console.warn("PostgreSQL is not installed: skipping the agent removal test (scripts/setup.sh --test)");

/** The agent's log lines (pino JSON) as objects. */
function logCollector(): { lines: Record<string, unknown>[]; stream: Writable } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe.skipIf(!hasPostgres)("an agent deleted through a replica that does not hold it", () => {
  let pg: FreshPostgresDatabase;
  let set: ReplicaSet;
  let holder: Replica;
  let other: Replica;
  let admin: ApiClient;
  let agentId = "";
  const abort = new AbortController();
  const states: { state: ConnectionState; at: number }[] = [];
  const log = logCollector();
  let done: Promise<void> | undefined;

  beforeAll(async () => {
    pg = await freshPostgresDatabase();
    set = await startReplicaSet({ database: { kind: "postgres", url: pg.url } });
    [holder, other] = set.replicas as [Replica, Replica];
    admin = new ApiClient(other.url);
    await admin.ok("POST", "/api/admin/login", { UserName: set.admin.userName, Password: set.admin.password });
    const created = await admin.ok<{ ID: string; Token: string }>("POST", "/api/admin/agents", { Name: "edge" });
    agentId = created.ID;
    const configPath = join(set.dataDir, "..", "agent.json");
    await enrol({ server: holder.url, token: created.Token, configPath, capabilities: {}, version: "1.9.0" });
    const config = await loadConfig(configPath);
    // The holder first, the other replica second: reconnections go to both in turn. Short delays, so
    // that several refused attempts fit in the test (the default waits 10 s after a refusal).
    const connection = startConnection({
      server: [holder.url, other.url],
      agentId: config.agentId,
      serverPublicKey: config.serverPublicKey,
      signingKey: config.signingPrivateKey,
      version: "1.9.0",
      capabilities: async () => ({}),
      onMessage: async (m) =>
        m.type === "refresh-capabilities" ? undefined : { type: "ack", seq: m.seq, results: [] },
      signal: abort.signal,
      logger: pino({ level: "info" }, log.stream),
      onStateChange: (state) => states.push({ state, at: Date.now() }),
      initialDelayMs: 100,
      maxDelayMs: 300,
    });
    done = connection.done;
    expect(await waitFor(() => connection.connected(), 10_000)).toBe(true);
    // Connected at the first attempt, so to the holder.
    expect(states.map((s) => s.state)).not.toContain("backoff");
    // The other replica knows the agent is connected (to the holder): the admin console says Connected there.
    expect(
      await waitFor(
        async () => (await admin.ok<{ Connected: boolean }>("GET", `/api/admin/agents/${agentId}`)).Connected,
      ),
    ).toBe(true);
  }, 120_000);

  afterAll(async () => {
    abort.abort();
    await done;
    await set?.close();
    await pg?.close();
  });

  it("closes the agent's connection on the holder at once and refuses it on both replicas afterwards", async () => {
    const deleted = Date.now();
    await admin.ok("DELETE", `/api/admin/agents/${agentId}`);
    const closed = await waitFor(() => states.at(-1)?.state !== "connected", 2_000, 20);
    expect(
      closed,
      `the agent is still connected to ${holder.name} 2 s after its deletion on ${other.name}:\n${holder.output().slice(-2_000)}`,
    ).toBe(true);
    console.info(`agent removal across replicas: connection closed ${Date.now() - deleted} ms after the DELETE`);
    const end = log.lines.find((l) => l["msg"] === "disconnected from server");
    expect(end?.["code"], "close code of the deleted agent's connection").toBe(4401);

    // Reconnections (every 300 ms, alternating replicas) are refused on both.
    const refused = () => log.lines.filter((l) => l["msg"]?.toString().startsWith("the server refused")).length;
    expect(await waitFor(() => refused() >= 5, 5_000, 50)).toBe(true);
    const refusedBy = (r: Replica) => r.output().includes("agent authentication failed");
    expect(await waitFor(() => refusedBy(holder) && refusedBy(other), 3_000)).toBe(true);
    expect(states.filter((s) => s.at >= deleted && s.state === "connected")).toEqual([]);
    expect((await admin.ok<unknown[]>("GET", "/api/admin/agents")).length).toBe(0);
  }, 30_000);
});
