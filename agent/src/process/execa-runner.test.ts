import { describe, expect, it } from "vitest";
import { CommandStartError, EXIT_CANCELLED, EXIT_TIMED_OUT, ExecaRunner } from "./execa-runner.ts";

const runner = new ExecaRunner({ killGraceMs: 500 });
const node = process.execPath;

describe("ExecaRunner", () => {
  it("passes arguments verbatim (no shell), writes input to stdin and returns exit code and output", async () => {
    const script =
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{process.stdout.write(process.argv[1]+'|'+s);process.stderr.write('e');process.exit(3)})";
    const r = await runner.run(node, ["-e", script, "$(echo hi); `x` *"], { input: "line\n" });
    expect(r).toEqual({ exitCode: 3, stdout: "$(echo hi); `x` *|line\n", stderr: "e" });
  });

  it("adds env to the inherited environment", async () => {
    const r = await runner.run(
      node,
      ["-e", "process.stdout.write(process.env.KNOC_X + ':' + (process.env.PATH ? 'path' : 'nopath'))"],
      { env: { KNOC_X: "1" } },
    );
    expect(r.stdout).toBe("1:path");
  });

  it("does not leave a command waiting on stdin when there is no input", async () => {
    const r = await runner.run(
      node,
      ["-e", "process.stdin.resume();process.stdin.on('end',()=>process.stdout.write('eof'))"],
      { timeoutMs: 5_000 },
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: "eof" });
  });

  it("kills a command that exceeds timeoutMs and reports exit 124", async () => {
    const started = Date.now();
    const r = await runner.run(node, ["-e", "setTimeout(()=>{}, 60000)"], { timeoutMs: 200 });
    expect(r.exitCode).toBe(EXIT_TIMED_OUT);
    expect(r.stderr).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("kills a command when its signal is aborted and reports exit 130", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await runner.run(node, ["-e", "setTimeout(()=>{}, 60000)"], { signal: controller.signal });
    expect(r.exitCode).toBe(EXIT_CANCELLED);
  });

  it("throws CommandStartError (ENOENT) for a missing executable", async () => {
    const e: unknown = await runner.run("postern-no-such-command", []).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CommandStartError);
    expect((e as CommandStartError).code).toBe("ENOENT");
  });
});

describe("ExecaRunner with processGroup", () => {
  it("stops the command and the children it started at the timeout", async () => {
    const started = Date.now();
    const r = await runner.run("/bin/sh", ["-c", "sleep 30; echo never"], { timeoutMs: 200, processGroup: true });
    expect(r.exitCode).toBe(EXIT_TIMED_OUT);
    expect(r.stderr).toMatch(/timed out after 200 ms/);
    expect(r.stdout).toBe("");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("returns the exit code and output of a command that ends in time", async () => {
    const r = await runner.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 5"], { processGroup: true });
    expect(r).toEqual({ exitCode: 5, stdout: "out\n", stderr: "err\n" });
  });
});
