import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CommandResult, InteractiveProcess } from "../../process/runner.ts";
import { IpsetShell } from "./shell.ts";

/**
 * A stand-in for `ipset -exist -` at the process boundary: it reads lines, answers a sentinel
 * `create NAME hash:X` the way ipset does ("typename 'hash:X' is unknown" on stderr), reports
 * `add missing ...` as ipset reports a missing set, stays silent on `hang`, and exits on `die`.
 */
function fakeIpset(): { proc: InteractiveProcess; lines: string[]; killed: () => boolean } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const lines: string[] = [];
  let exit: () => void = () => undefined;
  let killed = false;
  const exited = new Promise<void>((resolve) => (exit = resolve));
  let buffer = "";
  let dead = false;
  stdin.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl;
    while (!dead && (nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      const sentinel = /^create \S+ (hash:\S+)$/.exec(line);
      if (sentinel) stderr.write(`ipset v7.17: Syntax error: typename '${sentinel[1]}' is unknown\n`);
      else if (line.startsWith("add missing"))
        stderr.write("ipset v7.17: The set with the given name does not exist\n");
      else if (line === "die") {
        dead = true;
        exit();
      }
      stdout.write("ipset> ");
    }
  });
  return {
    proc: {
      pid: 4242,
      stdin,
      stdout,
      stderr,
      exited,
      kill: () => {
        killed = true;
        exit();
      },
    },
    lines,
    killed: () => killed,
  };
}

function shellOver(fakes: ReturnType<typeof fakeIpset>[], timeoutMs = 200): IpsetShell {
  let next = 0;
  return new IpsetShell(
    {
      run: (): Promise<CommandResult> => Promise.reject(new Error("not used")),
      spawn: () => fakes[next++]!.proc,
    },
    false,
    timeoutMs,
  );
}

describe("IpsetShell", () => {
  it("writes a batch and its sentinel to one process and answers true when only the sentinel complained", async () => {
    const fake = fakeIpset();
    const shell = shellOver([fake]);
    expect(await shell.apply(["add s 10.0.0.1 timeout 60", "del s 10.0.0.2"])).toBe(true);
    expect(await shell.apply(["add s 10.0.0.3"])).toBe(true);
    expect(fake.lines).toEqual([
      "add s 10.0.0.1 timeout 60",
      "del s 10.0.0.2",
      "create postern-sentinel hash:pstn1",
      "add s 10.0.0.3",
      "create postern-sentinel hash:pstn2",
    ]);
    await shell.close();
    expect(fake.killed()).toBe(true);
  });

  it("answers false when a line failed, and carries on with the same process", async () => {
    const fake = fakeIpset();
    const shell = shellOver([fake]);
    expect(await shell.apply(["add missing 10.0.0.1", "add s 10.0.0.2"])).toBe(false);
    expect(await shell.apply(["add s 10.0.0.3"])).toBe(true);
    expect(fake.killed()).toBe(false);
  });

  it("answers false and stops a process that does not answer in time; the next batch starts another", async () => {
    const silent = fakeIpset();
    silent.proc.stdin.removeAllListeners("data");
    const healthy = fakeIpset();
    const shell = shellOver([silent, healthy], 50);
    expect(await shell.apply(["add s 10.0.0.1"])).toBe(false);
    expect(silent.killed()).toBe(true);
    expect(await shell.apply(["add s 10.0.0.1"])).toBe(true);
    expect(healthy.lines).toEqual(["add s 10.0.0.1", "create postern-sentinel hash:pstn2"]);
  });

  it("answers false when the process exits mid-batch", async () => {
    const dying = fakeIpset();
    const next = fakeIpset();
    const shell = shellOver([dying, next]);
    expect(await shell.apply(["die"])).toBe(false);
    expect(await shell.apply(["add s 10.0.0.9"])).toBe(true);
    expect(await shell.apply([])).toBe(true);
  });
});
