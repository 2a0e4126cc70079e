/**
 * The verification instructions of the Knoc detail dialog (docs/reference.md admin-console §2 "Row click opens a
 * detail dialog with verification instructions"): what to do as a user first (grant access in the
 * portal), then where and how to see the address in the enforcement — the words per check, the
 * commands from `verificationOf`, each copyable.
 */
import type { ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Knoc } from "@postern/shared";
import { Copyable } from "../../components/Copyable.tsx";
import { knocQueries } from "../../queries/knocs.ts";
import { EXAMPLE_ADDRESS, KNOCPROXY_DIR, edlCommand, verificationOf } from "./knoc-verification.ts";

const Code = ({ children }: { children: ReactNode }) => (
  <code className="rounded bg-slate-100 px-1 font-mono text-xs dark:bg-slate-800">{children}</code>
);

/** The EDL name of a Passive+ Knoc, read from its hidden firewall child. */
function useEdlName(knoc: Knoc): string | undefined {
  const childId = knoc.ApplicationType === "passive+" ? knoc.Children[0] : undefined;
  const child = useQuery({ ...knocQueries.detail(childId ?? ""), enabled: childId !== undefined });
  return child.data?.AclConfig.panos?.EDLName;
}

/** The words of one check. */
function CheckText({ knoc, check }: { knoc: Knoc; check: ReturnType<typeof verificationOf>["check"] }) {
  const agent = knoc.AgentName;
  const acl = knoc.AclConfig;
  switch (check) {
    case "ipset":
      return (
        <Trans>
          On the host of agent {agent}, the set lists the address while access is granted. The set must exist on the
          host (Postern does not create it) and a firewall rule must use it, for example{" "}
          <Code>iptables -I INPUT -m set --match-set SET src -j ACCEPT</Code>.
        </Trans>
      );
    case "nftables":
      return (
        <Trans>
          On the host of agent {agent}, the set lists the address while access is granted. The table and its sets (with{" "}
          <Code>flags timeout</Code>) must exist on the host, and a rule must use them.
        </Trans>
      );
    case "haproxy":
      return (
        <Trans>
          On the host of agent {agent}, HAProxy&apos;s runtime API lists the address in the ACL while access is granted.
          The HAProxy configuration must use this ACL to let the address through.
        </Trans>
      );
    case "knocproxy": {
      const file = `${KNOCPROXY_DIR}/${acl.knocproxy?.Name ?? ""}.acl`;
      return (
        <Trans>
          On the host of agent {agent}, the runtime API lists the address in the ACL file <Code>{file}</Code> while
          access is granted. HAProxy loads it with <Code>acl NAME src -f {file}</Code>.
        </Trans>
      );
    }
    case "script":
      return (
        <Trans>
          Agent {agent} runs the script with the action (add, del or flush), the ACL name and the address, and the
          variables knoc_action, knoc_aclname, knoc_username, knoc_cidr and knoc_ipaddr in its environment; exit status
          0 is success. Run it by hand on the agent&apos;s host with a test address ({EXAMPLE_ADDRESS}) and check that
          the address is let through and then removed again:
        </Trans>
      );
    case "webhook": {
      const url = knoc.BackendConfig.script?.Command ?? "";
      return (
        <Trans>
          Agent {agent} sends an access.granted event to <Code>{url}</Code> for every grant and access.revoked when it
          ends. Check the receiving service&apos;s log for the events, and that it answers with a 2xx status.
        </Trans>
      );
    }
    case "allowlist":
      return (
        <Trans>
          The vendor reads the allowlist at this URL. While access is granted it lists the address; fetch it from an
          allowed address (or with the API key, when one reads it):
        </Trans>
      );
    case "edl":
      return (
        <Trans>
          The firewall reads the allowlist at this URL as an External Dynamic List, and agent {agent} asks it to refresh
          the list. While access is granted, the URL lists the address:
        </Trans>
      );
    case "fortios":
      return (
        <Trans>
          On the FortiGate&apos;s command line, the address group lists an address object for the address while access
          is granted. A firewall policy must use the group.
        </Trans>
      );
    case "aws":
      return (
        <Trans>
          With the AWS command line, the security group has an inbound rule for the address while access is granted.
        </Trans>
      );
    case "azure":
      return (
        <Trans>
          With the Azure command line, the network security group has a rule for the address while access is granted.
        </Trans>
      );
    case "vendor":
      return (
        <Trans>
          In the vendor&apos;s management interface, the group or rule named in the details lists the address while
          access is granted.
        </Trans>
      );
  }
}

/** The verification section of the detail dialog. */
export function KnocVerification({ knoc }: { knoc: Knoc }) {
  const { t } = useLingui();
  const { check, commands } = verificationOf(knoc);
  const edlName = useEdlName(knoc);
  return (
    <section aria-labelledby="knoc-verification" data-testid="knoc-verification">
      <h3 id="knoc-verification" className="font-semibold text-slate-900 dark:text-white">
        <Trans>How to check that it works</Trans>
      </h3>
      <ol className="mt-2 list-decimal space-y-2 pl-5">
        <li>
          <Trans>
            Sign in to the user portal as a user who has this Knoc (or assign it to a test user) and grant access.
          </Trans>
        </li>
        <li>
          <CheckText knoc={knoc} check={check} />
          {commands.map((command, index) => (
            <Copyable
              key={command}
              id={`knoc-check-${index}`}
              label={commands.length > 1 ? t`Command ${index + 1}` : t`Command`}
              what={t`command`}
              value={command}
            />
          ))}
          {check === "edl" && edlName ? (
            <Copyable
              id="knoc-check-edl"
              label={t`On the firewall`}
              what={t`firewall command`}
              value={edlCommand(edlName)}
            />
          ) : null}
        </li>
        <li>
          <Trans>
            Revoke access in the portal (or let it expire): the address leaves the enforcement again, unless another
            session still holds it.
          </Trans>
        </li>
      </ol>
    </section>
  );
}
