/**
 * What the wizards call each ACL field of docs/reference.md admin-console §3's table ("ACL fields" column); the wire
 * names are the keys.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";

const LABELS: Record<string, MessageDescriptor> = {
  ID: msg`ACL ID`,
  Name: msg`ACL name`,
  V4SetName: msg`IPv4 set name`,
  V6SetName: msg`IPv6 set name`,
  Table: msg`Table`,
  EDLName: msg`External dynamic list name`,
  GroupName: msg`Group name`,
  GroupNameV6: msg`IPv6 group name`,
  SerialNumber: msg`Serial number`,
  MapUser: msg`Map users with User-ID`,
  URL: msg`List URL`,
  GroupUUID: msg`Network group UUID`,
  GroupReference: msg`Network group reference`,
  NsgDirection: msg`NSG direction`,
  NsgName: msg`NSG name`,
  NsgPort: msg`NSG port`,
  ResourceGroup: msg`Resource group`,
  SecurityGroupId: msg`Security group ID`,
  Port: msg`Port`,
};

/** The label of an ACL field (the wire name when the console has none). */
export function aclFieldLabel(i18n: I18n, name: string): string {
  const label = LABELS[name];
  return label ? i18n._(label) : name;
}
