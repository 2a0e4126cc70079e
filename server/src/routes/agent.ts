/**
 * The agent enrolment route (design.md "Agent protocol"): POST /agent/enrol with the install token
 * and the agent's public keys. The WebSocket at /agent/connect is served by the agent hub.
 */
import { Hono } from "hono";
import { EnrolRequestSchema } from "@postern/shared";
import { parseBody } from "../http/body.ts";
import type { AppEnv } from "../http/context.ts";

/** POST /agent/enrol. */
export const agentEnrolRoutes = new Hono<AppEnv>()
  // POST /agent/enrol
  .post("/enrol", async (c) => {
    const body = await parseBody(c, EnrolRequestSchema);
    return c.json(c.var.services.agents.enrol(body, c.var.clientIp), 200);
  });
