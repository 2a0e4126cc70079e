/**
 * /install (outside /api, no session): the agent one-liner's script and package
 * (packaging/README.md "The agent one-liner"; services/agent-install.ts).
 *
 * - GET /install/agent.sh: the POSIX sh install script with this server's public URL (and, for a
 *   self-signed certificate, its pins) filled in; text/x-shellscript, never cached.
 * - GET /install/postern-agent.deb: the agent package the server package ships; 404 with a plain
 *   text explanation when the server runs from source without it.
 */
import { createReadStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import { Hono } from "hono";
import type { AppEnv } from "../http/context.ts";
import { publicUrl } from "../http/public-url.ts";
import { AGENT_PACKAGE_PATH, installScript } from "../services/agent-install.ts";

/** What the 404 of /install/postern-agent.deb says. */
export const NO_AGENT_PACKAGE =
  "The agent package is not on this server: it runs from source. Install the postern-server package " +
  "(built by `npm run package`), which ships it, or install dist/postern-agent_*.deb by hand.\n";

/** The install routes; `agentPackage` is the .deb to serve (default: the one the server package ships). */
export function installRoutes(agentPackage: string = AGENT_PACKAGE_PATH) {
  return new Hono<AppEnv>()
    .get("/agent.sh", async (c) => {
      let script: string;
      try {
        script = installScript(await publicUrl(c), c.get("serverTlsPin"));
      } catch (err) {
        return c.text(`${(err as Error).message}\nSet the public URL in the admin console's settings.\n`, 400);
      }
      return c.body(script, 200, {
        "content-type": "text/x-shellscript; charset=utf-8",
        "cache-control": "no-store",
      });
    })
    .get("/postern-agent.deb", (c) => {
      let size: number;
      try {
        const st = statSync(agentPackage);
        if (!st.isFile()) throw new Error("not a file");
        size = st.size;
      } catch {
        return c.text(NO_AGENT_PACKAGE, 404);
      }
      const body = Readable.toWeb(createReadStream(agentPackage)) as ReadableStream<Uint8Array>;
      return c.body(body, 200, {
        "content-type": "application/vnd.debian.binary-package",
        "content-length": String(size),
        "content-disposition": 'attachment; filename="postern-agent.deb"',
        "cache-control": "no-cache",
      });
    });
}
