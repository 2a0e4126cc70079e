/**
 * Code-based routes (docs/reference.md user-portal §2): `/` Login, `/otp/verify` TwoFactor, `/otp/onboard`
 * TwoFactorOnboard, `/home` Home (older view), `/home/new` NewUserDashboard; any other path
 * redirects to Login. Guards: a signed-in user on Login (or on a two-factor page) goes to /home/new
 * when NewUserDashboard is set, else /home; /home* without a session goes to Login. The
 * two-factor pages and the older Home are loaded on demand (their own chunks).
 * `/?referrer=<url>` (issue #14 item 3): the referrer is stored in this tab's sessionStorage
 * (state/referrer.ts) and taken out of the address bar, then the home pages follow it (useReferrer).
 */
import { lazy, Suspense } from "react";
import { createRootRoute, createRoute, createRouter, Outlet, redirect } from "@tanstack/react-router";
import type { SessionStatus } from "@postern/shared";
import { homePathFor, loadSession } from "./api/session.ts";
import { DashboardPage } from "./routes/DashboardPage.tsx";
import { LoginPage } from "./routes/LoginPage.tsx";
import { RouteError } from "../ui/components/RouteError.tsx";
import { stashReferrer } from "./state/referrer.ts";

const TwoFactorPage = lazy(async () => ({ default: (await import("./routes/TwoFactorPage.tsx")).TwoFactorPage }));
const TwoFactorOnboardPage = lazy(async () => ({
  default: (await import("./routes/TwoFactorOnboardPage.tsx")).TwoFactorOnboardPage,
}));
const HomePage = lazy(async () => ({ default: (await import("./routes/HomePage.tsx")).HomePage }));

/**
 * Search parameters of the Login route: an optional error key or message to show, and the page to
 * return to after sign-in (`referrer`, stored and removed from the URL by the route's guard).
 */
export interface LoginSearch {
  error?: string;
  referrer?: string;
}

const rootRoute = createRootRoute({
  component: Outlet,
  errorComponent: ({ error }) => <RouteError error={error} />,
});

/** Sends a signed-in user home; a server that cannot be reached leaves the page as it is. */
async function leaveWhenSignedIn(): Promise<void> {
  const session = await loadSession().catch(() => null);
  if (session !== null) throw redirect({ to: homePathFor(session) });
}

const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  validateSearch: (search: Record<string, unknown>): LoginSearch => ({
    ...(typeof search.error === "string" && search.error !== "" ? { error: search.error } : {}),
    ...(typeof search.referrer === "string" && search.referrer !== "" ? { referrer: search.referrer } : {}),
  }),
  beforeLoad: async ({ search }) => {
    if (search.referrer !== undefined) stashReferrer(search.referrer);
    await leaveWhenSignedIn();
    // Out of the address bar: the URL never carries it further (Referer headers, history, screenshots).
    if (search.referrer !== undefined)
      throw redirect({ to: "/", search: search.error === undefined ? {} : { error: search.error }, replace: true });
  },
  component: function LoginRoute() {
    const { error } = loginRoute.useSearch();
    return <LoginPage key={error ?? ""} errorParam={error} />;
  },
});

const otpVerifyRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/otp/verify",
  beforeLoad: leaveWhenSignedIn,
  component: () => (
    <Suspense fallback={null}>
      <TwoFactorPage />
    </Suspense>
  ),
});

const otpOnboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/otp/onboard",
  beforeLoad: leaveWhenSignedIn,
  component: () => (
    <Suspense fallback={null}>
      <TwoFactorOnboardPage />
    </Suspense>
  ),
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

const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/home",
  beforeLoad: requireSession,
  component: function HomeRoute() {
    const { session } = homeRoute.useRouteContext();
    return (
      <Suspense fallback={null}>
        <HomePage initialStatus={session} />
      </Suspense>
    );
  },
});

const unknownRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "$",
  beforeLoad: () => {
    throw redirect({ to: "/", replace: true });
  },
});

const routeTree = rootRoute.addChildren([
  loginRoute,
  otpVerifyRoute,
  otpOnboardRoute,
  homeNewRoute,
  homeRoute,
  unknownRoute,
]);

/** The portal's router instance. */
export const router = createRouter({ routeTree, defaultPreload: false, scrollRestoration: true });
