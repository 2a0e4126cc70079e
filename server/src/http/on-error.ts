/**
 * The one place errors become HTTP responses (docs/reference.md design "Contract decisions"): an AppError is sent
 * as `{Err, Extra}` with its status; a broken unique name is its 409 (services/conflicts.ts); anything
 * else is logged and answered 500 "Internal server error" without leaking its message.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { Errors } from "@postern/shared";
import type { ErrorBody, ErrorEntry } from "@postern/shared";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { conflictOf } from "../services/conflicts.ts";

/** Answers `entry` as `{Err, Extra?}` with its status (for handlers that answer rather than throw). */
export function errorResponse(c: Context, entry: ErrorEntry, extra?: string): Response {
  const body: ErrorBody = extra !== undefined ? { Err: entry.err, Extra: extra } : { Err: entry.err };
  return c.json(body, entry.status);
}

/** Builds the Hono onError handler. */
export function onError(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof AppError) {
      return errorResponse(c, err, err.extra);
    }
    const conflict = conflictOf(err);
    if (conflict) return errorResponse(c, conflict);
    if (err instanceof HTTPException && err.status < 500) {
      return c.json({ Err: Errors.badRequest.err, Extra: err.message }, err.status);
    }
    log.error({ err, path: c.req.path, method: c.req.method }, "request failed");
    return errorResponse(c, Errors.internalServerError);
  };
}
