/**
 * The first run of `scripts/start.sh` shows the whole loop (issue #11 item 8): through the running
 * server's admin API it installs the free licence and creates demo Knocs assigned to the demo user,
 * so that signing in as demo grants something real:
 *
 * - "Demo allowlist", a passive Application Knoc that needs no root: its allowlist URL and one-time
 *   API key are printed (the key is never shown again);
 * - with `--linux` (start.sh passes it when run as root and the ipset set exists): "Demo ipset", a
 *   Linux Knoc on the local agent's ipset set `postern-demo`.
 *
 * usage: node scripts/lib/first-run-demo.ts --server URL --admin NAME [--linux]   (admin password on stdin)
 * Prints the lines for the first-run text on stdout; exits 1 with the server's answer when a call fails.
 */
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    server: { type: "string" },
    admin: { type: "string" },
    linux: { type: "boolean", default: false },
  },
});
const server = values.server ?? "";
const adminName = values.admin ?? "";
if (!server || !adminName) {
  process.stderr.write("usage: first-run-demo.ts --server URL --admin NAME [--linux] < password\n");
  process.exit(2);
}

let cookie = "";
/** One admin API call; throws with the method, path, status and body when it is not 2xx. */
async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(server + path, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...(cookie ? { cookie } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const setCookie = res.headers.get("set-cookie");
  if (setCookie) cookie = setCookie.split(";")[0] ?? "";
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

const options = (description: string) => ({
  Description: description,
  Category: "Demo",
  ClickToGrant: true,
  MaximumGrantDuration: 3600,
});

try {
  await call("POST", "/api/admin/login", { UserName: adminName, Password: await readPassword() });
  await call("POST", "/api/admin/settings/license", { License: "free" });
  const users = await call<{ ID: string; UserName: string }[]>("GET", "/api/admin/users");
  const demo = users.find((u) => u.UserName === "demo");
  if (!demo) throw new Error("the demo user does not exist");
  const [, key, url] = await call<string[]>("POST", "/api/admin/knocs", {
    Kind: "APPLICATION",
    WizardState: {
      userIds: [demo.ID],
      form: { Name: "demo-allowlist", Config: { allowlist: {} } },
      knocOptionsForm: options("Demo allowlist"),
      apiKeyOption: "new",
      apiKeyForm: { Name: "demo-allowlist" },
    },
  });
  const lines = [
    `Demo Knocs for demo (free licence installed):`,
    `  Demo allowlist: after demo grants it, the address is in`,
    `    curl -u "key:${key}" ${url}`,
    `    (the API key is shown only now)`,
  ];
  if (values.linux) {
    const agents = await call<{ ID: string; Name: string }[]>("GET", "/api/admin/agents");
    const local = agents.find((a) => a.Name === "local");
    if (!local) throw new Error("the local agent does not exist");
    await call("POST", "/api/admin/knocs", {
      Kind: "LINUX",
      WizardState: {
        agentId: local.ID,
        userIds: [demo.ID],
        form: { Name: "demo-ipset", Config: { ipset: {} }, AclConfig: { ipset: { V4SetName: "postern-demo" } } },
        knocOptionsForm: options("Demo ipset"),
      },
    });
    lines.push(`  Demo ipset: after demo grants it, the address is in  ipset list postern-demo`);
  }
  await call("POST", "/api/admin/logout");
  process.stdout.write(lines.join("\n") + "\n");
} catch (err) {
  process.stderr.write(`postern: the demo Knocs could not be created: ${(err as Error).message}\n`);
  process.exit(1);
}
