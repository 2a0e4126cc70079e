/**
 * /admin/passkeys (issue #14 item 2; docs/decisions.md "Passkeys"): the signed-in admin's own passkeys,
 * a second factor beside TOTP — list, add (the browser's registration ceremony) and remove, on the
 * shared PasskeyManager. Another admin's passkeys go with "Reset 2FA" on the Admins page.
 */
import { useCallback } from "react";
import { useLingui } from "@lingui/react/macro";
import { PasskeyManager } from "../../ui/components/PasskeyManager.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { adminErrorText } from "../lib/errors.ts";

/** The admin's passkeys page. */
export function PasskeysPage() {
  const { t, i18n } = useLingui();
  const describe = useCallback((failure: unknown) => adminErrorText(i18n, failure), [i18n]);
  return (
    <>
      <PageHeader title={t`My passkeys`} />
      <section className="max-w-xl rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
        <PasskeyManager audience="admin" describeError={describe} />
      </section>
    </>
  );
}
