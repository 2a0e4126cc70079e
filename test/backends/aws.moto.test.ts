/**
 * The AWS driver against a real moto_server (issue #10 items 10 and 13): ingress rules per address on
 * the ACL's port, IPv6 as /128, duplicates and missing rules as success, an admin's own rules left alone.
 */
import { AuthorizeSecurityGroupIngressCommand, DescribeSecurityGroupsCommand } from "@aws-sdk/client-ec2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "@postern/shared";
import { AwsDriver } from "../../agent/src/backends/aws/driver.ts";
import { motoAvailable, startMoto } from "../support/moto.ts";
import type { Moto } from "../support/moto.ts";

const have = await motoAvailable();
const HOUR = 3_600_000;

describe.skipIf(!have)("AwsDriver on moto_server", () => {
  let moto: Moto;
  let target: Target;
  let group = "";
  let driver: AwsDriver;

  beforeAll(async () => {
    moto = await startMoto();
    group = await moto.newSecurityGroup("postern-aws-test");
    target = {
      key: "acl-aws",
      backendId: "b-aws",
      backend: { aws: { AccessKeyId: "", SecretAccessKey: "", Region: "eu-west-1" } },
      acl: { aws: { SecurityGroupId: group, Port: 2222 } },
    };
    driver = new AwsDriver({
      accessKeyId: "testing",
      secretAccessKey: "testing",
      region: "eu-west-1",
      endpoint: moto.url,
    });
    // An admin's own rule on the same port: never read back, never removed.
    await moto.ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: group,
        IpPermissions: [
          {
            IpProtocol: "tcp",
            FromPort: 2222,
            ToPort: 2222,
            IpRanges: [{ CidrIp: "198.51.100.1/32", Description: "office" }],
          },
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await driver?.close();
    await moto?.stop();
  });

  it("authorises /32 and /128 rules with the user in the description, idempotently", async () => {
    const now = Date.now();
    const entries = [
      { ip: "203.0.113.5", expiresAt: now + HOUR, user: "alice" },
      { ip: "2001:db8::5", expiresAt: now + HOUR, user: "bob o'neil" },
    ];
    expect(await driver.add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect(await driver.add(target, entries, now)).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
    ]);
    expect((await driver.list(target)).sort()).toEqual(["2001:db8::5", "203.0.113.5"]);
    const sg = await moto.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [group] }));
    const descriptions = sg.SecurityGroups![0]!.IpPermissions!.flatMap((p) => [
      ...(p.IpRanges ?? []).map((r) => r.Description),
      ...(p.Ipv6Ranges ?? []).map((r) => r.Description),
    ]);
    expect(descriptions.sort()).toEqual(["office", "postern alice", "postern bob o_neil"]);
  });

  it("revokes; a missing rule succeeds; the admin's rule stays", async () => {
    expect(await driver.remove(target, ["203.0.113.5", "2001:db8::5", "192.0.2.9"])).toEqual([
      { ip: "203.0.113.5", ok: true },
      { ip: "2001:db8::5", ok: true },
      { ip: "192.0.2.9", ok: true },
    ]);
    expect(await driver.list(target)).toEqual([]);
    const sg = await moto.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [group] }));
    expect(sg.SecurityGroups![0]!.IpPermissions!.flatMap((p) => (p.IpRanges ?? []).map((r) => r.CidrIp))).toEqual([
      "198.51.100.1/32",
    ]);
  });

  it("names an unknown security group", async () => {
    const other: Target = { ...target, acl: { aws: { SecurityGroupId: "sg-0123456789abcdef0", Port: 22 } } };
    await expect(driver.list(other)).rejects.toThrow(
      /AWS could not read security group sg-0123456789abcdef0: InvalidGroup.NotFound/,
    );
  });
});
