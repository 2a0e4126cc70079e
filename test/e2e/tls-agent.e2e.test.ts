/**
 * An agent enrols against a server's self-signed certificate by its fingerprint (issue #11 items 4,
 * 11): the real `postern-agent enrol --server-fingerprint` refuses a wrong fingerprint before it
 * sends the token (the token still works afterwards), enrols with the right one, and the real
 * `postern-agent run` then connects over wss trusting that certificate alone; without a fingerprint
 * the self-signed server is refused by the system's CAs.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "@postern/server";
import type { RunningServer } from "@postern/server";
import { createLogger } from "../../server/src/logger.ts";
import { spawnAgent, waitFor } from "../support/stack.ts";
import { runAsync } from "../support/run-async.ts";
import type { AgentProcess } from "../support/stack.ts";

const AGENT = fileURLToPath(new URL("../../agent/src/main.ts", import.meta.url));

/** Runs `postern-agent enrol` (asynchronously: the server answers from this process). */
const enrolCli = (args: string[]) => runAsync(process.execPath, [AGENT, "enrol", ...args]);

describe("agent enrolment against a self-signed server by fingerprint", () => {
  let dir: string;
  let server: RunningServer;
  let agent: AgentProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postern-tls-agent-"));
    server = await startServer({
      dataDir: join(dir, "data"),
      listen: "127.0.0.1:0",
      migrate: true,
      logger: createLogger("silent"),
      tls: { mode: "self-signed" },
    });
  });
  afterAll(async () => {
    await agent?.kill();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a wrong fingerprint without spending the token, enrols with the right one, and connects", async () => {
    const actor = { adminName: "test", ip: "127.0.0.1" };
    const { Token } = await server.services.agents.create("edge", server.url, actor);
    const config = join(dir, "agent.json");
    const common = ["--server", server.url, "--token", Token, "--config", config];

    const plain = await enrolCli(common);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toMatch(/self[- ]signed certificate/i);

    const wrong = "AB:".repeat(31) + "AB";
    const refused = await enrolCli([...common, "--server-fingerprint", wrong]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`not the expected ${wrong}`);
    expect(refused.stderr).toContain(server.tlsFingerprint!);

    // Any spelling of the fingerprint: no colons, lower case.
    const spelt = server.tlsFingerprint!.replaceAll(":", "").toLowerCase();
    const ok = await enrolCli([...common, "--server-fingerprint", spelt]);
    expect(ok.stderr).toContain('enrolled as "edge"');
    expect(ok.status).toBe(0);
    const written = JSON.parse(await readFile(config, "utf8")) as Record<string, string>;
    expect(written["serverFingerprint"]).toBe(server.tlsFingerprint);
    expect(written["serverCertificate"]).toContain("BEGIN CERTIFICATE");

    agent = spawnAgent(config);
    const agentId = (await server.services.agents.list()).find((a) => a.Name === "edge")!.ID;
    expect(await waitFor(() => server.services.hub.isConnected(agentId), 20_000)).toBe(true);
  });
});
