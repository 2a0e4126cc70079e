/**
 * Knoc kinds derived from configuration (docs/reference.md admin-console §3 "Knoc kinds derived from configuration").
 *
 * The kind and vendor of each type are its row in `backend-types.ts`. LINUX: ipset, nftables. PROXY: haproxy or knocproxy (ProxyType). SCRIPT: script (ScriptType webhook when the
 * Command is an http(s) URL, else script). APPLICATION: the vendor types (active, with their Vendor),
 * the allowlist (passive), and a palo Knoc with an EDL name (passive+). A script backend whose
 * Command is `/temp/{vendor}` with one of the active vendors stands for a vendor without a dedicated
 * configuration and is APPLICATION active of that vendor.
 */
import { backendTypeOf, isWebhookCommand } from "./api/backend.ts";
import type { BackendConfig } from "./api/backend.ts";
import { BACKEND_DESCRIPTORS } from "./backend-types.ts";
import type { AclConfig } from "./api/acl.ts";

/** The four Knoc kinds (the wizards of docs/reference.md admin-console §2). */
export type KnocKindName = "LINUX" | "PROXY" | "SCRIPT" | "APPLICATION";
/** Application Knocs: passive (allowlist), passive+ (palo with an EDL), active (the agent pushes). */
export type ApplicationType = "passive" | "passive+" | "active";
/** Proxy Knocs. */
export type ProxyType = "haproxy" | "knocproxy";
/** Script Knocs: an executable on the agent, or a webhook. */
export type ScriptType = "script" | "webhook";

/** The active vendors of docs/reference.md admin-console §3. */
export const ACTIVE_VENDORS = [
  "fortinet",
  "fortimanager",
  "palo",
  "firepower",
  "juniper",
  "checkpoint",
  "aws",
  "azure",
  "digitalocean",
  "pfsense",
  "mikrotik",
  "sophosutm",
  "sophossfos",
] as const;
/** One active vendor. */
export type Vendor = (typeof ACTIVE_VENDORS)[number];

/** What kind of Knoc a backend and ACL configuration make. Only the fields of the kind are present. */
export interface KnocKind {
  Kind: KnocKindName;
  ApplicationType?: ApplicationType;
  Vendor?: Vendor;
  ProxyType?: ProxyType;
  ScriptType?: ScriptType;
}

/**
 * Derives the Knoc kind from a backend's config and (for palo) the ACL's config. For a Passive+ pair
 * (an allowlist parent and a hidden panos child with EDLName) pass the child's configuration to get
 * passive+; the parent alone is APPLICATION passive.
 */
export function knocKind(backendConfig: BackendConfig, aclConfig?: AclConfig): KnocKind {
  const type = backendTypeOf(backendConfig);
  const descriptor = BACKEND_DESCRIPTORS[type];
  if (descriptor.kind === "LINUX") return { Kind: "LINUX" };
  if (descriptor.kind === "PROXY") return { Kind: "PROXY", ProxyType: type as ProxyType };
  switch (type) {
    case "allowlist":
      return { Kind: "APPLICATION", ApplicationType: "passive" };
    case "script": {
      const command = backendConfig.script?.Command ?? "";
      const vendor = /^\/temp\/([a-z]+)\/?$/.exec(command)?.[1];
      if (vendor && (ACTIVE_VENDORS as readonly string[]).includes(vendor))
        return { Kind: "APPLICATION", ApplicationType: "active", Vendor: vendor as Vendor };
      return { Kind: "SCRIPT", ScriptType: isWebhookCommand(command) ? "webhook" : "script" };
    }
    case "panos":
      return {
        Kind: "APPLICATION",
        ApplicationType: aclConfig?.panos?.EDLName ? "passive+" : "active",
        Vendor: "palo",
      };
    default:
      return { Kind: "APPLICATION", ApplicationType: "active", Vendor: descriptor.vendor! };
  }
}
