/**
 * The passkey list of a signed-in account, for both apps (issue #14 item 2; docs/decisions.md
 * "Passkeys"): each passkey with its name, when it was added and last used, and a Remove button;
 * under it a name field and "Add passkey", which runs the browser's registration ceremony. The
 * portal shows it in a dialog on the dashboard, the admin console on its Passkeys page.
 */
import { useCallback, useEffect, useState } from "react";
import type { FormEvent } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { msg } from "@lingui/core/macro";
import type { Passkey } from "@postern/shared";
import { errorText } from "../api/error-messages.ts";
import { enrolPasskey, isPasskeyCancel, listPasskeys, removePasskey } from "../api/passkeys.ts";
import type { PasskeyAudience } from "../api/passkeys.ts";
import { ErrorMessage } from "./ErrorMessage.tsx";
import { Spinner } from "./Spinner.tsx";
import { SubmitButton } from "./SubmitButton.tsx";
import { TextField } from "./TextField.tsx";

/** Longest passkey name (shared PASSKEY_NAME_MAX_LENGTH; a literal to keep zod out of the bundle). */
const PASSKEY_NAME_MAX_LENGTH = 64;

/** Props: whose passkeys, and how server errors are worded (the admin console adds its own wording). */
export interface PasskeyManagerProps {
  audience: PasskeyAudience;
  describeError?: (failure: unknown) => string;
}

/** The list, the add form and the remove buttons. */
export function PasskeyManager({ audience, describeError }: PasskeyManagerProps) {
  const { t, i18n } = useLingui();
  const describe = useCallback(
    (failure: unknown) =>
      isPasskeyCancel(failure)
        ? i18n._(msg`The passkey prompt was cancelled or timed out.`)
        : (describeError ?? ((f: unknown) => errorText(i18n, f)))(failure),
    [describeError, i18n],
  );
  const [passkeys, setPasskeys] = useState<Passkey[] | undefined>(undefined);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string | undefined>(undefined);

  const reload = useCallback(async () => {
    try {
      setPasskeys(await listPasskeys(audience));
    } catch (failure) {
      setError(describe(failure));
      setPasskeys([]);
    }
  }, [audience, describe]);
  useEffect(() => {
    void reload();
  }, [reload]);

  async function add(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed === "") {
      setNameError(t`Name is required`);
      return;
    }
    setNameError(undefined);
    setError(undefined);
    setAdding(true);
    try {
      await enrolPasskey(audience, trimmed);
      setName("");
      await reload();
    } catch (failure) {
      setError(describe(failure));
    }
    setAdding(false);
  }

  async function remove(passkey: Passkey): Promise<void> {
    setError(undefined);
    setRemoving(passkey.ID);
    try {
      await removePasskey(audience, passkey.ID);
      await reload();
    } catch (failure) {
      setError(describe(failure));
    }
    setRemoving(undefined);
  }

  const date = (iso: string) => i18n.date(new Date(iso), { dateStyle: "medium", timeStyle: "short" });

  return (
    <div className="space-y-6">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        <Trans>
          A passkey on this device or a security key can confirm your sign-in instead of a code from an authenticator
          app.
        </Trans>
      </p>
      {passkeys === undefined ? (
        <div className="flex justify-center py-4" aria-busy="true">
          <Spinner />
        </div>
      ) : passkeys.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          <Trans>No passkeys yet.</Trans>
        </p>
      ) : (
        <ul aria-label={t`Your passkeys`} className="divide-y divide-slate-200 dark:divide-slate-800">
          {passkeys.map((p) => {
            const added = date(p.Created);
            const lastUsed = p.LastUsed === null ? null : date(p.LastUsed);
            const passkeyName = p.Name;
            return (
              <li key={p.ID} className="flex items-center justify-between gap-4 py-3">
                <div className="min-w-0">
                  <p className="truncate font-medium text-slate-900 dark:text-white">{p.Name}</p>
                  <p className="text-xs text-slate-600 dark:text-slate-400">
                    <Trans>Added {added}</Trans>
                    {" · "}
                    {lastUsed === null ? <Trans>Never used</Trans> : <Trans>Last used {lastUsed}</Trans>}
                  </p>
                </div>
                <button
                  type="button"
                  onClick={() => void remove(p)}
                  disabled={removing !== undefined}
                  aria-label={t`Remove passkey ${passkeyName}`}
                  className="rounded-md px-2.5 py-1.5 text-sm font-semibold text-red-700 ring-1 ring-inset ring-red-200 hover:bg-red-50 disabled:opacity-60 dark:text-red-300 dark:ring-red-900 dark:hover:bg-red-950"
                >
                  <Trans>Remove</Trans>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <ErrorMessage message={error} />
      <form className="space-y-4" onSubmit={(event) => void add(event)} noValidate autoComplete="off">
        <TextField
          label={<Trans>Passkey name</Trans>}
          name="passkeyName"
          type="text"
          maxLength={PASSKEY_NAME_MAX_LENGTH}
          value={name}
          onChange={setName}
          error={nameError}
        />
        <SubmitButton submitting={adding}>
          <Trans>Add passkey</Trans>
        </SubmitButton>
      </form>
    </div>
  );
}
