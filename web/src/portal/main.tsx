/**
 * Entry point of the portal: colour mode, theme, i18n, router, and the global 401
 * `err.invalidSession` redirect. After every navigation: the stale-bundle check (GET
 * /system_status, docs/reference.md user-portal §2) and the theme, re-fetched once its 600 s lifetime has passed.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nProvider } from "@lingui/react";
import { RouterProvider } from "@tanstack/react-router";
import { setInvalidSessionHandler } from "../ui/api/client.ts";
import { forgetSession } from "./api/session.ts";
import { checkBundleHash } from "../ui/bundle-check.ts";
import { setupI18n } from "../ui/i18n.ts";
import { portalCatalog } from "./catalog.ts";
import { router } from "./router.tsx";
import { applyTheme, followColorMode } from "../ui/theme.ts";

followColorMode();
void applyTheme();
const i18n = await setupI18n(portalCatalog);

// docs/reference.md user-portal §4: a 401 carrying err.invalidSession sends the user to Login.
setInvalidSessionHandler(() => {
  forgetSession();
  if (router.state.location.pathname !== "/") void router.navigate({ to: "/", replace: true });
});

router.subscribe("onResolved", () => {
  void checkBundleHash();
  void applyTheme();
});

const container = document.getElementById("root");
if (container === null) throw new Error("#root is missing from index.html");
createRoot(container).render(
  <StrictMode>
    <I18nProvider i18n={i18n}>
      <RouterProvider router={router} />
    </I18nProvider>
  </StrictMode>,
);
