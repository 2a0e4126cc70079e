/**
 * The server's one error type. Services throw `AppError` with an entry of the shared error catalogue
 * (`Errors`, docs/reference.md user-portal §8, docs/reference.md admin-console §8), which carries both the `Err` value and the HTTP status;
 * `http/on-error.ts` turns it into `{Err, Extra}` in one place.
 */
import { Errors, VALIDATION_ERRORS } from "@postern/shared";
import type { ErrorEntry, ErrorStatus } from "@postern/shared";

/** An error to show the client: a catalogue entry and an optional `Extra` detail. */
export class AppError extends Error {
  readonly err: string;
  readonly extra: string | undefined;
  readonly status: ErrorStatus;
  constructor(entry: ErrorEntry, extra?: string) {
    super(extra ? `${entry.err}: ${extra}` : entry.err);
    this.name = "AppError";
    this.status = entry.status;
    this.err = entry.err;
    this.extra = extra;
  }
}

/** The first issue of a failed zod parse: its path and message. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The error for a failed schema parse (body or query): when the failing rule's message is a 400
 * entry of the catalogue (`VALIDATION_ERRORS`) that entry with `Extra` naming the field, else "Bad
 * request" with `Extra` "field: message". `prefix` is put before the issue's path (e.g. "Config").
 */
export function validationError(issue: ValidationIssue | undefined, prefix?: string): AppError {
  const path = [...(prefix ? [prefix] : []), ...(issue?.path ?? []).map(String)].join(".");
  const message = issue?.message ?? "invalid";
  const entry = VALIDATION_ERRORS.get(message);
  if (entry) return new AppError(entry, path || undefined);
  return new AppError(Errors.badRequest, path ? `${path}: ${message}` : message);
}
