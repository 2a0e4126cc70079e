/**
 * The API-key users' sign-in API (docs/reference.md user-portal §1 "API-key users are non-interactive"; docs/reference.md admin-console
 * §3 scope `user.auth:{userId}`, §7 "API-key users are shown an endpoint
 * {scheme}://{host}/api/v1/user_sessions"). The key comes as `Authorization: Bearer <key>` (or HTTP
 * Basic with the key as password); a refused key is 401 with `WWW-Authenticate: Bearer
 * realm="postern"`, or 403. Not a cookie route: the CSRF guard lets requests without Origin and
 * Sec-Fetch-Site through, and nothing here reads or sets cookies.
 *
 * - POST /v1/user_sessions, optional body `{UserName}` → 201 ApiKeyUserSession `{ID, Token, Ends,
 *   Status}`; the client then calls GET /api/status, POST /api/grant, POST /api/logout … with
 *   `Cookie: postern_session=<Token>` (`__Host-postern_session` when the server is on https).
 * - GET /v1/user_sessions[?UserName=] → 200 ApiSession[] (the user's live sessions).
 * - DELETE /v1/user_sessions/{id}[?UserName=] → 204 (ends the session, revokes its grants).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { ApiKeyUserSignInSchema, IdSchema, Errors } from "@postern/shared";
import type { ApiKeyUserSignIn } from "@postern/shared";
import type { AppEnv } from "../../http/context.ts";
import { userAddress } from "../../http/context.ts";
import { parseBody } from "../../http/body.ts";
import { AppError, validationError } from "../../errors.ts";
import { keyFromAuthorization } from "../../services/api-keys.ts";
import { SESSIONS_CHALLENGE } from "./sessions.ts";

/** The presented key (undefined when no Authorization header was sent). */
function presentedKey(c: Context<AppEnv>): string | undefined {
  return keyFromAuthorization(c.req.header("authorization"));
}

/** Runs `f`; a 401 gets the Bearer challenge header. */
async function challenged<T>(c: Context<AppEnv>, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof AppError && err.status === 401) c.header("WWW-Authenticate", SESSIONS_CHALLENGE);
    throw err;
  }
}

/** The optional POST body: none (or blank) is `{}`, else JSON checked by ApiKeyUserSignInSchema. */
async function signInBody(c: Context<AppEnv>): Promise<ApiKeyUserSignIn> {
  if ((await c.req.text()).trim() === "") return {};
  return parseBody(c, ApiKeyUserSignInSchema);
}

/**
 * The `UserName` query parameter of GET and DELETE, checked like the POST body's: blank is 400 "You
 * must specify a username" (Extra `UserName`), too long 400 "Bad request".
 */
function queryUserName(c: Context<AppEnv>): string | undefined {
  const raw = c.req.query("UserName");
  if (raw === undefined) return undefined;
  const parsed = ApiKeyUserSignInSchema.safeParse({ UserName: raw });
  if (parsed.success) return parsed.data.UserName;
  throw validationError(parsed.error.issues[0]);
}

/** API-key user session routes (mounted at /v1/user_sessions). */
export const apiKeyUserSessionRoutes = new Hono<AppEnv>()
  // POST /v1/user_sessions
  .post("/", async (c) => {
    const body = await signInBody(c);
    const signedIn = await challenged(
      c,
      async () => await c.get("services").apiKeyUsers.signIn(presentedKey(c), userAddress(c), body.UserName),
    );
    c.header("Cache-Control", "no-store");
    return c.json(signedIn, 201);
  })
  // GET /v1/user_sessions
  .get("/", async (c) => {
    const userName = queryUserName(c);
    return c.json(
      await challenged(c, () =>
        c.get("services").apiKeyUsers.listSessions(presentedKey(c), c.get("clientIp"), userName),
      ),
      200,
    );
  })
  // DELETE /v1/user_sessions/{id}
  .delete("/:id", async (c) => {
    const userName = queryUserName(c);
    const id = IdSchema.safeParse(c.req.param("id"));
    await challenged(c, async () => {
      // A malformed id is a session that does not exist; the key is checked first either way.
      if (!id.success) {
        await c.get("services").apiKeyUsers.authenticateUser(presentedKey(c), c.get("clientIp"), userName);
        throw new AppError(Errors.notFound, "session");
      }
      await c
        .get("services")
        .apiKeyUsers.endSession(presentedKey(c), c.get("clientIp"), id.data.toLowerCase(), userName);
    });
    return c.body(null, 204);
  });
