/**
 * The request body limit of the API (app.ts MAX_BODY_BYTES, 1 MiB; a larger body answers 413 with the
 * Err of `Errors.bodyTooLarge`), kept off the node adapter's slow path (issue #13 item 1).
 *
 * hono's own `bodyLimit` reads `c.req.raw.body`, which makes @hono/node-server build a whole fetch
 * Request around Node's IncomingMessage, and the handler's `c.req.json()` then reads the body through
 * web streams instead of the adapter's direct path: ~0.15 ms of every POST /api/grant, and 7 % of a
 * status read's CPU before GET was let through. So a body with a declared Content-Length is judged by
 * that header alone (Node's HTTP parser never delivers more bytes than declared, and refuses a
 * malformed length), and only a chunked body (Transfer-Encoding) is counted by hono's `bodyLimit`.
 * GET and HEAD carry no body and pass.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";

/**
 * Middleware refusing a request body over `maxBytes` (BYTES) with `onTooLarge(c)`'s response, before
 * the handler runs; see the module documentation.
 */
export function bodyLimit(maxBytes: number, onTooLarge: (c: Context) => Response): MiddlewareHandler {
  const counted = honoBodyLimit({ maxSize: maxBytes, onError: onTooLarge });
  return async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const declared = c.req.header("content-length");
    if (declared === undefined || c.req.header("transfer-encoding") !== undefined) return counted(c, next);
    if (Number(declared) > maxBytes) return onTooLarge(c);
    return next();
  };
}
