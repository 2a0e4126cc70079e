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

  it("reads the ACL fields too: numbers, ports given as digits, a choice still to make", () => {
    const acl = (t: keyof typeof BACKEND_DESCRIPTORS) => configFields(BACKEND_DESCRIPTORS[t].aclSchema, []);
    expect(acl("haproxy")).toEqual([{ name: "ID", kind: "number" }]);
    expect(acl("azure")).toEqual([
      { name: "NsgDirection", kind: "enum", options: ["", "Inbound", "Outbound"] },
      { name: "NsgName", kind: "text" },
      { name: "NsgPort", kind: "number" },
      { name: "ResourceGroup", kind: "text" },
    ]);
    expect(acl("ipset")).toEqual([
      { name: "V4SetName", kind: "text" },
      { name: "V6SetName", kind: "text" },
    ]);
  });
});
