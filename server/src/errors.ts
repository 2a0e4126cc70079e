/**
 * The server's one error type. Services throw `AppError` with the spec's `Err` key (user-portal §8,
 * admin-console §8) and the HTTP status; `http/on-error.ts` turns it into `{Err, Extra}` in one place.
 */
import { ErrKey, ServerMessage } from "@postern/shared";

/** HTTP statuses the API uses for errors (design.md "Contract decisions"). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503;

/** An error to show the client: `Err` key, optional `Extra`, HTTP status. */
export class AppError extends Error {
  readonly err: string;
  readonly extra: string | undefined;
  readonly status: ErrorStatus;
  constructor(status: ErrorStatus, err: string, extra?: string) {
    super(extra ? `${err}: ${extra}` : err);
    this.name = "AppError";
    this.status = status;
    this.err = err;
    this.extra = extra;
  }
}

/** 400 with the spec's "Bad request" (or a given key) and an optional detail. */
export const badRequest = (err: string = ServerMessage.badRequest, extra?: string) => new AppError(400, err, extra);
/** 401 err.invalidSession: no usable session. */
export const invalidSession = () => new AppError(401, ErrKey.invalidSession);
/** 403 with the given key (default Unauthorised). */
export const forbidden = (err: string = ServerMessage.unauthorised, extra?: string) => new AppError(403, err, extra);
/** 404 Not found. */
export const notFound = (extra?: string) => new AppError(404, ServerMessage.notFound, extra);
/** 409 conflict (unique names, refused deletes). */
export const conflict = (err: string, extra?: string) => new AppError(409, err, extra);
