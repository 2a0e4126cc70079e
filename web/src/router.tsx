/**
 * Code-based routes (user-portal §2): `/` Login, `/home/new` NewUserDashboard, `/home` (the same
 * dashboard for now); any other path redirects to Login. Guards: a signed-in user on Login goes to
 * /home/new when NewUserDashboard is set, else /home; /home* without a session goes to Login.
 */
import { createRootRoute, createRoute, createRouter, Outlet, redirect } from "@tanstack/react-router";
import type { SessionStatus } from "@postern/shared";
import { homePathFor, loadSession } from "./api/session.ts";
import { DashboardPage } from "./routes/DashboardPage.tsx";
import { LoginPage } from "./routes/LoginPage.tsx";
import { RouteError } from "./routes/RouteError.tsx";

/** Search parameters of the Login route: an optional error key or message to show. */
export interface LoginSearch {
  error?: string;
}

const rootRoute = createRootRoute({
  component: Outlet,
  errorComponent: ({ error }) => <RouteError error={error} />,
});

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  validateSearch: (search: Record<string, unknown>): LoginSearch =>
    typeof search.error === "string" && search.error !== "" ? { error: search.error } : {},
  beforeLoad: async () => {
    // A server that cannot be reached shows the Login page rather than an error page.
    const session = await loadSession().catch(() => null);
    if (session !== null) throw redirect({ to: homePathFor(session) });
  },
  component: function LoginRoute() {
    const { error } = loginRoute.useSearch();
    return <LoginPage key={error ?? ""} errorParam={error} />;
  },
});

/** Guard of the user routes: the session status, or a redirect to Login. */
async function requireSession(): Promise<{ session: SessionStatus }> {
  const session = await loadSession();
  if (session === null) throw redirect({ to: "/" });
  return { session };
}

const homeNewRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/home/new",
  beforeLoad: requireSession,
  component: function HomeNewRoute() {
    const { session } = homeNewRoute.useRouteContext();
    return <DashboardPage initialStatus={session} />;
  },
});

// The older Home view (table) is not built yet; /home shows the card dashboard meanwhile.
const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/home",
  beforeLoad: requireSession,
  component: function HomeRoute() {
    const { session } = homeRoute.useRouteContext();
    return <DashboardPage initialStatus={session} />;
  },
});

const unknownRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "$",
  beforeLoad: () => {
    throw redirect({ to: "/", replace: true });
  },
});

const routeTree = rootRoute.addChildren([loginRoute, homeNewRoute, homeRoute, unknownRoute]);

/** The portal's router instance. */
export const router = createRouter({ routeTree, defaultPreload: false, scrollRestoration: true });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
