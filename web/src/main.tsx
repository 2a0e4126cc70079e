/**
 * Entry point of the portal: i18n, theme, router, and the global 401 `err.invalidSession` redirect.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { I18nProvider } from "@lingui/react";
import { RouterProvider } from "@tanstack/react-router";
import { setInvalidSessionHandler } from "./api/client.ts";
import { forgetSession } from "./api/session.ts";
import { checkBundleHash } from "./bundle-check.ts";
import { setupI18n } from "./i18n.ts";
import { router } from "./router.tsx";
import { applyTheme } from "./theme.ts";

const i18n = setupI18n();
void applyTheme();

// user-portal §4: a 401 carrying err.invalidSession sends the user to Login.
setInvalidSessionHandler(() => {
  forgetSession();
  if (router.state.location.pathname !== "/") void router.navigate({ to: "/", replace: true });
});

router.subscribe("onResolved", () => void checkBundleHash());

const container = document.getElementById("root");
if (container === null) throw new Error("#root is missing from index.html");
createRoot(container).render(
  <StrictMode>
    <I18nProvider i18n={i18n}>
      <RouterProvider router={router} />
    </I18nProvider>
  </StrictMode>,
);
