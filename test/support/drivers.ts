/**
 * Test helper: a `DriverSet` over the real driver registry with a fresh agent key pair, the real
 * process runner (optionally inside a namespace) and the real HTTP client.
 */
import { DriverSet } from "../../agent/src/backends/registry.ts";
import type { DriverContext } from "../../agent/src/backends/driver.ts";
import { generateAgentKeys } from "../../agent/src/enrol.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import { sealForAgent, secretOpener } from "../../agent/src/secrets.ts";

/** A driver set and a way to seal values to its agent key. */
export interface TestDrivers {
  readonly drivers: DriverSet;
  /** Seals a value to this agent's box key (what the server does). */
  seal(value: string): string;
}

/** Builds a `DriverSet`; `overrides` replace parts of the default context (scripts enabled, 10 s script timeout). */
export function testDrivers(overrides: Partial<DriverContext> = {}): TestDrivers {
  const keys = generateAgentKeys();
  const ctx: DriverContext = {
    runner: new ExecaRunner({ defaultTimeoutMs: 20_000 }),
    http: new NodeHttpClient({ defaultTimeoutMs: 5_000 }),
    useSudo: false,
    scriptsEnabled: true,
    scriptTimeoutMs: 10_000,
    knocproxyDir: "/etc/haproxy/postern",
    openSecret: secretOpener(keys.boxPublicKey, keys.boxSecretKey),
    ...overrides,
  };
  return { drivers: new DriverSet(ctx), seal: (v) => sealForAgent(keys.boxPublicKey, v) };
}
