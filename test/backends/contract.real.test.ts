/**
 * The driver contract (test/support/driver-contract.ts) run against every driver this agent has, each
 * on its real target: ipset and nftables sets in a network namespace, a real HAProxy (haproxy `#ID`
 * and knocproxy named ACL file), a real executable (script) and a real receiver verifying signatures
 * with `standardwebhooks` (webhook).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupsCommand,
  RevokeSecurityGroupIngressCommand,
} from "@aws-sdk/client-ec2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes, randomUUID } from "node:crypto";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import { driverContract } from "../support/driver-contract.ts";
import { testDrivers } from "../support/drivers.ts";
import { startHaproxy } from "../support/haproxy.ts";
import { createNetnsPair, netnsRunner, netnsSupport } from "../support/netns.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import { startFakeFortiGate } from "../fakes/fortios/server.ts";
import { startFakePanos } from "../fakes/panos/server.ts";
import { startFakeSophosUtm } from "../fakes/sophosutm/server.ts";
import { startFakeFortiManager } from "../fakes/fortimanager/server.ts";
import { startFakeFmc } from "../fakes/firepower/server.ts";
import { startFakeSophosSfos } from "../fakes/sophossfos/server.ts";
import { startFakeAzure } from "../fakes/azure/server.ts";
import { NodeHttpClient } from "../../agent/src/http/node-client.ts";
import { FIREPOWER_PLACEHOLDER } from "../../agent/src/backends/firepower/driver.ts";
import { azureRuleName } from "../../agent/src/backends/azure/driver.ts";
import { motoAvailable, startMoto } from "../support/moto.ts";

const IPS = ["192.0.2.1", "192.0.2.2", "192.0.2.3"] as const;
const runner = new ExecaRunner({ defaultTimeoutMs: 20_000 });
const can = (command: string, args: string[]) =>
  runner
    .run(command, args, { timeoutMs: 5_000 })
    .then((r) => r.exitCode === 0)
    .catch(() => false);
const netns = await netnsSupport();
const haveIpset = await can("ipset", ["-v"]);
const haveNft = await can("nft", ["--version"]);
const haveHaproxy = await can("haproxy", ["-v"]);
const haveMoto = await motoAvailable();

/** Lines of HAProxy's `show acl` answer: the pattern of each `0xADDR PATTERN` row. */
const aclRows = (answer: string): string[] =>
  answer
    .split("\n")
    .map((l) => /^0x[0-9a-f]+ (\S+)/i.exec(l.trim())?.[1])
    .filter((x): x is string => !!x);

driverContract(
  "ipset",
  async () => {
    const pair = await createNetnsPair();
    const ns = pair.server.ns;
    const set = `pc4${process.pid}`;
    await pair.runOk(ns, "ipset", ["create", set, "hash:ip", "family", "inet", "timeout", "0"]);
    const { drivers } = testDrivers({ runner: netnsRunner(runner, ns) });
    return {
      target: {
        key: "acl-ipset",
        backendId: "b-ipset",
        backend: { ipset: {} },
        acl: { ipset: { V4SetName: set, V6SetName: "" } },
      },
      drivers,
      ips: IPS,
      present: async () =>
        (await pair.runOk(ns, "ipset", ["list", set, "-output", "save"])).stdout
          .split("\n")
          .map((l) => /^add \S+ (\S+)/.exec(l)?.[1])
          .filter((x): x is string => !!x),
      drift: {
        add: async (ip) => void (await pair.runOk(ns, "ipset", ["add", set, ip])),
        remove: async (ip) => void (await pair.runOk(ns, "ipset", ["del", set, ip])),
      },
      close: () => pair.destroy(),
    };
  },
  !netns.ok ? netns.reason : !haveIpset ? "ipset is not installed" : "",
);

