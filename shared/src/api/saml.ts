/**
 * SAML sign-in as the browser sees it (docs/reference.md user-portal §2 "An SSO button appears when SAML metadata is
 * available", §7 "GET /saml/metadata: SAML availability", "Browser redirects for SSO:
 * api/login/saml with a kioskMode query parameter"; docs/reference.md admin-console §3 "Authentication settings").
 *
 * - `GET /api/saml/metadata` (and `/api/admin/saml/metadata`) answers 200 with the service
 *   provider's metadata XML when SAML is configured for that audience, otherwise 404
 *   `{Err: "SAML not configured"}`: the login page shows the SSO button on 200.
 * - `GET /api/login/saml?kioskMode=true|false` (and `/api/admin/login/saml`) redirects (302) to the
 *   identity provider.
 * - `POST /api/saml/acs` (and `/api/admin/saml/acs`) takes the IdP's form post (`SAMLResponse`) and
 *   redirects (303) to the portal (`/home/new` or `/home`) or `/admin/home`; a failure redirects to
 *   `/?error=<key>` or `/admin?error=<key>`, the key being one of SamlErrorKey.
 */
import { Errors } from "../errors.ts";
import { z } from "zod";

/**
 * The keys a failed SAML sign-in puts in the `error` query parameter of its redirect: "SAML not
 * configured", "Authentication failed" (signature, audience, recipient, InResponseTo, time, replay,
 * account kind), "Bad request" (a malformed kioskMode or form), "Too many requests. Please try again in..."
 * (too many sign-ins pending), `accountDisabled` (users) and "Login not permitted" (admins).
 */
export const SamlErrorKeySchema = z.enum([
  Errors.samlNotConfigured.err,
  Errors.authenticationFailed.err,
  Errors.badRequest.err,
  Errors.tooManyRequests.err,
  Errors.accountDisabled.err,
  Errors.loginNotPermitted.err,
]);
/** One key of SamlErrorKeySchema. */
export type SamlErrorKey = z.infer<typeof SamlErrorKeySchema>;

/** GET /api/login/saml query: `kioskMode` "true" or "false" (absent means false). */
export const SamlLoginQuerySchema = z.object({ kioskMode: z.enum(["true", "false"]).optional() });
/** GET /api/login/saml query. */
export type SamlLoginQuery = z.infer<typeof SamlLoginQuerySchema>;
