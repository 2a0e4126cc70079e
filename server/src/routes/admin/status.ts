/**
 * GET /admin/status (docs/reference.md admin-console §7): counts, activity, versions, licensing.
 */
import { Hono } from "hono";
import { requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";

/** Admin status route. */
export const adminStatusRoutes = new Hono<AppEnv>()
  // GET /admin/status
  .get("/status", requireAdmin, async (c) => c.json(await c.get("services").adminStatus.status(), 200));
