/**
 * Secrets reach the agent sealed (issue #10 item 4): the server seals a backend's secret fields and an
 * ACL's Sensitive variables to the agent's box key, the target carries them sealed, the agent opens
 * them with its own key when it creates the driver, and a credential change is not a change of the
 * target (nothing is emptied). The opened values never reach the state file.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Entry, Target } from "@postern/shared";
import { sealTo } from "../../server/src/services/secrets/sealed.ts";
import { toTarget } from "../../server/src/services/grants/targets.ts";
import { DriverSet } from "../../agent/src/backends/registry.ts";
import type { BackendInstance, Driver, DriverDefinition } from "../../agent/src/backends/driver.ts";
import { Enforcer } from "../../agent/src/enforcer.ts";
import { generateAgentKeys } from "../../agent/src/enrol.ts";
import { FakeHttpClient } from "../../agent/src/http/fake-client.ts";
import { FakeRunner } from "../../agent/src/process/fake-runner.ts";
import { secretOpener } from "../../agent/src/secrets.ts";

/** A fortios driver that records what it was created with; its target is faked in memory. */
function recordingDefinition(created: BackendInstance[], held: Set<string>): DriverDefinition {
  return {
    type: "fortios",
    create(_ctx, backend): Driver {
      created.push(backend);
      return {
        type: "fortios",
        add: async (_t: Target, entries: readonly Entry[]) => {
          for (const e of entries) held.add(e.ip);
          return entries.map((e) => ({ ip: e.ip, ok: true }));
        },
        remove: async (_t: Target, ips: readonly string[]) => {
          for (const ip of ips) held.delete(ip);
          return ips.map((ip) => ({ ip, ok: true }));
        },
        list: async () => [...held],
      };
    },
  };
}

describe("sealed secrets from server to agent", () => {
  const keys = generateAgentKeys();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "postern-sealed-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("opens on the agent, and a new credential gives a new driver without emptying the target", async () => {
    const target = async (bearer: string): Promise<Target> =>
      toTarget({
        aclId: "acl1",
        aclConfig: { fortios: { Name: "grp" } },
        backendId: "b1",
        backendType: "fortios",
        backendConfig: { fortios: { Url: "https://fw.example", Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "" } },
        sealedSecrets: { Bearer: await sealTo(keys.boxPublicKey, bearer) },
      })!;
    const created: BackendInstance[] = [];
    const held = new Set<string>();
    const drivers = new DriverSet(
      {
        runner: new FakeRunner(),
        http: new FakeHttpClient(),
        useSudo: false,
        scriptsEnabled: false,
        scriptTimeoutMs: 1_000,
        knocproxyDir: "/etc/haproxy/postern",
        openSecret: secretOpener(keys.boxPublicKey, keys.boxSecretKey),
      },
      [recordingDefinition(created, held)],
    );
    const stateFile = join(dir, "state.json");
    const enforcer = new Enforcer({ backends: drivers, stateFile, driftCheckSeconds: 0 });
    await enforcer.start();
    const expiresAt = Date.now() + 3_600_000;
    await enforcer.sync({
      seq: 1,
      targets: [{ target: await target("token-one"), entries: [{ ip: "192.0.2.1", expiresAt }] }],
    });
    expect(created.map((c) => c.secrets)).toEqual([{ Bearer: "token-one" }]);
    expect(created[0]?.config["Bearer"]).toBe("");

    const ack = await enforcer.sync({
      seq: 2,
      targets: [{ target: await target("token-two"), entries: [{ ip: "192.0.2.1", expiresAt }] }],
    });
    expect(created.map((c) => c.secrets)).toEqual([{ Bearer: "token-one" }, { Bearer: "token-two" }]);
    expect(ack.results.filter((r) => r.op === "del")).toEqual([]); // the target was not emptied
    expect([...held]).toEqual(["192.0.2.1"]);
    await enforcer.stop();
    const state = await readFile(stateFile, "utf8");
    expect(state).not.toContain("token-one");
    expect(state).not.toContain("token-two");
  });

  it("a box sealed to another agent fails the target with a message that names no value", async () => {
    const other = generateAgentKeys();
    const t = toTarget({
      aclId: "acl1",
      aclConfig: { fortios: { Name: "grp" } },
      backendId: "b1",
      backendType: "fortios",
      backendConfig: { fortios: { Url: "https://fw.example", Bearer: "" } },
      sealedSecrets: { Bearer: await sealTo(other.boxPublicKey, "someone-elses") },
    })!;
    const drivers = new DriverSet(
      {
        runner: new FakeRunner(),
        http: new FakeHttpClient(),
        useSudo: false,
        scriptsEnabled: false,
        scriptTimeoutMs: 1_000,
        knocproxyDir: "/x",
        openSecret: secretOpener(keys.boxPublicKey, keys.boxSecretKey),
      },
      [recordingDefinition([], new Set())],
    );
    expect(drivers.driverFor(t)).toBe(
      "a sealed secret cannot be opened with this agent's key (was it sealed to another agent?)",
    );
  });
});
