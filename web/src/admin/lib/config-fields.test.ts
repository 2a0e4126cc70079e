import { describe, expect, it } from "vitest";
import { BACKEND_DESCRIPTORS, BACKEND_TYPES } from "@postern/shared";
import { configFields } from "./config-fields.ts";

describe("configFields", () => {
  it("reads each backend type's fields from its shared schema", () => {
    const of = (t: keyof typeof BACKEND_DESCRIPTORS) =>
      configFields(BACKEND_DESCRIPTORS[t].backendSchema, BACKEND_DESCRIPTORS[t].secretFields);
    expect(of("fortios")).toEqual([
      { name: "Url", kind: "text" },
      { name: "Insecure", kind: "boolean" },
      { name: "Bearer", kind: "secret" },
      { name: "Prefix", kind: "text" },
      { name: "VDOM", kind: "text" },
    ]);
    expect(of("haproxy")).toEqual([
      { name: "Protocol", kind: "enum", options: ["unix", "tcp"] },
      { name: "Address", kind: "text" },
    ]);
    expect(of("script")).toEqual([
      { name: "Command", kind: "text" },
      { name: "EnvVars", kind: "envVars" },
    ]);
    expect(of("ipset")).toEqual([]);
    // Every field of every type has a form field: nothing is silently left out.
    for (const t of BACKEND_TYPES) {
      const shape = (BACKEND_DESCRIPTORS[t].backendSchema as unknown as { shape: object }).shape;
      expect(of(t).map((f) => f.name)).toEqual(Object.keys(shape));
    }
  });

  it("reads each type's ACL fields from its shared schema: numbers, enums with a blank choice, variable values, prefixes", () => {
    const acl = (t: keyof typeof BACKEND_DESCRIPTORS) => configFields(BACKEND_DESCRIPTORS[t].aclSchema, []);
    expect(acl("haproxy")).toEqual([{ name: "ID", kind: "number" }]);
    expect(acl("aws")).toEqual([
      { name: "SecurityGroupId", kind: "text" },
      { name: "Port", kind: "number" },
    ]);
    expect(acl("azure")[0]).toEqual({ name: "NsgDirection", kind: "enum", options: ["", "Inbound", "Outbound"] });
    expect(acl("azure")[2]).toEqual({ name: "NsgPort", kind: "number" });
    expect(acl("script")).toEqual([
      { name: "Name", kind: "text" },
      { name: "EnvVars", kind: "envValues" },
    ]);
    expect(acl("allowlist").map((f) => f.kind)).toEqual(["text", "text", "boolean", "prefixes"]);
    for (const t of BACKEND_TYPES) {
      const shape = (BACKEND_DESCRIPTORS[t].aclSchema as unknown as { shape: object }).shape;
      expect(acl(t).map((f) => f.name)).toEqual(Object.keys(shape));
    }
  });
});
