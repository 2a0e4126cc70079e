/**
 * Entry point of the admin console (docs/reference.md admin-console §2): colour mode, theme, i18n, TanStack Query,
 * the router, and the global 401 `err.invalidSession` redirect to admin login (§8). After every
 * navigation: the stale-bundle check (GET /system_status) and the theme once its 600 s lifetime
 * has passed.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nProvider } from "@lingui/react";
import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { setInvalidSessionHandler } from "../ui/api/client.ts";
import { checkBundleHash } from "../ui/bundle-check.ts";
import { setupI18n } from "../ui/i18n.ts";
import { applyTheme, followColorMode } from "../ui/theme.ts";
import { adminCatalog } from "./catalog.ts";
import { queryClient } from "./queries/client.ts";
import { router } from "./router.tsx";

followColorMode();
void applyTheme();
const i18n = await setupI18n(adminCatalog);

// docs/reference.md admin-console §8: a 401 with err.invalidSession sends an admin to admin login.
setInvalidSessionHandler(() => {
  queryClient.clear();
  if (router.state.location.pathname !== "/admin") void router.navigate({ to: "/admin", replace: true });
});

router.subscribe("onResolved", () => {
  void checkBundleHash();
  void applyTheme();
});

const container = document.getElementById("root");
if (container === null) throw new Error("#root is missing from admin.html");
createRoot(container).render(
  <StrictMode>
    <I18nProvider i18n={i18n}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
