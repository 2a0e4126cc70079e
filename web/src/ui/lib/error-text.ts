/**
 * Pure composition of an error for display (docs/reference.md user-portal §8): `Err` translated, then `Extra` after a
 * colon (translated when it starts with `err.`); otherwise the message text, or the internal-error text.
 */
import type { ErrorBody } from "@postern/shared";

/** Looks up the translation of a server key or message; undefined when unknown. */
export type Translate = (key: string) => string | undefined;

/**
 * Text for an error body or exception message. `internalError` is the already translated
 * "An internal server error occurred". Unknown `Err` values are shown as sent.
 */
export function composeErrorText(
  body: ErrorBody | undefined,
  message: string | undefined,
  translate: Translate,
  internalError: string,
): string {
  if (body !== undefined && body.Err !== "") {
    const main = translate(body.Err) ?? body.Err;
    const extra = body.Extra;
    if (extra === undefined || extra === "") return main;
    const extraText = extra.startsWith("err.") ? (translate(extra) ?? extra) : extra;
    return `${main}: ${extraText}`;
  }
  if (message !== undefined && message.trim() !== "") return message;
  return internalError;
}

/** True when the value looks like an error body `{Err, Extra?}`. */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.Err === "string" && (v.Extra === undefined || typeof v.Extra === "string");
}
