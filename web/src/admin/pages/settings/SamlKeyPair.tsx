/**
 * Regenerating a SAML service provider key pair (docs/reference.md admin-console §4 "Key pair regeneration needs
 * confirmation ('Are you absolutely sure? This action cannot be undone...') with a spinner until
 * done", §7 POST /admin/settings/generate{User,Admin}SamlKeyCert, §8 "SAML key pairs generated for
 * user and admin"): the button, the confirmation, and then the new certificate to give the IdP.
 */
import { useState } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { Copyable } from "../../components/Copyable.tsx";
import { MutationConfirm } from "../../components/MutationConfirm.tsx";
import { useGenerateSamlKeyCert } from "../../queries/settings.ts";
import type { SamlAudience } from "../../queries/settings.ts";

/** The Generate key pair button of one audience and what follows it. */
export function SamlKeyPair({ audience }: { audience: SamlAudience }) {
  const { t } = useLingui();
  const generate = useGenerateSamlKeyCert();
  const [open, setOpen] = useState<{ kind: "none" } | { kind: "confirm" } | { kind: "cert"; cert: string }>({
    kind: "none",
  });
  const close = (): void => setOpen({ kind: "none" });
  return (
    <>
      <Button onClick={() => setOpen({ kind: "confirm" })}>
        {audience === "user" ? <Trans>Generate user key pair</Trans> : <Trans>Generate admin key pair</Trans>}
      </Button>
      {open.kind === "confirm" ? (
        <MutationConfirm
          title={t`Generate key pair`}
          confirmLabel={t`Generate`}
          success={audience === "user" ? t`SAML key pair generated for users` : t`SAML key pair generated for admins`}
          mutation={generate}
          variables={audience}
          onClose={close}
          onDone={(result) => setOpen({ kind: "cert", cert: result.Cert })}
        >
          <Trans>
            Are you absolutely sure? This action cannot be undone. The current key pair is replaced, and the identity
            provider must be given the new certificate before anyone can sign in with SAML again.
          </Trans>
        </MutationConfirm>
      ) : null}
      {open.kind === "cert" ? (
        <Dialog
          open
          size="lg"
          onClose={close}
          title={t`New certificate`}
          footer={
            <Button variant="primary" onClick={close}>
              <Trans>Close</Trans>
            </Button>
          }
        >
          <Trans>Give this certificate to the identity provider.</Trans>
          <Copyable id={`saml-cert-${audience}`} label={t`Certificate`} what={t`certificate`} value={open.cert} />
        </Dialog>
      ) : null}
    </>
  );
}
