/**
 * Routes and guards of the admin console (docs/reference.md admin-console §2). `/admin` is admin login;
 * `/admin/otp/verify` and `/admin/otp/onboard` need no admin login; every other route needs it
 * and renders inside the console shell (sidebar, alert banner). A signed-in admin on a sign-in
 * page goes to /admin/home; an admin route without admin login goes to /admin; unknown /admin
 * paths go to /admin/home. Pages other than login are loaded on demand.
 */
import { lazy, Suspense } from "react";
import type { ComponentType, LazyExoticComponent } from "react";
import { createRootRoute, createRoute, createRouter, Outlet, redirect } from "@tanstack/react-router";
import { RouteError } from "../ui/components/RouteError.tsx";
import { Shell } from "./components/Shell.tsx";
import { queryClient } from "./queries/client.ts";
import { loadAdminSession } from "./queries/status.ts";
import { LoginPage } from "./pages/LoginPage.tsx";

/** A page loaded on demand, shown with no fallback while its chunk loads. */
function page(load: () => Promise<ComponentType>): () => React.JSX.Element {
  const Lazy: LazyExoticComponent<ComponentType> = lazy(async () => ({ default: await load() }));
  return function LazyPage() {
    return (
      <Suspense fallback={null}>
        <Lazy />
      </Suspense>
    );
  };
}

const rootRoute = createRootRoute({
  component: Outlet,
  errorComponent: ({ error }) => <RouteError error={error} />,
});

/** Sends a signed-in admin to admin home; an unreachable server leaves the page as it is. */
async function leaveWhenSignedIn(): Promise<void> {
  const session = await loadAdminSession(queryClient).catch(() => null);
  if (session !== null) throw redirect({ to: "/admin/home", replace: true });
}

/** Search parameters of admin login: an optional error key or message to show. */
export interface AdminLoginSearch {
  error?: string;
}

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/admin",
  validateSearch: (search: Record<string, unknown>): AdminLoginSearch =>
    typeof search.error === "string" && search.error !== "" ? { error: search.error } : {},
  beforeLoad: leaveWhenSignedIn,
  component: function AdminLoginRoute() {
    const { error } = loginRoute.useSearch();
    return <LoginPage key={error ?? ""} errorParam={error} />;
  },
});

const otpVerifyRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/admin/otp/verify",
  beforeLoad: leaveWhenSignedIn,
  component: page(async () => (await import("./pages/OtpPages.tsx")).OtpVerifyPage),
});

const otpOnboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/admin/otp/onboard",
  beforeLoad: leaveWhenSignedIn,
  component: page(async () => (await import("./pages/OtpPages.tsx")).OtpOnboardPage),
});

/** The console: every route below needs admin login. */
const consoleRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "console",
  beforeLoad: async () => {
    const status = await loadAdminSession(queryClient);
    if (status === null) throw redirect({ to: "/admin", replace: true });
  },
  component: Shell,
});

const consolePage = (path: string, component: () => React.JSX.Element) =>
  createRoute({ getParentRoute: () => consoleRoute, path, component });

const homeRoute = consolePage(
  "/admin/home",
  page(async () => (await import("./pages/HomePage.tsx")).HomePage),
);
const agentsRoute = consolePage(
  "/admin/agents",
  page(async () => (await import("./pages/AgentsPage.tsx")).AgentsPage),
);
/** Search parameters of the Knocs list (docs/reference.md admin-console §2): `didUpdate` after an update, `viewKnocId` to open a detail. */
export interface KnocsSearch {
  didUpdate?: boolean;
  viewKnocId?: string;
}
const knocsRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: "/admin/knocs",
  validateSearch: (search: Record<string, unknown>): KnocsSearch => ({
    ...(search.didUpdate === true || search.didUpdate === "true" ? { didUpdate: true } : {}),
    ...(typeof search.viewKnocId === "string" && search.viewKnocId !== "" ? { viewKnocId: search.viewKnocId } : {}),
  }),
  component: page(async () => (await import("./pages/knocs/KnocsPage.tsx")).KnocsPage),
});
const knocsNewRoute = consolePage(
  "/admin/knocs/new",
  page(async () => (await import("./pages/knocs/ChooserPage.tsx")).ChooserPage),
);
const wizardRoute = createRoute({
  getParentRoute: () => consoleRoute,
  path: "/admin/knocs/new/$kind",
  beforeLoad: ({ params }) => {
    if (!["linux", "application", "proxy", "script"].includes(params.kind))
      throw redirect({ to: "/admin/knocs/new", replace: true });
  },
  component: page(async () => (await import("./pages/knocs/wizards/WizardPage.tsx")).WizardPage),
});
const knocUpdateRoute = consolePage(
  "/admin/knocs/$knocId/update",
  page(async () => (await import("./pages/knocs/UpdateKnocPage.tsx")).UpdateKnocPage),
);
const backendsRoute = consolePage(
  "/admin/backends",
  page(async () => (await import("./pages/backends/BackendsPage.tsx")).BackendsPage),
);
const aclsRoute = consolePage(
  "/admin/acls",
  page(async () => (await import("./pages/acls/AclsPage.tsx")).AclsPage),
);
const groupsRoute = consolePage(
  "/admin/groups",
  page(async () => (await import("./pages/GroupsPage.tsx")).GroupsPage),
);
const usersRoute = consolePage(
  "/admin/users",
  page(async () => (await import("./pages/UsersPage.tsx")).UsersPage),
);
const adminsRoute = consolePage(
  "/admin/admins",
  page(async () => (await import("./pages/AdminsPage.tsx")).AdminsPage),
);
const logsRoute = consolePage(
  "/admin/logs",
  page(async () => (await import("./pages/LogsPage.tsx")).LogsPage),
);
const apiKeysRoute = consolePage(
  "/admin/api-keys",
  page(async () => (await import("./pages/ApiKeysPage.tsx")).ApiKeysPage),
);
const settingsRoute = consolePage(
  "/admin/settings",
  page(async () => (await import("./pages/settings/SettingsPage.tsx")).SettingsPage),
);
const approvalsRoute = consolePage(
  "/admin/approvals",
  page(async () => (await import("./pages/approvals/ApprovalsPage.tsx")).ApprovalsPage),
);
const passkeysRoute = consolePage(
  "/admin/passkeys",
  page(async () => (await import("./pages/PasskeysPage.tsx")).PasskeysPage),
);

/** Any other path (the server sends only /admin and /admin/* here) goes to admin home. */
const unknownRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "$",
  beforeLoad: () => {
    throw redirect({ to: "/admin/home", replace: true });
  },
});

const routeTree = rootRoute.addChildren([
  loginRoute,
  otpVerifyRoute,
  otpOnboardRoute,
  consoleRoute.addChildren([
    homeRoute,
    agentsRoute,
    knocsRoute,
    knocsNewRoute,
    wizardRoute,
    knocUpdateRoute,
    backendsRoute,
    aclsRoute,
    groupsRoute,
    usersRoute,
    adminsRoute,
    logsRoute,
    apiKeysRoute,
    settingsRoute,
    passkeysRoute,
    approvalsRoute,
  ]),
  unknownRoute,
]);

/** The admin console's router instance. */
export const router = createRouter({ routeTree, defaultPreload: false, scrollRestoration: true });
