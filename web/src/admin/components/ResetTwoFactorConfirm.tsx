/**
 * The Reset 2FA confirmation of the users and the admins pages (docs/reference.md admin-console §2 "Reset 2FA";
 * docs/decisions.md "Passkeys"): resetting an account's second factor removes its TOTP secret and every passkey.
 */
import type { UseMutationResult } from "@tanstack/react-query";
import { Plural, Trans, useLingui } from "@lingui/react/macro";
import type { User } from "@postern/shared";
import { MutationConfirm } from "./MutationConfirm.tsx";

/** What the confirmation reads of a user or an admin (both answer these fields). */
export type TwoFactorAccount = Pick<User, "ID" | "Name" | "TOTPEnabled" | "Passkeys">;

/** Props of ResetTwoFactorConfirm: the account, the reset write (run with the account's ID), the closer. */
export interface ResetTwoFactorConfirmProps<R> {
  account: TwoFactorAccount;
  mutation: UseMutationResult<R, Error, string>;
  onClose: () => void;
}

/**
 * The open confirmation (render it only while it should show): names how many passkeys go, and whether the
 * account enrols TOTP again at the next sign-in (TOTPEnabled) or signs in with the password alone until it adds a
 * passkey. Confirming runs `mutation` with `account.ID`, toasts "Two-factor authentication reset" and closes.
 */
export function ResetTwoFactorConfirm<R>({ account, mutation, onClose }: ResetTwoFactorConfirmProps<R>) {
  const { t } = useLingui();
  const name = account.Name;
  const passkeys = account.Passkeys;
  return (
    <MutationConfirm
      title={t`Reset 2FA`}
      confirmLabel={t`Reset 2FA`}
      success={t`Two-factor authentication reset`}
      mutation={mutation}
      variables={account.ID}
      onClose={onClose}
    >
      {passkeys > 0 ? (
        <p>
          <Plural value={passkeys} one="Their passkey is removed." other="Their # passkeys are removed." />
        </p>
      ) : null}
      <p>
        {account.TOTPEnabled ? (
          <Trans>{name} will set up two-factor authentication again at the next sign-in.</Trans>
        ) : (
          <Trans>{name} signs in with the password alone until they add a passkey again.</Trans>
        )}
      </p>
    </MutationConfirm>
  );
}
