/**
 * The Details column of the ACLs table (docs/reference.md admin-console §2 "ACLs": allowlist; haproxy ACL ID;
 * knocproxy named ACL; script command plus ACL name, plus the variables when the experimental
 * feature enhanced-custom-script is on; ipset IPv4 and IPv6 set names; the other types their
 * fields), each field under its label.
 */
import type { I18n } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import type { Acl, Backend, BackendType } from "@postern/shared";
import { aclConfigFields, aclFieldLabel } from "./acl-labels.ts";

/**
 * The Details lines of an ACL on `backend` (undefined while the backends load): per type as the
 * spec lists; `showVariables` adds a script's variables (sealed ones masked).
 */
export function aclDetails(i18n: I18n, acl: Acl, backend: Backend | undefined, showVariables: boolean): string[] {
  if (!backend) return [];
  const type = Object.keys(backend.Config)[0] as BackendType;
  if (type === "allowlist") return [i18n._(msg`Allowlist`)];
  const own = (acl.Config[type] ?? {}) as Record<string, unknown>;
  const lines: string[] = [];
  if (type === "script") lines.push(backend.Config.script?.Command ?? "");
  for (const field of aclConfigFields(type)) {
    const value = own[field.name];
    if (field.kind === "envValues") {
      if (!showVariables) continue;
      for (const [name, v] of Object.entries((value ?? {}) as Record<string, { Value: string; Encrypted: boolean }>))
        lines.push(`${name}=${v.Encrypted ? "••••••" : v.Value}`);
    } else if (
      (field.kind === "text" || field.kind === "number" || field.kind === "enum") &&
      value !== "" &&
      value != null
    ) {
      lines.push(`${aclFieldLabel(i18n, type, field.name)}: ${String(value)}`);
    }
  }
  return lines;
}
