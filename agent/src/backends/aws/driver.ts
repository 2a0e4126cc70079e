/**
 * The AWS driver (issue #10 item 10; `shared/vendors.md` §7): an inbound TCP rule on the ACL's Port
 * from each address (`/32`, or `/128` in `Ipv6Ranges`) in the ACL's security group, through the AWS SDK
 * v3 (`@aws-sdk/client-ec2`). Rules carry the description `postern <user>`; only rules with that
 * prefix are read back, so an admin's own rules on the same port are never touched.
 * `InvalidPermission.Duplicate` and `InvalidPermission.NotFound` are success. Drift is re-read every
 * two minutes. The SDK is loaded on the first call (issue #13 item 4: an agent without an AWS backend
 * never loads it).
 */
import type * as Ec2Sdk from "@aws-sdk/client-ec2";
import type { EC2Client, IpPermission } from "@aws-sdk/client-ec2";
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** Options of an `AwsDriver`. */
export interface AwsDriverOptions {
  readonly accessKeyId: string;
  /** Never logged, never in an error. */
  readonly secretAccessKey: string;
  readonly region: string;
  /** EC2 endpoint override (tests: moto). */
  readonly endpoint?: string;
}

/** The description prefix of the rules this driver owns. */
export const AWS_RULE_PREFIX = "postern";

/** A rule description: `postern <user>`, reduced to the characters EC2 accepts, at most 255. */
export function awsRuleDescription(user: string | undefined): string {
  const clean = (user ?? "").replace(/[^a-zA-Z0-9. _\-:/()#,@[\]+=&;{}!$*]/g, "_");
  return `${AWS_RULE_PREFIX} ${clean}`.trim().slice(0, 255);
}

/** Manages ingress rules in a security group; see the module documentation. */
export class AwsDriver implements Driver {
  /** The BackendConfig key handled: `aws`. */
  readonly type = "aws";
  readonly concurrency = 4;
  readonly driftIntervalMs = 120_000;
  readonly #options: AwsDriverOptions;
  #sdk: Promise<{ ec2: EC2Client; sdk: typeof Ec2Sdk }> | undefined;

  /** @throws Error without credentials or region. */
  constructor(options: AwsDriverOptions) {
    if (!options.accessKeyId || !options.secretAccessKey)
      throw new Error("the AWS backend has no access key for this agent");
    if (!options.region) throw new Error("the AWS backend has no Region");
    this.#options = options;
  }

  /** The SDK and this backend's client, loaded and made on first use. */
  #client(): Promise<{ ec2: EC2Client; sdk: typeof Ec2Sdk }> {
    const o = this.#options;
    this.#sdk ??= import("@aws-sdk/client-ec2").then((sdk) => ({
      sdk,
      ec2: new sdk.EC2Client({
        region: o.region,
        credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey },
        ...(o.endpoint ? { endpoint: o.endpoint } : {}),
        maxAttempts: 3,
      }),
    }));
    return this.#sdk;
  }

  /** Authorises one rule per address; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const { group, port } = aclOf(target);
    const out: EntryOutcome[] = [];
    for (const e of entries) {
      const perm = permission(e.ip, port, awsRuleDescription(e.user));
      if (!perm) out.push({ ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` });
      else if (e.expiresAt <= now) out.push({ ip: e.ip, ok: true });
      else
        out.push(
          await this.#send(e.ip, "InvalidPermission.Duplicate", async () => {
            const { ec2, sdk } = await this.#client();
            return ec2.send(new sdk.AuthorizeSecurityGroupIngressCommand({ GroupId: group, IpPermissions: [perm] }));
          }),
        );
    }
    return out;
  }

  /** Revokes each address's rule; a missing rule succeeds. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const { group, port } = aclOf(target);
    const out: EntryOutcome[] = [];
    for (const ip of ips) {
      const perm = permission(ip, port, undefined);
      if (!perm) out.push({ ip, ok: false, error: `invalid IP address "${ip}"` });
      else
        out.push(
          await this.#send(ip, "InvalidPermission.NotFound", async () => {
            const { ec2, sdk } = await this.#client();
            return ec2.send(new sdk.RevokeSecurityGroupIngressCommand({ GroupId: group, IpPermissions: [perm] }));
          }),
        );
    }
    return out;
  }

  /** The single addresses of this driver's rules on the port. @throws Error when the group cannot be read. */
  async list(target: Target): Promise<string[]> {
    const { group, port } = aclOf(target);
    let perms: IpPermission[];
    try {
      const { ec2, sdk } = await this.#client();
      const r = await ec2.send(new sdk.DescribeSecurityGroupsCommand({ GroupIds: [group] }));
      perms = r.SecurityGroups?.[0]?.IpPermissions ?? [];
    } catch (err) {
      throw new Error(`AWS could not read security group ${group}: ${errorName(err)}`, { cause: err });
    }
    const out: string[] = [];
    for (const p of perms) {
      if (p.IpProtocol !== "tcp" || p.FromPort !== port || p.ToPort !== port) continue;
      const ranges = [
        ...(p.IpRanges ?? []).map((r) => [r.CidrIp, r.Description] as const),
        ...(p.Ipv6Ranges ?? []).map((r) => [r.CidrIpv6, r.Description] as const),
      ];
      for (const [cidr, description] of ranges) {
        if (!cidr || !(description ?? "").startsWith(AWS_RULE_PREFIX)) continue;
        const m = /^(.+)\/(32|128)$/.exec(cidr);
        const ip = m ? normaliseIp(m[1]!)?.ip : undefined;
        if (ip) out.push(ip);
      }
    }
    return [...new Set(out)];
  }

  /** Closes the SDK client (when one was made). */
  async close(): Promise<void> {
    const made = this.#sdk;
    this.#sdk = undefined;
    if (made) (await made.catch(() => undefined))?.ec2.destroy();
  }

  async #send(ip: string, fine: string, call: () => Promise<unknown>): Promise<EntryOutcome> {
    try {
      await call();
      return { ip, ok: true };
    } catch (err) {
      if ((err as { name?: string } | null)?.name === fine) return { ip, ok: true };
      return { ip, ok: false, error: `AWS refused ${ip}: ${errorName(err)}` };
    }
  }
}

function aclOf(target: Target): { group: string; port: number } {
  if (!("aws" in target.acl)) throw new Error(`target ${target.key} is not an aws ACL`);
  return { group: target.acl.aws.SecurityGroupId, port: target.acl.aws.Port };
}

function permission(ip: string, port: number, description: string | undefined): IpPermission | null {
  const n = normaliseIp(ip);
  if (!n) return null;
  const d = description === undefined ? {} : { Description: description };
  return {
    IpProtocol: "tcp",
    FromPort: port,
    ToPort: port,
    ...(n.family === "inet"
      ? { IpRanges: [{ CidrIp: `${n.ip}/32`, ...d }] }
      : { Ipv6Ranges: [{ CidrIpv6: `${n.ip}/128`, ...d }] }),
  };
}

/** The AWS error code (`err.name` in SDK v3) with its message; never credentials. */
function errorName(err: unknown): string {
  if (err && typeof err === "object" && "name" in err) {
    const e = err as { name: string; message?: string };
    return e.message && e.message !== e.name ? `${e.name}: ${e.message}` : e.name;
  }
  return String(err);
}
