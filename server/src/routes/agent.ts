/**
 * The agent enrolment routes (docs/reference.md design "Agent protocol"; docs/agent-protocol.md): POST /agent/enrol
 * with the one-time install token and the agent's public keys, and POST /agent/register, which
 * creates and enrols an agent in one step for an API key of scope `agent.register` (docs/reference.md admin-console §3
 * "API key" scopes, §6 "register agents"), presented as `Authorization: Bearer <key>` (or HTTP Basic
 * with the key as password) from inside the key's AllowedFrom; a refused key is 401 (with
 * `WWW-Authenticate: Bearer realm="postern"`) or 403 "Unauthorised". The WebSocket at /agent/connect
 * is served by the agent hub.
 */
import { Hono } from "hono";
import { AgentRegisterRequestSchema, ApiKeyScopeName, EnrolRequestSchema } from "@postern/shared";
import { parseBody } from "../http/body.ts";
import type { AppEnv } from "../http/context.ts";
import { AppError } from "../errors.ts";
import { keyFromAuthorization } from "../services/api-keys.ts";

/** The challenge sent with a 401 of POST /agent/register. */
const REGISTER_CHALLENGE = 'Bearer realm="postern"';

/** POST /agent/enrol and POST /agent/register. */
export const agentEnrolRoutes = new Hono<AppEnv>()
  // POST /agent/enrol
  .post("/enrol", async (c) => {
    const body = await parseBody(c, EnrolRequestSchema);
    return c.json(await c.get("services").agents.enrol(body, c.get("clientIp")), 200);
  })
  // POST /agent/register
  .post("/register", async (c) => {
    let key;
    try {
      key = await c
        .get("services")
        .apiKeys.authenticate(
          keyFromAuthorization(c.req.header("authorization")),
          c.get("clientIp"),
          ApiKeyScopeName.agentRegister,
        );
    } catch (err) {
      if (err instanceof AppError && err.status === 401) c.header("WWW-Authenticate", REGISTER_CHALLENGE);
      throw err;
    }
    const body = await parseBody(c, AgentRegisterRequestSchema);
    return c.json(await c.get("services").agents.register(body, c.get("clientIp"), key.name), 200);
  });