driverContract(
  "nftables",
  async () => {
    const pair = await createNetnsPair();
    const ns = pair.server.ns;
    await pair.runOk(ns, "nft", ["add", "table", "inet", "postern"]);
    await pair.runOk(ns, "nft", ["add", "set", "inet", "postern", "allow4", "{ type ipv4_addr; flags timeout; }"]);
    const { drivers } = testDrivers({ runner: netnsRunner(runner, ns) });
    return {
      target: {
        key: "acl-nft",
        backendId: "b-nft",
        backend: { nftables: {} },
        acl: { nftables: { Table: "inet postern", V4SetName: "allow4", V6SetName: "" } },
      },
      drivers,
      ips: IPS,
      present: async () => {
        const text = (await pair.runOk(ns, "nft", ["list", "set", "inet", "postern", "allow4"])).stdout;
        const inner = /elements = \{([^}]*)\}/.exec(text)?.[1] ?? "";
        return [...inner.matchAll(/(\d+\.\d+\.\d+\.\d+)/g)].map((m) => m[1]!);
      },
      drift: {
        add: async (ip) =>
          void (await pair.runOk(ns, "nft", ["add", "element", "inet", "postern", "allow4", `{ ${ip} }`])),
        remove: async (ip) =>
          void (await pair.runOk(ns, "nft", ["delete", "element", "inet", "postern", "allow4", `{ ${ip} }`])),
      },
      close: () => pair.destroy(),
    };
  },
  !netns.ok ? netns.reason : !haveNft ? "nft is not installed (apt-get install nftables)" : "",
);

driverContract(
  "haproxy",
  async () => {
    const hap = await startHaproxy();
    const { drivers } = testDrivers();
    return {
      target: {
        key: "acl-hap",
        backendId: "b-hap",
        backend: { haproxy: { Protocol: "unix", Address: hap.socketPath } },
        acl: { haproxy: { ID: hap.aclId } },
      },
      drivers,
      ips: IPS,
      present: async () => aclRows(await hap.command(`show acl #${hap.aclId}`)),
      drift: {
        add: async (ip) => void (await hap.command(`add acl #${hap.aclId} ${ip}`)),
        remove: async (ip) => void (await hap.command(`del acl #${hap.aclId} ${ip}`)),
      },
      close: () => hap.stop(),
    };
  },
  haveHaproxy ? "" : "haproxy is not installed",
);

driverContract(
  "knocproxy",
  async () => {
    const hap = await startHaproxy({ aclFileName: "knoc_contract.acl" });
    const { drivers } = testDrivers({ knocproxyDir: hap.dir });
    return {
      target: {
        key: "acl-knoc",
        backendId: "b-knoc",
        backend: { knocproxy: { Protocol: "unix", Address: hap.socketPath } },
        acl: { knocproxy: { Name: "knoc_contract" } },
      },
      drivers,
      ips: IPS,
      present: async () => aclRows(await hap.command(`show acl ${hap.aclFile}`)),
      drift: {
        add: async (ip) => void (await hap.command(`add acl ${hap.aclFile} ${ip}`)),
        remove: async (ip) => void (await hap.command(`del acl ${hap.aclFile} ${ip}`)),
      },
      close: () => hap.stop(),
    };
  },
  haveHaproxy ? "" : "haproxy is not installed",
);

/** A script that keeps the granted addresses in the file named by its ACL variable STATE. */
export const STATE_SCRIPT = `#!/bin/sh
set -eu
state="$STATE"
touch "$state"
case "$1" in
  add) grep -qxF "$3" "$state" || echo "$3" >> "$state" ;;
  del) grep -vxF "$3" "$state" > "$state.tmp" || true; mv "$state.tmp" "$state" ;;
  flush) : > "$state" ;;
  *) echo "unknown action $1" >&2; exit 2 ;;
esac
`;

