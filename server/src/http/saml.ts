/**
 * HTTP plumbing of SAML sign-in shared by the user and admin routes (routes/user/saml.ts,
 * routes/admin/saml.ts): the browser binding cookie, the ACS form, and the redirects.
 *
 * Browser binding: when cookies are secure (over TLS or with an https PublicURL, see
 * context.ts `secureCookies`), starting a sign-in sets `__Host-postern_saml_request` (users) or
 * `__Host-postern_admin_saml_request` (admins) (HttpOnly, Secure, SameSite=None so the IdP's
 * cross-site form post carries it, Path=/ as the prefix requires, 5 minutes) to the AuthnRequest id;
 * the ACS then requires the response to answer that request, so a response obtained in one browser
 * cannot sign in another (login CSRF), and the prefix keeps sibling hosts from planting one. Over
 * plain HTTP the cookie cannot be Secure and the binding is not enforced; the stored, one-time
 * request still is.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { SamlErrorKeySchema, Errors } from "@postern/shared";
import type { SamlErrorKey } from "@postern/shared";
import type { SamlAudience } from "../services/admin-settings.ts";
import { SamlError } from "../services/saml/errors.ts";
import type { BrowserBinding } from "../services/saml/service.ts";
import { SAML_REQUEST_TTL_MS } from "../services/saml/service.ts";
import { AppError } from "../errors.ts";
import { HOST_COOKIE_PREFIX, secureCookies } from "./context.ts";
import type { AppEnv } from "./context.ts";
import { userAddress } from "./context.ts";
import { errorResponse } from "./on-error.ts";

/** Cookies binding a pending SAML sign-in to the browser that started it, per audience. */
export const SAML_REQUEST_COOKIES: Record<SamlAudience, string> = {
  user: `${HOST_COOKIE_PREFIX}postern_saml_request`,
  admin: `${HOST_COOKIE_PREFIX}postern_admin_saml_request`,
};

/** Sets the binding cookie to `requestId` when cookies are secure (see the file comment). */
export async function bindRequestToBrowser(
  c: Context<AppEnv>,
  audience: SamlAudience,
  requestId: string,
): Promise<void> {
  if (!(await secureCookies(c))) return;
  setCookie(c, SAML_REQUEST_COOKIES[audience], requestId, {
    httpOnly: true,
    secure: true,
    sameSite: "None",
    path: "/",
    maxAge: SAML_REQUEST_TTL_MS / 1000,
  });
}

/** Reads and clears the binding cookie; the binding is required when cookies are secure. */
export async function takeBrowserBinding(c: Context<AppEnv>, audience: SamlAudience): Promise<BrowserBinding> {
  const name = SAML_REQUEST_COOKIES[audience];
  const requestId = getCookie(c, name);
  if (requestId !== undefined) deleteCookie(c, name, { path: "/", secure: true, sameSite: "None", httpOnly: true });
  return { required: await secureCookies(c), requestId };
}

/**
 * The SAMLResponse of the IdP's form post (application/x-www-form-urlencoded). Throws SamlError
 * "Bad request" for another content type, an unreadable body or a missing field.
 */
export async function readSamlResponse(c: Context<AppEnv>): Promise<string> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded"))
    throw new SamlError(Errors.badRequest.err, "ACS body is not a form post");
  let form: Record<string, unknown>;
  try {
    form = await c.req.parseBody();
  } catch {
    throw new SamlError(Errors.badRequest.err, "ACS form not readable");
  }
  const value = form["SAMLResponse"];
  if (typeof value !== "string" || value === "") throw new SamlError(Errors.badRequest.err, "SAMLResponse missing");
  return value;
}

/**
 * The key a failed step shows the browser: a SamlError's key, the Err of an AppError the contract
 * lists for SAML (accountDisabled, "Login not permitted"), otherwise "Authentication failed".
 * Rethrows nothing: unexpected errors are the caller's to log.
 */
export function samlErrorKey(err: unknown): SamlErrorKey {
  if (err instanceof SamlError) return err.key;
  if (err instanceof AppError) {
    const parsed = SamlErrorKeySchema.safeParse(err.err);
    if (parsed.success) return parsed.data;
  }
  return Errors.authenticationFailed.err;
}

/** Redirects (302, or 303 after a POST) to `page` with `?error=<key>`; the key is ours, never input. */
export function redirectWithError(
  c: Context<AppEnv>,
  page: "/" | "/admin",
  key: SamlErrorKey,
  status: 302 | 303,
): Response {
  return c.redirect(`${page}?error=${encodeURIComponent(key)}`, status);
}

/**
 * GET …/login/saml for an audience, the start users and admins share: stores an AuthnRequest from
 * the caller's address, binds it to the browser, and redirects to the IdP (302). A throttled
 * address (429, with Retry-After), a full store or SAML not configured redirect to
 * `page?error=<key>` instead; nothing is stored then.
 */
export async function startSignIn(
  c: Context<AppEnv>,
  audience: SamlAudience,
  page: "/" | "/admin",
  kiosk: boolean,
): Promise<Response> {
  try {
    const { url, requestId } = await c.get("services").saml.startLogin(audience, { kiosk, ip: c.get("clientIp") });
    await bindRequestToBrowser(c, audience, requestId);
    return c.redirect(url, 302);
  } catch (err) {
    if (err instanceof AppError && err.status === 429) {
      if (err.extra) c.header("Retry-After", err.extra);
      return redirectWithError(c, page, Errors.tooManyRequests.err, 302);
    }
    if (err instanceof SamlError) return redirectWithError(c, page, err.key, 302);
    throw err;
  }
}

/** GET …/saml/metadata for an audience: the SP metadata, or 404 "SAML not configured". */
export async function answerMetadata(c: Context<AppEnv>, audience: SamlAudience): Promise<Response> {
  try {
    const xml = await c.get("services").saml.metadata(audience);
    return c.body(xml, 200, { "content-type": "application/samlmetadata+xml; charset=utf-8" });
  } catch (err) {
    if (err instanceof SamlError) return errorResponse(c, Errors.samlNotConfigured);
    throw err;
  }
}

/**
 * POST …/saml/acs for an audience, the flow users and admins share: refuse a throttled address,
 * read the posted form, let `signIn` verify the response, issue the session and set its cookie
 * (it returns where to go), and redirect there (303). Any refusal is audited, counts against the
 * address (like a failed password), and redirects to `page?error=<key>`.
 */
export async function answerAcs(
  c: Context<AppEnv>,
  audience: SamlAudience,
  page: "/" | "/admin",
  signIn: (samlResponse: string, binding: BrowserBinding) => Promise<string>,
): Promise<Response> {
  const s = c.get("services");
  const ip = audience === "user" ? userAddress(c) : c.get("clientIp");
  const binding = await takeBrowserBinding(c, audience);
  try {
    await s.throttle.checkAddress(ip);
    let samlResponse: string;
    try {
      samlResponse = await readSamlResponse(c);
    } catch (err) {
      if (err instanceof SamlError) await s.saml.auditRefusal(audience, ip, err);
      throw err;
    }
    const page = await signIn(samlResponse, binding);
    await s.throttle.samlStartCompleted(ip);
    return c.redirect(page, 303);
  } catch (err) {
    if (!(err instanceof SamlError) && !(err instanceof AppError))
      s.log.error({ err, audience }, "SAML sign-in failed");
    if (err instanceof SamlError) await s.throttle.recordAddressFailure(ip);
    return redirectWithError(c, page, samlErrorKey(err), 303);
  }
}
