import { beforeAll, describe, expect, it } from "vitest";
import { FakeIdp, makeKeyPair, responseXml, signAssertion } from "../../testing/saml.ts";
import { buildSetup, spUrls } from "./setup.ts";
import { validateSamlSchema as validateSchema } from "./schema-validator.ts";

let idp: FakeIdp;
beforeAll(async () => {
  idp = new FakeIdp(await makeKeyPair("idp.example.test"));
});

describe("spUrls", () => {
  it("derives the entity id and ACS of each audience from PublicURL", () => {
    expect(spUrls("https://postern.example/", "user")).toEqual({
      entityId: "https://postern.example/api/saml/metadata",
      acsUrl: "https://postern.example/api/saml/acs",
    });
    expect(spUrls("https://postern.example", "admin")).toEqual({
      entityId: "https://postern.example/api/admin/saml/metadata",
      acsUrl: "https://postern.example/api/admin/saml/acs",
    });
  });
});

describe("buildSetup", () => {
  const inputs = () => ({
    audience: "user" as const,
    publicUrl: "https://postern.example",
    idpMetadataXml: idp.metadata(),
    spKeyPem: "",
    spCertPem: "",
  });

  it("builds the SP and IdP with the IdP's entity id and signing certificate", () => {
    const s = buildSetup(inputs());
    expect(s.idpEntityId).toBe(idp.entityId);
    expect(s.idpSigningCerts).toHaveLength(1);
    expect(s.spEntityId).toBe("https://postern.example/api/saml/metadata");
    expect(s.acsUrl).toBe("https://postern.example/api/saml/acs");
  });

  const variants: [string, () => { publicUrl?: string; idpMetadataXml?: string }][] = [
    ["PublicURL is not set", () => ({ publicUrl: "" })],
    ["PublicURL is not set", () => ({ publicUrl: "ftp://postern.example" })],
    ["no IdP metadata (file or URL)", () => ({ idpMetadataXml: " " })],
    ["IdP metadata has no signing certificate", () => ({ idpMetadataXml: idp.metadata({ withCert: false }) })],
    [
      "IdP metadata has no HTTP-Redirect single sign-on service",
      () => ({ idpMetadataXml: idp.metadata().replace(/HTTP-Redirect/g, "HTTP-POST") }),
    ],
    [
      "IdP metadata has no single EntityDescriptor with an entityID",
      () => ({ idpMetadataXml: "<EntitiesDescriptor/>" }),
    ],
    [
      "the IdP wants signed requests: set the SP key and certificate",
      () => ({ idpMetadataXml: idp.metadata({ wantAuthnRequestsSigned: true }) }),
    ],
  ];
  it.each(variants)("refuses to run: %s", (reason, change) => {
    expect(() => buildSetup({ ...inputs(), ...change() })).toThrow(
      expect.objectContaining({ key: "SAML not configured", reason }),
    );
  });
});

describe("validateSamlSchema", () => {
  it("accepts a schema-valid response, rejects an invalid one, and leaves no listeners or output behind", async () => {
    const valid = signAssertion(
      responseXml(idp.fields("_req", { acsUrl: "https://sp/acs", audience: "https://sp" }, "alice")),
      idp.keys,
    );
    const before = {
      uncaught: process.listeners("uncaughtException").length,
      drain: process.stdout.listeners("drain").length,
    };
    const logged: unknown[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => logged.push(args);
    try {
      for (let i = 0; i < 12; i++) await expect(validateSchema(valid)).resolves.toBe("SUCCESS_VALIDATE_XML");
      await expect(validateSchema(valid.replace("<saml:Issuer>", "<saml:Nonsense/><saml:Issuer>"))).rejects.toThrow(
        "ERR_EXCEPTION_VALIDATE_XML",
      );
      await expect(validateSchema("<not-saml/>")).rejects.toThrow("ERR_EXCEPTION_VALIDATE_XML");
      await expect(validateSchema("<<<")).rejects.toThrow("ERR_EXCEPTION_VALIDATE_XML");
    } finally {
      console.log = log;
    }
    expect(logged).toEqual([]);
    expect(process.listeners("uncaughtException")).toHaveLength(before.uncaught);
    expect(process.stdout.listeners("drain")).toHaveLength(before.drain);
  });
});