driverContract("script", async () => {
  const dir = await mkdtemp(join(tmpdir(), "postern-script-"));
  const command = join(dir, "knoc.sh");
  const state = join(dir, "granted");
  await writeFile(command, STATE_SCRIPT);
  await chmod(command, 0o755);
  const { drivers } = testDrivers();
  return {
    target: {
      key: "acl-script",
      backendId: "b-script",
      backend: { script: { Command: command, EnvVars: [{ Name: "STATE", Sensitive: false }] } },
      acl: { script: { Name: "contract", EnvVars: { STATE: { Value: state, Encrypted: false } } } },
    },
    drivers,
    ips: IPS,
    present: async () => (await readFile(state, "utf8").catch(() => "")).split("\n").filter(Boolean),
    noDriftReason: "a script cannot be read back: admin-console §3 gives it add, del and flush only",
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

driverContract("webhook", async () => {
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const receiver = await startWebhookReceiver(secret);
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-webhook",
      backendId: "b-webhook",
      backend: { script: { Command: receiver.url, EnvVars: [{ Name: "WEBHOOK_SECRET", Sensitive: true }] } },
      acl: { script: { Name: "contract", EnvVars: { WEBHOOK_SECRET: { Value: "", Encrypted: true } } } },
      secrets: { "env:WEBHOOK_SECRET": seal(secret) },
    },
    drivers,
    ips: IPS,
    present: async () => [...receiver.granted],
    noDriftReason: "a webhook receiver cannot be read back",
    close: () => receiver.stop(),
  };
});

driverContract("fortios (fake FortiGate of test/fakes/fortios)", async () => {
  const token = randomBytes(16).toString("hex");
  const fgt = await startFakeFortiGate(token);
  fgt.addGroup("postern_grp", "edge");
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-fgt",
      backendId: "b-fgt",
      backend: { fortios: { Url: fgt.url, Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "edge" } },
      acl: { fortios: { Name: "postern_grp" } },
      secrets: { Bearer: seal(token) },
    },
    drivers,
    ips: IPS,
    present: async () => fgt.members("postern_grp", "edge").map((m) => m.replace(/^kk_/, "")),
    drift: {
      add: async (ip) => fgt.putMember("postern_grp", `kk_${ip}`, ip, "edge"),
      remove: async (ip) => fgt.dropMember("postern_grp", `kk_${ip}`, "edge"),
    },
    close: () => fgt.stop(),
  };
});

driverContract("panos (fake PAN-OS of test/fakes/panos)", async () => {
  const key = randomBytes(16).toString("hex");
  const pan = await startFakePanos(key);
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-pan",
      backendId: "b-pan",
      backend: {
        panos: { Hostname: pan.url, Insecure: false, ApiKey: "", VSys: "vsys1", DeviceGroup: "", MapUser: false },
      },
      acl: { panos: { EDLName: "", GroupName: "jit", SerialNumber: "", MapUser: false, URL: "" } },
      secrets: { ApiKey: seal(key) },
    },
    drivers,
    ips: IPS,
    present: async () => pan.registered("jit"),
    drift: { add: async (ip) => pan.put(ip, "jit"), remove: async (ip) => pan.drop(ip, "jit") },
    close: () => pan.stop(),
  };
});

driverContract(
  "aws (moto_server)",
  async () => {
    const moto = await startMoto();
    const group = await moto.newSecurityGroup("postern-contract");
    const { drivers, seal } = testDrivers({ endpoints: { aws: moto.url } });
    const present = async (): Promise<string[]> => {
      const sg = await moto.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [group] }));
      return (sg.SecurityGroups?.[0]?.IpPermissions ?? [])
        .flatMap((p) => (p.IpRanges ?? []).map((r) => r.CidrIp ?? ""))
        .map((c) => c.replace(/\/32$/, ""));
    };
    const perm = (ip: string) => [
      { IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: `${ip}/32`, Description: "postern drift" }] },
    ];
    return {
      target: {
        key: "acl-aws",
        backendId: "b-aws",
        backend: { aws: { AccessKeyId: "", SecretAccessKey: "", Region: "eu-west-1" } },
        acl: { aws: { SecurityGroupId: group, Port: 22 } },
        secrets: { AccessKeyId: seal("testing"), SecretAccessKey: seal("testing") },
      },
      drivers,
      ips: IPS,
      present,
      drift: {
        add: async (ip) =>
          void (await moto.ec2.send(
            new AuthorizeSecurityGroupIngressCommand({ GroupId: group, IpPermissions: perm(ip) }),
          )),
        remove: async (ip) =>
          void (await moto.ec2.send(
            new RevokeSecurityGroupIngressCommand({ GroupId: group, IpPermissions: perm(ip) }),
          )),
      },
      close: async () => {
        await drivers.close();
        await moto.stop();
      },
    };
  },
  haveMoto ? "" : "moto_server is not installed",
);

driverContract("sophosutm (fake UTM of test/fakes/sophosutm)", async () => {
  const key = randomBytes(16).toString("hex");
  const utm = await startFakeSophosUtm(key);
  const ref = utm.addGroup("jit");
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-utm",
      backendId: "b-utm",
      backend: { sophosutm: { Hostname: utm.url, Insecure: false, ApiKey: "" } },
      acl: { sophosutm: { GroupReference: ref } },
      secrets: { ApiKey: seal(key) },
    },
    drivers,
    ips: IPS,
    present: async () => utm.members(ref),
    drift: { add: async (ip) => utm.put(ref, ip), remove: async (ip) => utm.drop(ref, ip) },
    close: () => utm.stop(),
  };
});

