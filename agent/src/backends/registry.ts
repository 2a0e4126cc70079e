/**
 * The one list of driver folders (issue #10 item 2). Capability detection (`capabilities.ts`) and the
 * enforcer (through `DriverSet`) both walk it; a new backend is one row in `shared`'s descriptors plus
 * one folder here and one line in `DRIVERS`.
 */
import { backendTypeOf } from "@postern/shared";
import type { Target } from "@postern/shared";
import type { Backend } from "./backend.ts";
import type { Driver, DriverContext, DriverDefinition, DriverResolver } from "./driver.ts";
import { awsDriver } from "./aws/index.ts";
import { azureDriver } from "./azure/index.ts";
import { firepowerDriver } from "./firepower/index.ts";
import { fortimanagerDriver } from "./fortimanager/index.ts";
import { fortiosDriver } from "./fortios/index.ts";
import { haproxyDriver } from "./haproxy/index.ts";
import { ipsetDriver } from "./ipset/index.ts";
import { knocproxyDriver } from "./knocproxy/index.ts";
import { nftablesDriver } from "./nftables/index.ts";
import { panosDriver } from "./panos/index.ts";
import { scriptDriver } from "./script/index.ts";
import { sophossfosDriver } from "./sophossfos/index.ts";
import { sophosutmDriver } from "./sophosutm/index.ts";

/** Every driver this agent has, one per backend type. */
export const DRIVERS: readonly DriverDefinition[] = [
  ipsetDriver,
  haproxyDriver,
  knocproxyDriver,
  scriptDriver,
  nftablesDriver,
  fortiosDriver,
  panosDriver,
  awsDriver,
  sophosutmDriver,
  fortimanagerDriver,
  firepowerDriver,
  sophossfosDriver,
  azureDriver,
];

/** JSON with sorted object keys, so equal configurations give equal strings. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .filter((k) => obj[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Creates and keeps one driver per backend: a target's backend id, its BackendConfig and its sealed
 * backend secrets pick the instance; a changed configuration or credential gets a new one (the old
 * one is closed). Secrets are opened here, once per instance, and never kept in the target.
 */
export class DriverSet implements DriverResolver {
  readonly #ctx: DriverContext;
  readonly #definitions: ReadonlyMap<string, DriverDefinition>;
  readonly #instances = new Map<string, { fingerprint: string; driver: Driver }>();

  /** `definitions` defaults to `DRIVERS`. */
  constructor(ctx: DriverContext, definitions: readonly DriverDefinition[] = DRIVERS) {
    this.#ctx = ctx;
    this.#definitions = new Map(definitions.map((d) => [d.type, d]));
  }

  /** The driver of `target`'s backend, created on first use; or why there is none (the grant error). */
  driverFor(target: Target): Driver | string {
    const type = backendTypeOf(target.backend);
    if (!(type in target.acl)) return `ACL ${target.key} has no ${type} configuration`;
    const definition = this.#definitions.get(type);
    if (!definition) return `backend type "${type}" is not supported by this agent`;
    const sealed = Object.fromEntries(Object.entries(target.secrets ?? {}).filter(([k]) => !k.startsWith("env:")));
    const fingerprint = stableStringify({ backend: target.backend, sealed });
    const known = this.#instances.get(target.backendId);
    if (known?.fingerprint === fingerprint) return known.driver;
    let driver: Driver;
    try {
      const secrets: Record<string, string> = {};
      for (const [name, box] of Object.entries(sealed)) secrets[name] = this.#ctx.openSecret(box);
      const config = (target.backend as Record<string, Record<string, unknown>>)[type] ?? {};
      driver = definition.create(this.#ctx, { backendId: target.backendId, config, secrets });
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    if (known) void known.driver.close?.().catch(() => undefined);
    this.#instances.set(target.backendId, { fingerprint, driver });
    return driver;
  }

  /** Loads what opens sealed secrets (`DriverContext.loadSecrets`) when one of `targets` carries any. */
  async prepare(targets: readonly Target[]): Promise<void> {
    if (!this.#ctx.loadSecrets) return;
    if (!targets.some((t) => Object.keys(t.secrets ?? {}).length > 0)) return;
    try {
      await this.#ctx.loadSecrets();
    } catch (err) {
      this.#ctx.logger?.error({ err: err instanceof Error ? err.message : String(err) }, "cannot load libsodium");
    }
  }

  /** Closes every driver. */
  async close(): Promise<void> {
    const all = [...this.#instances.values()];
    this.#instances.clear();
    await Promise.all(all.map((i) => i.driver.close?.().catch(() => undefined)));
  }
}

/** A resolver over fixed backends by type (tests, benchmarks): one shared instance per type. */
export class StaticDrivers implements DriverResolver {
  readonly #byType: ReadonlyMap<string, Backend>;
  constructor(byType: ReadonlyMap<string, Backend>) {
    this.#byType = byType;
  }
  /** The backend of the target's type, or why there is none. */
  driverFor(target: Target): Driver | string {
    const type = backendTypeOf(target.backend);
    if (!(type in target.acl)) return `ACL ${target.key} has no ${type} configuration`;
    return this.#byType.get(type) ?? `backend type "${type}" is not supported by this agent`;
  }
}
