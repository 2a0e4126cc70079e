/**
 * The HTTP application: `/api` with the user, admin and agent routes (one sub-app per resource),
 * security headers on every answer, CSRF protection on writes, errors mapped in one place, and the
 * web app for every other path.
 */
import { Hono } from "hono";
import { Errors } from "@postern/shared";
import type { Cidr } from "@postern/shared";
import type { Services } from "./services/index.ts";
import { baseMiddleware, csrfGuard } from "./http/context.ts";
import type { AppEnv } from "./http/context.ts";
import { errorResponse, onError } from "./http/on-error.ts";
import { staticWeb } from "./http/static-web.ts";
import { bodyLimit } from "./http/body-limit.ts";
import { securityHeaders } from "./http/security-headers.ts";
import { metricsHandler, metricsMiddleware } from "./http/metrics.ts";
import { sessionRoutes } from "./routes/user/session.ts";
import { passwordRoutes } from "./routes/user/password.ts";
import { otpRoutes } from "./routes/user/otp.ts";
import { adminOtpRoutes } from "./routes/admin/otp.ts";
import { adminPasskeyRoutes, userPasskeyRoutes } from "./routes/passkeys.ts";
import { grantRoutes } from "./routes/user/grants.ts";
import { systemRoutes } from "./routes/user/system.ts";
import { adminSessionRoutes } from "./routes/admin/session.ts";
import { samlRoutes } from "./routes/user/saml.ts";
import { adminSamlRoutes } from "./routes/admin/saml.ts";
import { agentRoutes } from "./routes/admin/agents.ts";
import { backendRoutes } from "./routes/admin/backends.ts";
import { aclRoutes } from "./routes/admin/acls.ts";
import { userRoutes } from "./routes/admin/users.ts";
import { groupRoutes } from "./routes/admin/groups.ts";
import { adminRoutes } from "./routes/admin/admins.ts";
import { adminSessionAdminRoutes, userSessionAdminRoutes } from "./routes/admin/sessions.ts";
import { settingsRoutes } from "./routes/admin/settings.ts";
import { knocRoutes } from "./routes/admin/knocs.ts";
import { adminStatusRoutes } from "./routes/admin/status.ts";
import { licenseRoutes } from "./routes/admin/license.ts";
import { logRoutes } from "./routes/admin/logs.ts";
import { agentEnrolRoutes } from "./routes/agent.ts";
import { apiKeyRoutes } from "./routes/admin/api-keys.ts";
import { webhookRoutes } from "./routes/admin/webhooks.ts";
import { approvalAdminRoutes } from "./routes/admin/approvals.ts";
import { approvalUserRoutes } from "./routes/user/approvals.ts";
import { allowlistRoutes } from "./routes/v1/allowlists.ts";
import { apiSessionRoutes } from "./routes/v1/sessions.ts";
import { apiKeyUserSessionRoutes } from "./routes/v1/user-sessions.ts";
import { installRoutes } from "./routes/install.ts";
import type { TlsPin } from "./services/agent-install.ts";

/** Largest request body the API reads, in bytes (1 MiB). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Options of the agent one-liner's routes (routes/install.ts). */
export interface InstallOptions {
  /** The pins of the server's self-signed certificate as it is now; undefined otherwise. */
  selfSignedPin?: () => TlsPin | undefined;
  /** The agent .deb served at /install/postern-agent.deb (default: the one the server package ships). */
  agentPackage?: string;
}

/**
 * Builds the Hono app over the services; `webDir` is the built web app; `trustedProxies` the
 * proxies whose X-Forwarded-For is believed; `metricsToken` lets other hosts than loopback read
 * /metrics (http/metrics.ts); `install` configures /install (routes/install.ts).
 */
export function createApp(
  services: Services,
  webDir: string,
  trustedProxies: readonly Cidr[] = [],
  metricsToken?: string,
  install: InstallOptions = {},
) {
  const api = new Hono<AppEnv>()
    .route("/", systemRoutes)
    .route("/", sessionRoutes)
    .route("/", passwordRoutes)
    .route("/", otpRoutes)
    .route("/otp/passkeys", userPasskeyRoutes)
    .route("/", samlRoutes)
    .route("/admin", adminSessionRoutes)
    .route("/admin", adminSamlRoutes)
    .route("/admin/otp/passkeys", adminPasskeyRoutes)
    .route("/admin/otp", adminOtpRoutes)
    .route("/admin/agents", agentRoutes)
    .route("/admin/backends", backendRoutes)
    .route("/admin/acls", aclRoutes)
    .route("/admin/knocs", knocRoutes)
    .route("/admin/users", userRoutes)
    .route("/admin/groups", groupRoutes)
    .route("/admin/admins", adminRoutes)
    .route("/admin/sessions", userSessionAdminRoutes)
    .route("/admin/adminsessions", adminSessionAdminRoutes)
    .route("/admin/settings/license", licenseRoutes)
    .route("/admin/settings", settingsRoutes)
    .route("/admin", adminStatusRoutes)
    .route("/admin/logs", logRoutes)
    .route("/admin/api-keys", apiKeyRoutes)
    .route("/admin/webhooks", webhookRoutes)
    .route("/admin/approvals", approvalAdminRoutes)
    .route("/approvals", approvalUserRoutes)
    .route("/v1/allowlists", allowlistRoutes)
    .route("/v1/sessions", apiSessionRoutes)
    .route("/v1/user_sessions", apiKeyUserSessionRoutes)
    .route("/agent", agentEnrolRoutes)
    .route("/", grantRoutes);

  const app = new Hono<AppEnv>();
  app.use(metricsMiddleware(services.metrics));
  app.use(securityHeaders());
  app.use(baseMiddleware(services, trustedProxies));
  app.use(async (c, next) => {
    c.set("serverTlsPin", install.selfSignedPin?.());
    await next();
  });
  app.use("/api/*", csrfGuard());
  app.use(
    "/api/*",
    bodyLimit(MAX_BODY_BYTES, (c) => errorResponse(c, Errors.bodyTooLarge, "request body too large")),
  );
  app.route("/api", api);
  app.all("/api/*", (c) => errorResponse(c, Errors.notFound));
  app.get("/metrics", metricsHandler(services.metrics, metricsToken));
  app.route("/install", installRoutes(install.agentPackage));
  app.use(staticWeb(webDir));
  app.onError(onError(services.log));
  return app;
}

/** The API's type, for typed clients. */
export type AppType = ReturnType<typeof createApp>;
