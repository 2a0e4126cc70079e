/**
 * What the console calls each backend type and each configuration field (docs/reference.md admin-console §3), for the
 * backends page and the Knoc forms. The field names are the wire's; these are their labels.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import type { BackendType } from "@postern/shared";

const TYPE_LABELS: Record<BackendType, MessageDescriptor> = {
  fortios: msg`Fortinet FortiGate (FortiOS)`,
  fortimanager: msg`Fortinet FortiManager`,
  azure: msg`Azure network security group`,
  panos: msg`Palo Alto Networks (PAN-OS)`,
  firepower: msg`Cisco Firepower (FMC)`,
  sophosutm: msg`Sophos UTM`,
  sophossfos: msg`Sophos Firewall (SFOS)`,
  aws: msg`AWS security group`,
  haproxy: msg`HAProxy`,
  knocproxy: msg`knocproxy`,
  script: msg`Script or webhook`,
  ipset: msg`Linux ipset`,
  allowlist: msg`Allowlist`,
  nftables: msg`Linux nftables`,
};

const FIELD_LABELS: Record<string, MessageDescriptor> = {
  Url: msg`REST API URL`,
  Insecure: msg`Skip TLS certificate verification`,
  Bearer: msg`API token`,
  Prefix: msg`Address object prefix`,
  VDOM: msg`VDOM`,
  Hostname: msg`Host name`,
  ApiKey: msg`API key`,
  VSys: msg`Virtual system`,
  DeviceGroup: msg`Device group`,
  MapUser: msg`Map users with User-ID`,
  Username: msg`User name`,
  Password: msg`Password`,
  ClientId: msg`Client ID`,
  ClientSecret: msg`Client secret`,
  TenantId: msg`Tenant ID`,
  NoCache: msg`Do not cache tokens`,
  AccessKeyId: msg`Access key ID`,
  SecretAccessKey: msg`Secret access key`,
  Region: msg`Region`,
  Protocol: msg`Protocol`,
  Address: msg`Runtime API address`,
  Command: msg`Command or webhook URL`,
  EnvVars: msg`Environment variables`,
};

/** Labels of the ACL fields of each type (docs/reference.md admin-console §3 table, "ACL fields"), where they differ from the backend's. */
const ACL_FIELD_LABELS: Record<string, MessageDescriptor> = {
  ID: msg`HAProxy ACL ID`,
  Name: msg`ACL name`,
  V4SetName: msg`IPv4 set name`,
  V6SetName: msg`IPv6 set name`,
  Table: msg`nftables table`,
  EDLName: msg`External dynamic list name`,
  GroupName: msg`Address group`,
  GroupNameV6: msg`IPv6 address group`,
  SerialNumber: msg`Serial number`,
  URL: msg`Allowlist URL for the firewall`,
  GroupUUID: msg`Network group UUID`,
  GroupReference: msg`Network group reference`,
  NsgDirection: msg`NSG rule direction`,
  NsgName: msg`Network security group`,
  NsgPort: msg`Port`,
  ResourceGroup: msg`Resource group`,
  SecurityGroupId: msg`Security group ID`,
  Port: msg`Port`,
};

/** The console's name of a backend type. */
export function backendTypeLabel(i18n: I18n, type: BackendType): string {
  return i18n._(TYPE_LABELS[type]);
}

/** The label of an ACL (Knoc) configuration field; a field shared with backends takes the backend's label. */
export function aclFieldLabel(i18n: I18n, name: string): string {
  const label = ACL_FIELD_LABELS[name];
  return label ? i18n._(label) : configFieldLabel(i18n, name);
}

/** The label of a configuration field (the wire name when the console has none). */
export function configFieldLabel(i18n: I18n, name: string): string {
  const label = FIELD_LABELS[name];
  return label ? i18n._(label) : name;
}
