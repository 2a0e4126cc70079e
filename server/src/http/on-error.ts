/**
 * The one place errors become HTTP responses (design.md "Contract decisions"): an AppError is sent
 * as `{Err, Extra}` with its status; anything else is logged and answered 500 "Internal server error"
 * without leaking its message.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ServerMessage } from "@postern/shared";
import type { ErrorBody } from "@postern/shared";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";

/** Builds the Hono onError handler. */
export function onError(log: Logger) {
  return (err: Error, c: Context): Response => {
    if (err instanceof AppError) {
      const body: ErrorBody = err.extra !== undefined ? { Err: err.err, Extra: err.extra } : { Err: err.err };
      return c.json(body, err.status);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return c.json({ Err: ServerMessage.badRequest, Extra: err.message }, err.status);
    }
    log.error({ err, path: c.req.path, method: c.req.method }, "request failed");
    return c.json({ Err: ServerMessage.internalServerError }, 500);
  };
}
