/**
 * The vendor SDKs are loaded only by an agent that uses them (issue #13 item 4, issue #10 item 10):
 * importing the driver registry (what every agent does) resolves no module of the AWS or Azure SDK;
 * the drivers load them on their first call. Checked in a fresh Node process with a resolve hook.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

/** How many modules whose URL contains `fragment` a fresh Node process resolves when importing `module`. */
async function modulesLoadedBy(module: string, fragment: string): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), "postern-lazy-"));
  try {
    const probe = join(dir, "probe.mjs");
    await writeFile(
      probe,
      `import { registerHooks } from "node:module";
let n = 0;
registerHooks({ resolve(s, c, next) { const r = next(s, c); if (r.url.includes(process.argv[3])) n++; return r; } });
await import(process.argv[2]);
console.log(n);
`,
    );
    const r = await execa(process.execPath, [probe, module, fragment], { timeout: 30_000 });
    return Number(r.stdout.trim());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const at = (p: string) => fileURLToPath(new URL(p, import.meta.url));

describe("vendor SDK loading", () => {
  it("the agent's driver registry loads neither the AWS nor the Azure SDK", async () => {
    expect(await modulesLoadedBy(at("../../agent/src/backends/registry.ts"), "/@aws-sdk/")).toBe(0);
    expect(await modulesLoadedBy(at("../../agent/src/backends/registry.ts"), "/@azure/")).toBe(0);
  });

  it("the probe sees an SDK where one is imported (the check can fail)", async () => {
    expect(await modulesLoadedBy(at("../../agent/src/backends/azure/transport.ts"), "/@azure/")).toBeGreaterThan(0);
    expect(await modulesLoadedBy(at("../support/moto.ts"), "/@aws-sdk/")).toBeGreaterThan(0);
  });
});
