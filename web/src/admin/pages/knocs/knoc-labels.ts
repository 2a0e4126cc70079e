/**
 * What the Knocs list and detail say about a Knoc (docs/reference.md admin-console §2 "Knocs": "The Details column
 * depends on backend type"; §3 "Knoc kinds derived from configuration"): its backend type, its kind
 * in words, and the details of its type — the ACL fields that name where it is enforced (set
 * names, the HAProxy ACL id, the knocproxy ACL, the script's command and ACL name, the firewall's
 * group), read from the type's shared schema so that every type's fields are covered.
 */
import type { I18n } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { BACKEND_DESCRIPTORS, NONE_ID, backendTypeOf } from "@postern/shared";
import type { BackendType, Knoc } from "@postern/shared";
import { aclFieldLabel, backendTypeLabel, configFieldLabel } from "../../lib/backend-labels.ts";
import { configFields } from "../../lib/config-fields.ts";

/** The backend type of a Knoc (its BackendConfig's key; for Passive+ the shown allowlist parent's). */
export function knocTypeOf(knoc: Pick<Knoc, "BackendConfig">): BackendType {
  return backendTypeOf(knoc.BackendConfig);
}

/** The kind of a Knoc in words: "Linux", "Proxy (HAProxy)", "Script (webhook)", "Application (passive)"... */
export function knocKindLabel(i18n: I18n, knoc: Knoc): string {
  switch (knoc.Kind) {
    case "LINUX":
      return i18n._(msg`Linux`);
    case "PROXY":
      return knoc.ProxyType === "knocproxy" ? i18n._(msg`Proxy (knocproxy)`) : i18n._(msg`Proxy (HAProxy)`);
    case "SCRIPT":
      return knoc.ScriptType === "webhook" ? i18n._(msg`Webhook`) : i18n._(msg`Script`);
    case "APPLICATION":
      if (knoc.ApplicationType === "passive") return i18n._(msg`Application (passive)`);
      if (knoc.ApplicationType === "passive+") return i18n._(msg`Application (passive+)`);
      return i18n._(msg`Application (active, ${vendorLabel(i18n, knoc)})`);
  }
}

/** The vendor of an active application Knoc: its type's name, or the vendor's for a `/temp/{vendor}` script. */
function vendorLabel(i18n: I18n, knoc: Knoc): string {
  const type = knocTypeOf(knoc);
  return type === "script" ? (knoc.Vendor ?? "") : backendTypeLabel(i18n, type);
}

/** One labelled value of a Knoc's details. */
export interface KnocDetail {
  /** The ACL or backend field it comes from (stable for tests and keys). */
  field: string;
  label: string;
  value: string;
}

/** ACL fields that are not details: secrets of the allowlist, flags, the script's variables. */
const NOT_DETAILS = new Set(["Token", "ApiKeyId", "AllowAccessByIp", "AllowedIpAddresses", "MapUser", "EnvVars"]);

/**
 * The details of a Knoc's type: for a script its command first, then the non-empty ACL fields of
 * its type in the schema's order; for an allowlist how the list is read (API key or source
 * address). Values are as stored.
 */
export function knocDetails(i18n: I18n, knoc: Knoc): KnocDetail[] {
  const type = knocTypeOf(knoc);
  if (type === "allowlist") {
    const byKey = (knoc.AclConfig.allowlist?.ApiKeyId ?? NONE_ID) !== NONE_ID;
    const value = byKey ? i18n._(msg`Read with an API key`) : i18n._(msg`Read from allowed addresses`);
    return [{ field: "allowlist", label: backendTypeLabel(i18n, "allowlist"), value }];
  }
  const out: KnocDetail[] = [];
  if (type === "script") {
    const command = knoc.BackendConfig.script?.Command ?? "";
    if (command) out.push({ field: "Command", label: configFieldLabel(i18n, "Command"), value: command });
  }
  const fields = ((knoc.AclConfig as Record<string, unknown>)[type] ?? {}) as Record<string, unknown>;
  for (const field of configFields(BACKEND_DESCRIPTORS[type].aclSchema, [])) {
    if (NOT_DETAILS.has(field.name)) continue;
    const value = fields[field.name];
    if (value === undefined || value === null || value === "" || typeof value === "boolean") continue;
    out.push({ field: field.name, label: aclFieldLabel(i18n, field.name), value: String(value) });
  }
  return out;
}
