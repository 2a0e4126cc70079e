/**
 * The two decisions of an approval request, shared by the admin console (/admin/approvals) and the portal's list
 * for group approvers (issue #14 item 1; docs/decisions.md "Approval requests"): Approve, with an optional grant
 * length in MINUTES (empty: the Knoc's own; validated by ApproveRequestSchema), and Deny, with the reason the user
 * is shown (required; DenyRequestSchema). Both name the user, the Knoc and the address. What a decision does is
 * the caller's (`onApprove`/`onDeny`): the admin console runs its mutation with toasts and the error dialog; the
 * portal calls the API and passes the server's refusal back as `error`, shown in the dialog, which stays open.
 */
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApproveRequestSchema, DenyRequestSchema } from "@postern/shared";
import type { Approval, ApproveRequest, DenyRequest } from "@postern/shared";
import type { z } from "zod";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { fieldErrorText } from "./field-error.ts";
import type { FieldErrorLike } from "./field-error.ts";
import { FormDialog } from "./FormDialog.tsx";
import { FormField } from "./FormField.tsx";

/** Props common to both decisions. */
export interface DecisionDialogProps {
  approval: Approval;
  /** The decision is being sent (the button spins). */
  busy: boolean;
  /** The server's refusal of the last attempt, shown above the buttons (the admin console shows its own dialog). */
  error?: string | undefined;
  onClose: () => void;
  /** The field error's text; default: the kit's fieldErrorText (the admin console passes its own wording). */
  fieldError?: (error: FieldErrorLike | undefined) => string | undefined;
}

/** Who asked for what, above the fields. */
function Subject({ approval }: { approval: Approval }) {
  return (
    <p className="text-sm text-slate-700 dark:text-slate-300">
      <Trans>
        {approval.UserName} asks for {approval.ACL} from {approval.IPAddress}.
      </Trans>
      {approval.Reason ? (
        <>
          {" "}
          <Trans>Reason: {approval.Reason}</Trans>
        </>
      ) : null}
    </p>
  );
}

/** Approve: `onApprove` applies the grant at once, optionally for `Minutes` only. */
export function ApproveDialog({
  approval,
  busy,
  error,
  onClose,
  fieldError,
  onApprove,
}: DecisionDialogProps & { onApprove: (values: ApproveRequest) => void }) {
  const { t, i18n } = useLingui();
  const form = useForm<z.input<typeof ApproveRequestSchema>, unknown, ApproveRequest>({
    resolver: zodResolver(ApproveRequestSchema),
    defaultValues: { Minutes: null },
  });
  const text = fieldError ?? ((e: FieldErrorLike | undefined) => fieldErrorText(i18n, e));
  return (
    <FormDialog
      title={t`Approve request`}
      editing={false}
      submitLabel={t`Approve`}
      busy={busy}
      onClose={onClose}
      onSubmit={form.handleSubmit(onApprove)}
    >
      <Subject approval={approval} />
      <FormField
        label={t`Grant length in minutes (optional)`}
        hint={t`Empty: as long as the Knoc allows.`}
        type="number"
        inputMode="numeric"
        min={1}
        error={text(form.formState.errors.Minutes)}
        {...form.register("Minutes", { setValueAs: (v: unknown) => (v === "" || v === null ? null : Number(v)) })}
      />
      <ErrorMessage message={error} />
    </FormDialog>
  );
}

/** Deny: `onDeny` ends the request with the reason the user is shown. */
export function DenyDialog({
  approval,
  busy,
  error,
  onClose,
  fieldError,
  onDeny,
}: DecisionDialogProps & { onDeny: (values: DenyRequest) => void }) {
  const { t, i18n } = useLingui();
  const form = useForm<z.input<typeof DenyRequestSchema>, unknown, DenyRequest>({
    resolver: zodResolver(DenyRequestSchema),
    defaultValues: { Reason: "" },
  });
  const text = fieldError ?? ((e: FieldErrorLike | undefined) => fieldErrorText(i18n, e));
  return (
    <FormDialog
      title={t`Deny request`}
      editing={false}
      submitLabel={t`Deny`}
      busy={busy}
      onClose={onClose}
      onSubmit={form.handleSubmit(onDeny)}
    >
      <Subject approval={approval} />
      <FormField
        label={t`Reason shown to the user`}
        required
        autoFocus
        error={text(form.formState.errors.Reason)}
        {...form.register("Reason")}
      />
      <ErrorMessage message={error} />
    </FormDialog>
  );
}
