/**
 * Public system routes (docs/reference.md user-portal §7): GET /system_status {IPApi, IPApiPorts, JsBundleHash}, GET /theme.
 * IPApi points at the server's own discovery endpoint (GET /ip) unless DiscoverIPURL is set, so a
 * self-hosted install needs no outside service. IPApiPorts are the ports the browser asks IPApi on
 * (http/discovery.ts): the server's discovery listeners (POSTERN_DISCOVERY_PORTS), the spec's 443,
 * 222, 3389 and 8000 for an outside DiscoverIPURL, [] meaning "IPApi as written". With the
 * DiscoverIP setting off, IPApi is "" and the browser discovers nothing.
 */
import { Hono } from "hono";
import type { SystemStatus, Theme } from "@postern/shared";
import type { AppEnv } from "../../http/context.ts";
import { answerIpDiscovery, discoveryPortsOf, ipApiUrl, SPEC_DISCOVERY_PORTS } from "../../http/discovery.ts";
import { buildOpenApi } from "../../http/openapi/build.ts";
import { operations } from "../../http/openapi/operations.ts";
import { SERVER_VERSION } from "../../services/admin-status.ts";
import { getSetting } from "../../services/settings.ts";

let openApiDocument: Record<string, unknown> | undefined;

/** GET /system_status, GET /theme, GET /logo, GET /openapi.json and GET /ip. */
export const systemRoutes = new Hono<AppEnv>()
  // GET /system_status
  .get("/system_status", async (c) => {
    const db = c.get("services").db;
    const custom = await getSetting(db, "DiscoverIPURL");
    const ipApi = await ipApiUrl(c);
    const body: SystemStatus = {
      IPApi: ipApi,
      IPApiPorts: !ipApi ? [] : custom ? [...SPEC_DISCOVERY_PORTS] : [...discoveryPortsOf(c.get("services"))],
      JsBundleHash: c.get("services").jsBundleHash,
    };
    return c.json(body, 200);
  })
  // GET /theme
  .get("/theme", async (c) => {
    const db = c.get("services").db;
    const body: Theme = {
      Accent: (await getSetting(db, "Accent")) as Theme["Accent"],
      HighAccessibility: await getSetting(db, "HighAccessibility"),
    };
    return c.json(body, 200);
  })
  // GET /logo?mode=dark|light: the branding logo (Logo for dark mode, LightModeLogo for light).
  .get("/logo", async (c) => {
    const dataUrl = await getSetting(c.get("services").db, c.req.query("mode") === "light" ? "LightModeLogo" : "Logo");
    const m = /^data:(image\/(?:png|jpeg));base64,(.*)$/.exec(dataUrl);
    if (!m?.[1] || m[2] === undefined) return c.json({ Err: "Not found" }, 404);
    return c.body(Buffer.from(m[2], "base64"), 200, { "content-type": m[1], "cache-control": "public, max-age=600" });
  })
  // GET /openapi.json: the API's OpenAPI document, built from the shared schemas.
  .get("/openapi.json", (c) => c.json((openApiDocument ??= buildOpenApi(operations, SERVER_VERSION)), 200))
  // GET /ip: the caller's address as this server sees it (IP discovery). With a user session
  // cookie the address is recorded as observed for that session (CGNATOpen ACLs grant it).
  .get("/ip", async (c) => await answerIpDiscovery(c));
