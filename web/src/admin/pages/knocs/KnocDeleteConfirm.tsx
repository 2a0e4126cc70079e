/**
 * Deleting a Knoc (docs/reference.md admin-console §2 "Knocs": "Delete removes the ACL, then its backend; if the
 * allowlist's API key has at most one scope, the admin is asked whether to delete the key too"):
 * the delete confirmation, with — for an allowlist read by an API key that reads nothing else — the
 * question whether that key goes too (unticked: a key is deleted only when asked). The server does
 * the rest in one transaction (`DELETE /api/admin/knocs/{id}?deleteApiKey=true`).
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { NONE_ID } from "@postern/shared";
import type { Knoc } from "@postern/shared";
import { CheckField } from "../../../ui/kit/FormField.tsx";
import { MutationConfirm } from "../../components/MutationConfirm.tsx";
import { apiKeyQueries } from "../../queries/api-keys.ts";
import { useDeleteKnoc } from "../../queries/knocs.ts";

/** The API key reading a Knoc's allowlist when it has at most one scope (this one), else undefined. */
function useLoneApiKey(knoc: Knoc): { ID: string; Name: string } | undefined {
  const keyId = knoc.AclConfig.allowlist?.ApiKeyId ?? NONE_ID;
  const keys = useQuery({ ...apiKeyQueries.list(), enabled: keyId !== NONE_ID });
  const key = keys.data?.find((k) => k.ID === keyId);
  return key && key.Scopes.length <= 1 ? key : undefined;
}

/** The open delete confirmation of `knoc`. */
export function KnocDeleteConfirm({ knoc, onClose }: { knoc: Knoc; onClose: () => void }) {
  const { t } = useLingui();
  const remove = useDeleteKnoc();
  const key = useLoneApiKey(knoc);
  const [deleteKey, setDeleteKey] = useState(false);
  const name = knoc.Description;
  const keyName = key?.Name ?? "";
  return (
    <MutationConfirm
      title={t`Delete Knoc`}
      confirmLabel={t`Delete`}
      success={t`Knoc deleted`}
      mutation={remove}
      variables={{ ID: knoc.ID, deleteApiKey: key !== undefined && deleteKey }}
      onClose={onClose}
    >
      <p>
        <Trans>Are you sure you want to delete {name}?</Trans>
      </p>
      {key ? (
        <div className="mt-4 space-y-2">
          <p>
            <Trans>The API key {keyName} reads only this Knoc&apos;s allowlist. Delete the key too?</Trans>
          </p>
          <CheckField
            label={t`Also delete the API key ${keyName}`}
            checked={deleteKey}
            onChange={(event) => setDeleteKey(event.target.checked)}
          />
        </div>
      ) : null}
    </MutationConfirm>
  );
}
