/**
 * The form of one Settings section (docs/reference.md admin-console §4 dirty tracking, §5 "Settings"): react-hook-form
 * on a shared zod schema whose values follow the stored ones — when the settings are read again
 * (after a save) the form takes the new values and is clean again; a section whose stored values
 * did not change keeps what the admin is typing. `fieldError` words a field's error, translating
 * the settings rules' messages of the shared schemas besides the catalogue's; `useSectionFrame`
 * wires a section's Cancel and Save to its write.
 */
import type { BaseSyntheticEvent } from "react";
import type { UseMutationResult } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import type { FieldValues, UseFormReturn } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import type { z } from "zod";
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { FieldErrorLike } from "../../lib/form-errors.ts";

/**
 * A section form on `schema` whose values are `stored`, the section's part of the server's
 * settings (compared by value: a new read with equal values leaves the form as it is).
 */
export function useSettingsForm<I extends FieldValues, O>(
  schema: z.ZodType<O, I>,
  stored: I,
): UseFormReturn<I, unknown, O> {
  return useForm<I, unknown, O>({
    resolver: zodResolver(schema as never) as never,
    values: stored,
    shouldFocusError: true,
  });
}

/** The settings rules' messages of the shared schemas (shared/src/api/settings.ts) not in the catalogue. */
const SETTINGS_MESSAGES: Record<string, MessageDescriptor> = {
  "KioskSessionDuration must be between 5 and 120": msg`The kiosk session duration must be between 5 and 120 minutes`,
  "KioskSessionDuration must be a number": msg`The kiosk session duration must be a number`,
  "must be 1 to 65535": msg`Each port must be a number from 1 to 65535`,
  "name at least one port": msg`Name at least one port`,
  "at most 16 ports": msg`At most 16 ports`,
  "must not repeat a port": msg`A port must not be repeated`,
  "The logo must be at most 512 KB": msg`The logo must be at most 512 KB`,
  "The logo must be PNG or JPEG": msg`The logo must be PNG or JPEG`,
};

/** The display text of a settings field's error, or undefined when the field is valid. */
export function fieldError(i18n: I18n, error: FieldErrorLike | undefined): string | undefined {
  const message = typeof error?.message === "string" ? error.message : "";
  const own = Object.hasOwn(SETTINGS_MESSAGES, message) ? SETTINGS_MESSAGES[message] : undefined;
  return own ? i18n._(own) : fieldErrorText(i18n, error);
}

/** What a section form gives its SettingsSection: dirty, busy, Cancel and Save. */
export interface SectionFrameProps {
  dirty: boolean;
  busy: boolean;
  onCancel: () => void;
  onSubmit: (event?: BaseSyntheticEvent) => Promise<void>;
}

/**
 * The frame props of a section whose valid values are written by `mutation` as `toBody(values)`;
 * success toasts `success` and leaves the form clean on the settings read again; failure opens
 * the error dialog and keeps the admin's values.
 */
export function useSectionFrame<I extends FieldValues, O, B, R>(
  form: UseFormReturn<I, unknown, O>,
  mutation: UseMutationResult<R, Error, B>,
  toBody: (values: O) => B,
  success: string,
  done: (result: R) => void = () => undefined,
): SectionFrameProps {
  const feedback = useFeedback();
  return {
    dirty: form.formState.isDirty,
    busy: mutation.isPending,
    onCancel: () => form.reset(),
    onSubmit: form.handleSubmit((values) =>
      mutation.mutate(
        toBody(values),
        feedback<R>(success, (result) => {
          // Clean again even when the stored values read back unchanged (an uploaded file is never read back).
          form.reset();
          done(result);
        }),
      ),
    ),
  };
}

/**
 * What an upload field sends: "" to remove the stored file, the chosen file's contents, or nothing
 * (undefined: the stored file stays).
 */
export function uploadValue(file: string, remove: boolean): string | undefined {
  if (remove) return "";
  return file === "" ? undefined : file;
}
