import { afterAll, describe, expect, it } from "vitest";
import { apiRequest, createHarness } from "../../testing/harness.ts";
import { operations } from "./operations.ts";

const h = await createHarness();
afterAll(async () => {
  await h.close();
});

/** Every operation the app serves, as "METHOD /path/{param}" relative to /api. */
function served(): string[] {
  const ops = h.app.routes
    .filter((r) => r.method !== "ALL" && r.path.startsWith("/api/") && !r.path.includes("*"))
    .map((r) => `${r.method} ${r.path.slice(4).replace(/:(\w+)/g, "{$1}")}`);
  return [...new Set(ops)].sort();
}

describe("OpenAPI document", () => {
  it("documents exactly the operations the app serves", () => {
    expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(served());
  });

  it("is served at /api/openapi.json with schemas from the shared package", async () => {
    const r = await apiRequest(h, "GET", "/api/openapi.json");
    expect(r.status).toBe(200);
    const doc = r.body as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }>;
            };
          }
        >
      >;
    };
    expect(doc.openapi).toBe("3.0.3");
    const login = doc.paths["/login"]?.["post"]?.requestBody?.content["application/json"]?.schema;
    expect(Object.keys(login?.properties ?? {})).toEqual(["UserName", "Password", "KioskMode"]);
    expect(login?.required).toEqual(["UserName", "Password"]);
    const acl = doc.paths["/admin/acls"]?.["post"]?.requestBody?.content["application/json"]?.schema;
    expect(acl?.properties).toHaveProperty("MaximumGrantDuration");
  });
});
