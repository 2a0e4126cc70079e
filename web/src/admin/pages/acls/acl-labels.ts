/**
 * What the ACLs screen calls each ACL field of a backend type (docs/reference.md admin-console §3 table, "ACL
 * fields"), and which of a type's fields it shows.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { BACKEND_DESCRIPTORS } from "@postern/shared";
import type { BackendType } from "@postern/shared";
import { configFieldLabel } from "../../lib/backend-labels.ts";
import { configFields } from "../../lib/config-fields.ts";

const FIELD_LABELS: Record<string, MessageDescriptor> = {
  ID: msg`HAProxy ACL ID`,
  V4SetName: msg`IPv4 set name`,
  V6SetName: msg`IPv6 set name`,
  EDLName: msg`External dynamic list name`,
  GroupName: msg`Group name`,
  GroupNameV6: msg`IPv6 group name`,
  SerialNumber: msg`Firewall serial number`,
  URL: msg`External dynamic list URL`,
  GroupUUID: msg`Network group UUID`,
  GroupReference: msg`Network group reference`,
  NsgDirection: msg`Rule direction`,
  NsgName: msg`Network security group`,
  NsgPort: msg`Port`,
  ResourceGroup: msg`Resource group`,
  SecurityGroupId: msg`Security group ID`,
  Port: msg`Port`,
  Table: msg`nftables table`,
  ApiKeyId: msg`API key`,
  AllowAccessByIp: msg`Allow reading the list by source address`,
  AllowedIpAddresses: msg`Source addresses allowed to read the list`,
  EnvVars: msg`Variable values`,
};

/** The ACL `Name` field means something different per type. */
const NAME_LABELS: Partial<Record<BackendType, MessageDescriptor>> = {
  fortios: msg`Address group`,
  fortimanager: msg`Address group`,
  knocproxy: msg`Named ACL`,
  script: msg`ACL name`,
};

/** The label of an ACL field of `type` (the backend field's label, or the wire name, when it has none of its own). */
export function aclFieldLabel(i18n: I18n, type: BackendType, name: string): string {
  const label = (name === "Name" ? NAME_LABELS[type] : undefined) ?? FIELD_LABELS[name];
  return label ? i18n._(label) : configFieldLabel(i18n, name);
}

/** The fields of an ACL of `type` the dialog and Details show: the allowlist's Token is the server's. */
export function aclConfigFields(type: BackendType) {
  return configFields(BACKEND_DESCRIPTORS[type].aclSchema, []).filter(
    (f) => !(type === "allowlist" && f.name === "Token"),
  );
}
