/**
 * The XML schema check of every SAML message samlify reads (docs/decisions.md "SAML": a real schema
 * validator, so a message that is not a well-formed SAML protocol document is refused before any
 * signature or assertion logic sees it). libxml2's xmllint compiled to WebAssembly (`xmllint-wasm`),
 * which runs each validation in a worker thread: no process listeners, no output, nothing left behind
 * in the server process. The module is loaded on the first SAML message, not at start.
 *
 * The schemas are OASIS SAML 2.0 protocol and assertion, W3C XML Signature and XML Encryption, with
 * the DTDs the signature schema names, kept in `schemas/` (from @authenio/samlify-node-xmllint, the
 * validator samlify documents).
 */
import { readFileSync } from "node:fs";
import type { XMLFileInfo } from "xmllint-wasm";

/** What samlify's `setSchemaValidator` takes. */
export interface SchemaValidator {
  validate(xml: string): Promise<string>;
}

/** The schema files, read once, by the names the schemas import each other with. */
let files: { schema: XMLFileInfo; preload: XMLFileInfo[] } | undefined;
function schemaFiles(): { schema: XMLFileInfo; preload: XMLFileInfo[] } {
  const read = (fileName: string): XMLFileInfo => ({
    fileName,
    contents: readFileSync(new URL(`./schemas/${fileName}`, import.meta.url), "utf8"),
  });
  files ??= {
    schema: read("saml-schema-protocol-2.0.xsd"),
    preload: [
      "saml-schema-assertion-2.0.xsd",
      "xmldsig-core-schema.xsd",
      "xenc-schema.xsd",
      "XMLSchema.dtd",
      "datatypes.dtd",
    ].map(read),
  };
  return files;
}

/**
 * Validates `xml` (a SAML protocol message: Response, AuthnRequest, LogoutRequest...) against the
 * SAML 2.0 protocol schema. Resolves "SUCCESS_VALIDATE_XML"; rejects with
 * "ERR_EXCEPTION_VALIDATE_XML" (samlify's convention) when the document is not valid, and with the
 * validator's own error when it cannot run.
 */
export async function validateSamlSchema(xml: string): Promise<string> {
  const { validateXML } = await import("xmllint-wasm");
  const { schema, preload } = schemaFiles();
  const result = await validateXML({ xml: [{ fileName: "message.xml", contents: xml }], schema, preload });
  if (!result.valid) throw new Error("ERR_EXCEPTION_VALIDATE_XML");
  return "SUCCESS_VALIDATE_XML";
}

/** The validator handed to samlify. */
export const samlSchemaValidator: SchemaValidator = { validate: validateSamlSchema };
