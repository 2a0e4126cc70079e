/**
 * Test helper: a real moto_server (AWS API emulator, `shared/vendors.md` §7) on 127.0.0.1, started by
 * PID and stopped by PID, with a VPC and a security group made through the AWS SDK.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateSecurityGroupCommand, CreateVpcCommand, EC2Client } from "@aws-sdk/client-ec2";
import { motoServerCommand } from "./moto-chroot.ts";
import { freePort } from "./haproxy.ts";
import { startProcess } from "./process.ts";

/** A running moto_server. */
export interface Moto {
  readonly url: string;
  /** An EC2 client on it (dummy credentials, eu-west-1). */
  readonly ec2: EC2Client;
  /** Creates a VPC and a security group in it; returns the group id. */
  newSecurityGroup(name: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Whether moto_server can be started here: the machine's own, or the cached trixie chroot's
 * (moto-chroot.ts; built on first use when this runs as root with debootstrap).
 */
export async function motoAvailable(): Promise<boolean> {
  return (await motoServerCommand()) !== undefined;
}

/** Starts moto_server and waits (bounded 20 s) until it answers. */
export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "postern-moto-"));
  const command = await motoServerCommand();
  if (!command) throw new Error("moto_server is not available here (motoAvailable)");
  const [program, ...prefix] = command;
  const proc = startProcess(program!, [...prefix, "-H", "127.0.0.1", "-p", String(port)], {
    cwd: dir,
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await fetch(`${url}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (proc.exited() || Date.now() > deadline) {
      await proc.stop();
      throw new Error(`moto_server did not start: ${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const ec2 = new EC2Client({
    region: "eu-west-1",
    endpoint: url,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  });
  return {
    url,
    ec2,
    async newSecurityGroup(name) {
      const vpc = await ec2.send(new CreateVpcCommand({ CidrBlock: "10.0.0.0/16" }));
      const sg = await ec2.send(
        new CreateSecurityGroupCommand({ GroupName: name, Description: name, VpcId: vpc.Vpc!.VpcId! }),
      );
      return sg.GroupId!;
    },
    async stop() {
      ec2.destroy();
      await proc.stop();
    },
  };
}
