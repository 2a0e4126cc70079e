/**
 * Builds the OpenAPI 3.0 document from the shared zod schemas (issue #3 item 8): each operation of
 * `operations.ts` names its body and response schemas, which `z.toJSONSchema` turns into JSON
 * Schema. Served at GET /api/openapi.json.
 */
import { z } from "zod";
import type { Operation } from "./operations.ts";

/** Authentication schemes of the API. */
const securitySchemes = {
  adminSession: {
    type: "apiKey",
    in: "cookie",
    name: "postern_admin_session",
    description: "An admin session (POST /api/admin/login); `__Host-postern_admin_session` over https.",
  },
  userSession: {
    type: "apiKey",
    in: "cookie",
    name: "postern_session",
    description: "A user session (POST /api/login); `__Host-postern_session` over https.",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: "An API key with the scope the operation needs (user.sessions, ...).",
  },
  apiKeyBasic: {
    type: "http",
    scheme: "basic",
    description: "HTTP Basic with an API key as the password (allowlist.read:{aclId}).",
  },
} as const;

const SECURITY: Record<Operation["auth"], Record<string, string[]>[]> = {
  none: [],
  user: [{ userSession: [] }],
  admin: [{ adminSession: [] }],
  apiKey: [{ apiKey: [] }],
  allowlist: [{ apiKeyBasic: [] }, {}],
};

function schema(s: z.ZodType, io: "input" | "output"): unknown {
  return z.toJSONSchema(s, { target: "openapi-3.0", io, unrepresentable: "any" });
}

const errorBody = {
  type: "object",
  properties: { Err: { type: "string" }, Extra: { type: "string" } },
  required: ["Err"],
};

/** The OpenAPI document for `operations`, `version` being the server's. */
export function buildOpenApi(operations: readonly Operation[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const query = (op.query ?? []).map((q) => ({
      name: q.name,
      in: "query",
      required: false,
      schema: { type: q.type ?? "string" },
      description: q.description,
    }));
    const ok: Record<string, unknown> = { description: op.okDescription ?? "Success" };
    if (op.response)
      ok["content"] = { [op.responseType ?? "application/json"]: { schema: schema(op.response, "output") } };
    else if (op.responseType) ok["content"] = { [op.responseType]: { schema: { type: "string" } } };
    const responses: Record<string, unknown> = {
      [String(op.status ?? 200)]: ok,
      default: {
        description: "An error: {Err, Extra?} with the spec's key",
        content: { "application/json": { schema: errorBody } },
      },
    };
    const operation: Record<string, unknown> = {
      operationId: `${op.method.toLowerCase()}${op.path.replace(/[{}]/g, "").replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      summary: op.summary,
      tags: [op.tag],
      security: SECURITY[op.auth],
      parameters: [...params, ...query],
      responses,
    };
    if (op.body)
      operation["requestBody"] = {
        required: true,
        content: { "application/json": { schema: schema(op.body, "input") } },
      };
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.0.3",
    info: {
      title: "Postern API",
      version,
      description: "Just-in-time network access gateway. Base path /api. Errors are {Err, Extra?}.",
    },
    servers: [{ url: "/api" }],
    components: { securitySchemes },
    paths,
  };
}