driverContract("fortimanager (fake FortiManager of test/fakes/fortimanager)", async () => {
  const key = randomBytes(16).toString("hex");
  const fmg = await startFakeFortiManager(key);
  fmg.addGroup("jit_grp");
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-fmg",
      backendId: "b-fmg",
      backend: { fortimanager: { Hostname: fmg.url, Insecure: false, ApiKey: "" } },
      acl: { fortimanager: { Name: "jit_grp" } },
      secrets: { ApiKey: seal(key) },
    },
    drivers,
    ips: IPS,
    // What the devices hold: the group as last installed.
    present: async () => fmg.installed("jit_grp").map((m) => m.replace(/^kk_/, "")),
    drift: {
      add: async (ip) => fmg.put("jit_grp", `kk_${ip}`),
      remove: async (ip) => fmg.drop("jit_grp", `kk_${ip}`),
    },
    close: () => fmg.stop(),
  };
});

driverContract("firepower (fake FMC of test/fakes/firepower)", async () => {
  const password = randomBytes(16).toString("hex");
  const fmc = await startFakeFmc("api", password);
  const id = fmc.addGroup("jit");
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-fmc",
      backendId: "b-fmc",
      backend: { firepower: { Hostname: fmc.url, Insecure: false, Username: "api", Password: "" } },
      acl: { firepower: { GroupUUID: id } },
      secrets: { Password: seal(password) },
    },
    drivers,
    ips: IPS,
    // What the device runs: the group as last deployed.
    present: async () => fmc.deployed(id).filter((ip) => ip !== FIREPOWER_PLACEHOLDER),
    drift: { add: async (ip) => fmc.put(id, ip), remove: async (ip) => fmc.drop(id, ip) },
    close: () => fmc.stop(),
  };
});

driverContract("sophossfos (fake SFOS of test/fakes/sophossfos)", async () => {
  const password = randomBytes(16).toString("hex");
  const fw = await startFakeSophosSfos("api", password);
  fw.addGroup("jit");
  const { drivers, seal } = testDrivers();
  return {
    target: {
      key: "acl-sfos",
      backendId: "b-sfos",
      backend: { sophossfos: { Hostname: fw.url, Insecure: false, Username: "api", Password: "" } },
      acl: { sophossfos: { GroupName: "jit", GroupNameV6: "" } },
      secrets: { Password: seal(password) },
    },
    drivers,
    ips: IPS,
    present: async () => fw.members("jit"),
    drift: { add: async (ip) => fw.put("jit", ip), remove: async (ip) => fw.drop("jit", ip) },
    close: () => fw.stop(),
  };
});

driverContract("azure (Azure SDK against the HTTPS fake of test/fakes/azure)", async () => {
  const [tenant, clientId, secret] = [randomUUID(), randomUUID(), randomBytes(16).toString("hex")];
  const az = await startFakeAzure(tenant, clientId, secret);
  az.addNsg("rg-jit", "nsg-contract");
  const { drivers, seal } = testDrivers({
    http: new NodeHttpClient({ ca: az.ca, defaultTimeoutMs: 10_000 }),
    endpoints: { azure: az.url, "azure-login": az.url },
  });
  const rules = () => az.rules("rg-jit", "nsg-contract").filter((r) => r.name.startsWith("postern-"));
  return {
    target: {
      key: "acl-azure",
      backendId: "b-azure",
      backend: { azure: { ClientId: "", ClientSecret: "", TenantId: "", NoCache: false } },
      acl: { azure: { NsgDirection: "Inbound", NsgName: "nsg-contract", NsgPort: 443, ResourceGroup: "rg-jit" } },
      secrets: { TenantId: seal(tenant), ClientId: seal(clientId), ClientSecret: seal(secret) },
    },
    drivers,
    ips: IPS,
    present: async () => rules().map((r) => r.sourceAddressPrefix.replace(/\/32$/, "")),
    drift: {
      add: async (ip) =>
        az.putRule("rg-jit", "nsg-contract", {
          name: azureRuleName("Inbound", 443, ip),
          priority: 3000,
          sourceAddressPrefix: `${ip}/32`,
        }),
      remove: async (ip) => az.dropRule("rg-jit", "nsg-contract", azureRuleName("Inbound", 443, ip)),
    },
    close: async () => {
      await drivers.close();
      await az.stop();
    },
  };
});
