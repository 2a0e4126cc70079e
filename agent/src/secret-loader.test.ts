import { describe, expect, it } from "vitest";
import type { Entry, Target } from "@postern/shared";
import type { BackendInstance, Driver, DriverDefinition } from "./backends/driver.ts";
import { DriverSet } from "./backends/registry.ts";
import { Enforcer } from "./enforcer.ts";
import { generateAgentKeys } from "./enrol.ts";
import { FakeHttpClient } from "./http/fake-client.ts";
import { FakeRunner } from "./process/fake-runner.ts";
import { lazySecretOpener } from "./secret-loader.ts";
import { sealForAgent } from "./secrets.ts";

/** A driver definition that records what it was created with; its targets are faked in memory. */
function recording(type: "fortios" | "ipset", created: BackendInstance[]): DriverDefinition {
  return {
    type,
    create(_ctx, backend): Driver {
      created.push(backend);
      return {
        type,
        add: async (_t: Target, entries: readonly Entry[]) => entries.map((e) => ({ ip: e.ip, ok: true })),
        remove: async (_t: Target, ips: readonly string[]) => ips.map((ip) => ({ ip, ok: true })),
        list: async () => [],
      };
    },
  };
}

describe("lazySecretOpener", () => {
  it("loads libsodium only once a target with sealed secrets arrives, before that target is resolved", async () => {
    const keys = generateAgentKeys();
    const lazy = lazySecretOpener(keys.boxPublicKey, keys.boxSecretKey);
    expect(() => lazy.openSecret(sealForAgent(keys.boxPublicKey, "x"))).toThrow(/libsodium is not loaded/);
    const created: BackendInstance[] = [];
    const drivers = new DriverSet(
      {
        runner: new FakeRunner(),
        http: new FakeHttpClient(),
        useSudo: false,
        scriptsEnabled: false,
        scriptTimeoutMs: 1_000,
        knocproxyDir: "/x",
        ...lazy,
      },
      [recording("ipset", created), recording("fortios", created)],
    );
    const enforcer = new Enforcer({ backends: drivers, driftCheckSeconds: 0 });
    await enforcer.start();
    const expiresAt = Date.now() + 3_600_000;
    const plain: Target = {
      key: "acl-1",
      backendId: "b1",
      backend: { ipset: {} },
      acl: { ipset: { V4SetName: "s4", V6SetName: "" } },
    };
    let ack = await enforcer.sync({ seq: 1, targets: [{ target: plain, entries: [{ ip: "192.0.2.1", expiresAt }] }] });
    expect(ack.results).toEqual([{ key: "acl-1", ip: "192.0.2.1", op: "add", ok: true }]);
    expect(lazy.loaded()).toBe(false);

    const sealed: Target = {
      key: "acl-2",
      backendId: "b2",
      backend: { fortios: { Url: "https://fw.example", Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "" } },
      acl: { fortios: { Name: "grp" } },
      secrets: { Bearer: sealForAgent(keys.boxPublicKey, "token-one") },
    };
    ack = await enforcer.apply({ seq: 2, ops: [{ op: "add", target: sealed, ip: "192.0.2.2", expiresAt }] });
    expect(ack.results).toEqual([{ key: "acl-2", ip: "192.0.2.2", op: "add", ok: true }]);
    expect(lazy.loaded()).toBe(true);
    expect(created.map((c) => c.secrets)).toEqual([{}, { Bearer: "token-one" }]);
    await enforcer.stop();
  });
});
