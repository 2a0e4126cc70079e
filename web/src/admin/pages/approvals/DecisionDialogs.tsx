/**
 * The two decisions of an approval request (issue #14 item 1): Approve, with an optional grant length in
 * MINUTES (empty: the Knoc's own; validated by ApproveRequestSchema), and Deny, with the reason the user is
 * shown (required; DenyRequestSchema). Both name the user and the Knoc; the server's refusal opens the error
 * dialog and leaves the form open.
 */
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApproveRequestSchema, DenyRequestSchema } from "@postern/shared";
import type { Approval, ApproveRequest, DenyRequest } from "@postern/shared";
import type { z } from "zod";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { FormDialog } from "../../components/FormDialog.tsx";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { useApprove, useDeny } from "../../queries/approvals.ts";

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

/** Approve: applies the grant at once, optionally for `Minutes` only. */
export function ApproveDialog({ approval, onClose }: { approval: Approval; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const approve = useApprove();
  const form = useForm<z.input<typeof ApproveRequestSchema>, unknown, ApproveRequest>({
    resolver: zodResolver(ApproveRequestSchema),
    defaultValues: { Minutes: null },
  });
  const submit = form.handleSubmit((values) =>
    approve.mutate({ ...values, ID: approval.ID }, feedback(t`Request approved`, onClose)),
  );
  return (
    <FormDialog
      title={t`Approve request`}
      editing={false}
      submitLabel={t`Approve`}
      busy={approve.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <Subject approval={approval} />
      <FormField
        label={t`Grant length in minutes (optional)`}
        hint={t`Empty: as long as the Knoc allows.`}
        type="number"
        inputMode="numeric"
        min={1}
        error={fieldErrorText(i18n, form.formState.errors.Minutes)}
        {...form.register("Minutes", { setValueAs: (v: unknown) => (v === "" || v === null ? null : Number(v)) })}
      />
    </FormDialog>
  );
}

/** Deny: ends the request with the reason the user is shown. */
export function DenyDialog({ approval, onClose }: { approval: Approval; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const deny = useDeny();
  const form = useForm<z.input<typeof DenyRequestSchema>, unknown, DenyRequest>({
    resolver: zodResolver(DenyRequestSchema),
    defaultValues: { Reason: "" },
  });
  const submit = form.handleSubmit((values) =>
    deny.mutate({ ...values, ID: approval.ID }, feedback(t`Request denied`, onClose)),
  );
  return (
    <FormDialog
      title={t`Deny request`}
      editing={false}
      submitLabel={t`Deny`}
      busy={deny.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <Subject approval={approval} />
      <FormField
        label={t`Reason shown to the user`}
        required
        autoFocus
        error={fieldErrorText(i18n, form.formState.errors.Reason)}
        {...form.register("Reason")}
      />
    </FormDialog>
  );
}
