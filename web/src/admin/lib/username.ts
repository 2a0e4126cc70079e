/**
 * Username auto-fill (docs/reference.md admin-console §5, issue #9 item 15): for new users and admins the username
 * follows the name — lower case, spaces to dots — until the username field is focused.
 */
import { useEffect, useRef } from "react";
import type { FieldValues, Path, PathValue, UseFormReturn } from "react-hook-form";

/** The username derived from a name: trimmed, lower case, runs of spaces to one dot. */
export function usernameFromName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ".");
}

/**
 * Keeps `UserName` in step with `Name` while `active` (create mode) and the username field has not
 * been focused; returns the onFocus handler for the username field.
 */
export function useUsernameAutofill<T extends FieldValues & { Name: string; UserName: string }>(
  form: UseFormReturn<T, unknown, unknown>,
  active: boolean,
): () => void {
  const touched = useRef(!active);
  const name = form.watch("Name" as Path<T>) as string;
  useEffect(() => {
    if (!touched.current) form.setValue("UserName" as Path<T>, usernameFromName(name ?? "") as PathValue<T, Path<T>>);
  }, [form, name]);
  return () => {
    touched.current = true;
  };
}
