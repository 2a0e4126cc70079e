/**
 * How an admin checks that a Knoc is enforced (docs/reference.md admin-console §2 "Row click opens a detail dialog
 * with verification instructions"): per Knoc type the commands to run where the Knoc is enforced,
 * built from its stored configuration. The words around them are the detail dialog's
 * (`KnocVerification.tsx`); this module only builds the commands, so they can be tested.
 *
 * - LINUX: `ipset list <set>` on the agent's host (nftables: `nft list set <table> <set>`).
 * - PROXY: `show acl #<ID>` (HAProxy) or `show acl <file>` (knocproxy's `<dir>/<Name>.acl`) on the
 *   runtime API, through socat at the backend's unix socket or tcp address.
 * - SCRIPT: the script run by hand the way the agent runs it (`<command> add|del <ACL name> <address>`).
 * - APPLICATION passive / passive+: the allowlist URL fetched with curl (with the API key when one
 *   reads it); passive+ also the PAN-OS command showing the External Dynamic List.
 * - APPLICATION active: the vendor's own command where it has one (FortiGate CLI, AWS CLI, Azure CLI).
 */
import { NONE_ID, backendTypeOf } from "@postern/shared";
import type { Knoc } from "@postern/shared";

/** The folder of knocproxy ACL files on the agent (the agent's default `knocproxyDir`). */
export const KNOCPROXY_DIR = "/etc/haproxy/postern";
/** The address the manual script checks use (TEST-NET-1, RFC 5737: never a real user's). */
export const EXAMPLE_ADDRESS = "192.0.2.10";

/** What a Knoc's verification consists of: its kind of check and the commands, in order. */
export interface Verification {
  check:
    | "ipset"
    | "nftables"
    | "haproxy"
    | "knocproxy"
    | "script"
    | "webhook"
    | "allowlist"
    | "edl"
    | "fortios"
    | "aws"
    | "azure"
    | "vendor";
  commands: string[];
}

/** Quotes a value for a POSIX shell when it holds anything but safe characters. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `echo "<command>" | socat stdio <address>` for a unix socket or a tcp host:port. */
function runtimeApi(command: string, protocol: "unix" | "tcp", address: string): string {
  const target = protocol === "tcp" ? `tcp:${address}` : address;
  return `echo ${shellQuote(command)} | ${protocol === "unix" ? "sudo " : ""}socat stdio ${shellQuote(target)}`;
}

/** The check of a Knoc and its commands (see the module documentation). */
export function verificationOf(knoc: Knoc): Verification {
  const type = backendTypeOf(knoc.BackendConfig);
  const acl = knoc.AclConfig;
  switch (type) {
    case "ipset": {
      const sets = [acl.ipset?.V4SetName, acl.ipset?.V6SetName].filter((s): s is string => !!s);
      return { check: "ipset", commands: sets.map((s) => `sudo ipset list ${shellQuote(s)}`) };
    }
    case "nftables": {
      const n = acl.nftables;
      const sets = [n?.V4SetName, n?.V6SetName].filter((s): s is string => !!s);
      return { check: "nftables", commands: sets.map((s) => `sudo nft list set ${n?.Table ?? ""} ${shellQuote(s)}`) };
    }
    case "haproxy": {
      const b = knoc.BackendConfig.haproxy!;
      return { check: "haproxy", commands: [runtimeApi(`show acl #${acl.haproxy?.ID ?? ""}`, b.Protocol, b.Address)] };
    }
    case "knocproxy": {
      const b = knoc.BackendConfig.knocproxy!;
      const file = `${KNOCPROXY_DIR}/${acl.knocproxy?.Name ?? ""}.acl`;
      return { check: "knocproxy", commands: [runtimeApi(`show acl ${file}`, b.Protocol, b.Address)] };
    }
    case "script": {
      const command = knoc.BackendConfig.script?.Command ?? "";
      if (knoc.Kind === "SCRIPT" && knoc.ScriptType === "webhook") return { check: "webhook", commands: [] };
      if (knoc.Kind === "APPLICATION") return { check: "vendor", commands: [] };
      const name = shellQuote(acl.script?.Name ?? "");
      return {
        check: "script",
        commands: [
          `sudo ${shellQuote(command)} add ${name} ${EXAMPLE_ADDRESS}`,
          `sudo ${shellQuote(command)} del ${name} ${EXAMPLE_ADDRESS}`,
        ],
      };
    }
    case "allowlist": {
      const withKey = (acl.allowlist?.ApiKeyId ?? NONE_ID) !== NONE_ID;
      const url = shellQuote(knoc.AllowlistURL);
      const curl = withKey ? `curl --user "key:$POSTERN_API_KEY" ${url}` : `curl ${url}`;
      if (knoc.ApplicationType === "passive+") return { check: "edl", commands: [curl] };
      return { check: "allowlist", commands: [curl] };
    }
    case "fortios":
      return { check: "fortios", commands: [`show firewall addrgrp ${shellQuote(acl.fortios?.Name ?? "")}`] };
    case "aws":
      return {
        check: "aws",
        commands: [
          `aws ec2 describe-security-groups --region ${shellQuote(knoc.BackendConfig.aws?.Region ?? "")} --group-ids ${shellQuote(acl.aws?.SecurityGroupId ?? "")}`,
        ],
      };
    case "azure":
      return {
        check: "azure",
        commands: [
          `az network nsg rule list --resource-group ${shellQuote(acl.azure?.ResourceGroup ?? "")} --nsg-name ${shellQuote(acl.azure?.NsgName ?? "")} --output table`,
        ],
      };
    default:
      return { check: "vendor", commands: [] };
  }
}

/** The PAN-OS command listing the entries of the External Dynamic List a Passive+ Knoc feeds. */
export function edlCommand(edlName: string): string {
  return `request system external-list show type ip name ${shellQuote(edlName)}`;
}
