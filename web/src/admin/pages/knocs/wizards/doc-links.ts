/**
 * The documentation the settings step links to, per backend type (docs/reference.md admin-console §2 "Settings step has
 * documentation links that differ per type"): where the enforcement point's own manual explains what
 * the fields name (HAProxy's runtime API, ipset sets, the vendor's API access, the External Dynamic
 * Lists that read a passive allowlist).
 */
import type { BackendType } from "@postern/shared";

/** One link: the address and which manual it is (shown as the link's text, a proper name). */
export interface DocLink {
  href: string;
  title: string;
}

/** The manuals of each backend type. */
export const DOC_LINKS: Readonly<Record<BackendType, readonly DocLink[]>> = {
  haproxy: [
    { href: "https://docs.haproxy.org/2.8/management.html#9.3", title: "HAProxy Runtime API" },
    { href: "https://docs.haproxy.org/2.8/configuration.html#7.1.1", title: "HAProxy ACLs" },
  ],
  knocproxy: [{ href: "https://docs.haproxy.org/2.8/management.html#9.3", title: "HAProxy Runtime API" }],
  ipset: [
    { href: "https://ipset.netfilter.org/ipset.man.html", title: "ipset(8)" },
    { href: "https://ipset.netfilter.org/iptables-extensions.man.html", title: "iptables set match" },
  ],
  nftables: [{ href: "https://wiki.nftables.org/wiki-nftables/index.php/Sets", title: "nftables sets" }],
  script: [{ href: "https://www.standardwebhooks.com/", title: "Standard Webhooks" }],
  allowlist: [
    {
      href: "https://docs.paloaltonetworks.com/pan-os/11-1/pan-os-admin/policy/use-an-external-dynamic-list-in-policy",
      title: "PAN-OS External Dynamic Lists",
    },
    {
      href: "https://docs.fortinet.com/document/fortigate/7.4.0/administration-guide/891236/external-blocklist-policy",
      title: "FortiGate external threat feeds",
    },
  ],
  fortios: [
    {
      href: "https://docs.fortinet.com/document/fortigate/7.4.0/administration-guide/399023/rest-api-administrator",
      title: "FortiGate REST API administrator",
    },
  ],
  fortimanager: [{ href: "https://docs.fortinet.com/product/fortimanager", title: "FortiManager" }],
  panos: [
    { href: "https://docs.paloaltonetworks.com/pan-os/11-1/pan-os-panorama-api", title: "PAN-OS XML API" },
    {
      href: "https://docs.paloaltonetworks.com/pan-os/11-1/pan-os-admin/policy/use-an-external-dynamic-list-in-policy",
      title: "PAN-OS External Dynamic Lists",
    },
  ],
  firepower: [{ href: "https://developer.cisco.com/docs/fmc-rest-api/", title: "Cisco FMC REST API" }],
  sophosutm: [{ href: "https://docs.sophos.com/nsg/sophos-utm/", title: "Sophos UTM" }],
  sophossfos: [{ href: "https://docs.sophos.com/nsg/sophos-firewall/", title: "Sophos Firewall" }],
  azure: [
    {
      href: "https://learn.microsoft.com/azure/virtual-network/network-security-groups-overview",
      title: "Azure network security groups",
    },
  ],
  aws: [
    { href: "https://docs.aws.amazon.com/vpc/latest/userguide/vpc-security-groups.html", title: "AWS security groups" },
  ],
};
