/**
 * Checking an IdP's login response (docs/reference.md design "Security" on SAML): samlify validates the XML
 * against the SAML schemas, the status, the signature against the IdP metadata's certificate (an
 * unsigned response is refused), the issuer and the Conditions time window; then this module checks,
 * on the signed assertion only:
 *
 * - the document holds exactly one Assertion, the direct child of the Response, and it is the signed
 *   one (signature wrapping); no DOCTYPE, no EncryptedAssertion;
 * - Issuer = the IdP's entity id; every AudienceRestriction names the SP's entity id;
 * - a bearer SubjectConfirmation whose SubjectConfirmationData has Recipient = the ACS URL, an
 *   InResponseTo, and a NotOnOrAfter (required) not passed; NotBefore, if any, reached;
 * - the Response's Destination and InResponseTo, when present, agree (ACS URL, same request);
 * - Conditions NotBefore / NotOnOrAfter with SAML_CLOCK_SKEW_MS;
 * - a NameID of 1–256 characters, plain text, not of the transient format.
 *
 * InResponseTo against the stored request and the assertion-id replay are checked by the caller,
 * which owns the database (service.ts).
 */
import * as samlify from "samlify";
import { refused } from "./errors.ts";
import { SAML_CLOCK_SKEW_MS } from "./setup.ts";
import type { SamlSetup } from "./setup.ts";

/** Largest SAMLResponse accepted, in base64 characters (about 384 KiB of XML). */
export const MAX_SAML_RESPONSE_CHARS = 512 * 1024;
/**
 * Longest an accepted assertion id is remembered, in milliseconds (24 hours), however far its
 * NotOnOrAfter: a replay needs a pending request too, and each request is answered once.
 */
export const MAX_REMEMBER_MS = 24 * 60 * 60_000;
/** Longest NameID accepted (it becomes the UserName), in characters. */
export const MAX_NAMEID_LENGTH = 256;

const TRANSIENT = "urn:oasis:names:tc:SAML:2.0:nameid-format:transient";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

/** What a checked response proves. Times in epoch ms. */
export interface VerifiedAssertion {
  /** The assertion's ID (remembered until `rememberUntil` against replay). */
  assertionId: string;
  /** The NameID: the UserName. */
  nameId: string;
  /** The AuthnRequest this answers (SubjectConfirmationData InResponseTo). */
  inResponseTo: string;
  /** The latest NotOnOrAfter of the assertion plus the skew (at most MAX_REMEMBER_MS ahead): how long its id is remembered. */
  rememberUntil: number;
  /** Attributes by Name; every value as a string. */
  attributes: Record<string, string[]>;
}

type Field = Parameters<typeof samlify.Extractor.extract>[1][number];
const extract = (xml: string, fields: Field[]) => samlify.Extractor.extract(xml, fields);

function texts(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value.flat(3) : [value]).filter((v): v is string => typeof v === "string");
}

function one(value: unknown): string | undefined {
  const all = texts(value);
  return all.length === 1 ? all[0] : undefined;
}

/** An ISO time as epoch ms; NaN for anything else. */
function time(value: string | undefined): number {
  return value && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
}

/** samlify's error code (its messages start with a fixed upper-case code); never free text. */
function codeOf(err: unknown): string {
  const text = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  if (/^invalid signature/i.test(text)) return "INVALID_SIGNATURE"; // xml-crypto's message
  return /^[A-Z][A-Z0-9_]{2,60}/.exec(text)?.[0] ?? "error";
}

/**
 * Checks a base64 SAMLResponse (HTTP-POST binding) against the set-up; returns what it proves.
 * Throws SamlError "Authentication failed" with the failed check as reason; once the signature is
 * verified the reason carries the NameID as `userName`.
 */
export async function verifyLoginResponse(
  setup: SamlSetup,
  samlResponse: string,
  now: number,
): Promise<VerifiedAssertion> {
  if (
    samlResponse.length === 0 ||
    samlResponse.length > MAX_SAML_RESPONSE_CHARS ||
    !/^[A-Za-z0-9+/=\s]+$/.test(samlResponse)
  ) {
    throw refused("SAMLResponse missing, too large or not base64");
  }
  const xml = Buffer.from(samlResponse, "base64").toString("utf8");
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw refused("DOCTYPE in the response");
  if (/<(?:[A-Za-z_][\w.-]*:)?EncryptedAssertion[\s/>]/.test(xml))
    throw refused("encrypted assertions are not supported");
  // Any Assertion element shows as "<Assertion" or "<prefix:Assertion" in the text: more than one
  // (wrapped in Extensions, Object, Advice, or duplicated) is refused outright.
  if ((xml.match(/<(?:[A-Za-z_][\w.-]*:)?Assertion[\s/>]/g) ?? []).length !== 1)
    throw refused("the response must hold exactly one assertion");

  try {
    await setup.sp.parseLoginResponse(setup.idp, "post", { body: { SAMLResponse: samlResponse } });
  } catch (err) {
    throw refused(`response refused (${codeOf(err)})`);
  }
  let verified: [boolean, string | null];
  try {
    verified = samlify.SamlLib.verifySignature(xml, {
      metadata: setup.idp.entityMeta,
      ...(setup.idp.entitySetting.requestSignatureAlgorithm
        ? { signatureAlgorithm: setup.idp.entitySetting.requestSignatureAlgorithm }
        : {}),
    });
  } catch (err) {
    throw refused(`signature not verified (${codeOf(err)})`);
  }
  const assertion = verified[0] ? verified[1] : null;
  if (!assertion) throw refused("no signed assertion");

  // Everything below reads the signed assertion (as the signature covered it), never the document.
  const a = extract(assertion, [
    { key: "id", localPath: ["Assertion"], attributes: ["ID"] },
    { key: "issuer", localPath: ["Assertion", "Issuer"], attributes: [] },
    { key: "nameIdXml", localPath: ["Assertion", "Subject", "NameID"], attributes: [], context: true },
    { key: "nameId", localPath: ["Assertion", "Subject", "NameID"], attributes: [] },
    { key: "nameIdFormat", localPath: ["Assertion", "Subject", "NameID"], attributes: ["Format"] },
    { key: "confirmations", localPath: ["Assertion", "Subject", "SubjectConfirmation"], attributes: [], context: true },
    { key: "conditions", localPath: ["Assertion", "Conditions"], attributes: ["NotBefore", "NotOnOrAfter"] },
    { key: "conditionsCount", localPath: ["Assertion", "Conditions"], attributes: [], context: true },
    {
      key: "restrictions",
      localPath: ["Assertion", "Conditions", "AudienceRestriction"],
      attributes: [],
      context: true,
    },
    {
      key: "attributes",
      localPath: ["Assertion", "AttributeStatement", "Attribute"],
      index: ["Name"],
      attributePath: ["AttributeValue"],
      attributes: [],
    },
  ]);
  const assertionId = one(a["id"]);
  if (!assertionId) throw refused("assertion without ID");

  // The document's only Assertion is the Response's child and is the one the signature covers.
  const doc = extract(xml, [
    { key: "response", localPath: ["Response"], attributes: ["Destination", "InResponseTo"] },
    { key: "responseIssuer", localPath: ["Response", "Issuer"], attributes: [] },
    { key: "assertionId", localPath: ["Response", "Assertion"], attributes: ["ID"] },
  ]);
  if (doc["assertionId"] !== assertionId) throw refused("the signed assertion is not the response's assertion");

  if (one(a["issuer"]) !== setup.idpEntityId) throw refused("assertion issuer is not the IdP");
  const responseIssuer = texts(doc["responseIssuer"]);
  if (responseIssuer.length > 0 && (responseIssuer.length !== 1 || responseIssuer[0] !== setup.idpEntityId))
    throw refused("response issuer is not the IdP");

  const nameIdXml = texts(a["nameIdXml"]);
  const nameId = one(a["nameId"])?.trim() ?? "";
  // Plain text only: a comment or child element inside NameID could truncate what is read.
  const nameIdInner = (nameIdXml[0] ?? "").replace(/^<[^>]*>/, "").replace(/<\/[^>]*>$/, "");
  if (nameIdXml.length !== 1 || nameIdInner.includes("<")) throw refused("NameID missing or not plain text");
  if (nameId === "" || nameId.length > MAX_NAMEID_LENGTH) throw refused("NameID missing or too long");
  if (one(a["nameIdFormat"]) === TRANSIENT) throw refused("transient NameID cannot name an account", nameId);

  // Audience: every AudienceRestriction must name this SP.
  const restrictions = texts(a["restrictions"]);
  if (restrictions.length === 0) throw refused("assertion without AudienceRestriction", nameId);
  for (const r of restrictions) {
    if (
      !texts(extract(r, [{ key: "aud", localPath: ["AudienceRestriction", "Audience"], attributes: [] }])["aud"]).some(
        (v) => v.trim() === setup.spEntityId,
      )
    ) {
      throw refused("audience is not this service provider", nameId);
    }
  }

  // Conditions time window (samlify checked it on the real clock; this is the server's clock).
  if (texts(a["conditionsCount"]).length !== 1) throw refused("assertion must have one Conditions", nameId);
  const conditions = (a["conditions"] ?? {}) as Record<string, unknown>;
  const condBefore = typeof conditions["notBefore"] === "string" ? time(conditions["notBefore"]) : null;
  const condAfter = typeof conditions["notOnOrAfter"] === "string" ? time(conditions["notOnOrAfter"]) : null;
  if (Number.isNaN(condBefore) || Number.isNaN(condAfter)) throw refused("Conditions times are not valid", nameId);
  if (condBefore !== null && now + SAML_CLOCK_SKEW_MS < condBefore) throw refused("assertion not yet valid", nameId);
  if (condAfter !== null && now - SAML_CLOCK_SKEW_MS >= condAfter)
    throw refused("assertion expired (Conditions NotOnOrAfter)", nameId);

  // Bearer subject confirmation: Recipient, InResponseTo, NotOnOrAfter.
  let failure = "no bearer SubjectConfirmation";
  let confirmed: { inResponseTo: string; notOnOrAfter: number } | null = null;
  for (const sc of texts(a["confirmations"])) {
    const c = extract(sc, [
      { key: "method", localPath: ["SubjectConfirmation"], attributes: ["Method"] },
      {
        key: "data",
        localPath: ["SubjectConfirmation", "SubjectConfirmationData"],
        attributes: ["Recipient", "InResponseTo", "NotOnOrAfter", "NotBefore"],
      },
    ]);
    if (c["method"] !== BEARER) continue;
    const data = c["data"];
    if (!data || Array.isArray(data) || typeof data !== "object") {
      failure = "bearer SubjectConfirmation needs one SubjectConfirmationData";
      continue;
    }
    const d = data as Record<string, string | undefined>;
    const notOnOrAfter = time(d["notOnOrAfter"]);
    const notBefore = d["notBefore"] === undefined ? null : time(d["notBefore"]);
    if (d["recipient"] !== setup.acsUrl) failure = "recipient is not this ACS";
    else if (!d["inResponseTo"]) failure = "InResponseTo missing";
    else if (d["notOnOrAfter"] === undefined) failure = "NotOnOrAfter missing";
    else if (Number.isNaN(notOnOrAfter) || Number.isNaN(notBefore))
      failure = "SubjectConfirmationData times are not valid";
    else if (now - SAML_CLOCK_SKEW_MS >= notOnOrAfter)
      failure = "assertion expired (SubjectConfirmationData NotOnOrAfter)";
    else if (notBefore !== null && now + SAML_CLOCK_SKEW_MS < notBefore)
      failure = "assertion not yet valid (SubjectConfirmationData NotBefore)";
    else {
      confirmed = { inResponseTo: d["inResponseTo"], notOnOrAfter };
      break;
    }
  }
  if (!confirmed) throw refused(failure, nameId);

  const response = (doc["response"] ?? {}) as Record<string, unknown>;
  if (response["destination"] !== undefined && response["destination"] !== setup.acsUrl)
    throw refused("destination is not this ACS", nameId);
  if (response["inResponseTo"] !== undefined && response["inResponseTo"] !== confirmed.inResponseTo)
    throw refused("response and assertion answer different requests", nameId);

  const attributes: Record<string, string[]> = {};
  for (const [name, value] of Object.entries((a["attributes"] ?? {}) as Record<string, unknown>))
    attributes[name] = texts(value).map((v) => v.trim());

  return {
    assertionId,
    nameId,
    inResponseTo: confirmed.inResponseTo,
    rememberUntil: Math.min(
      Math.max(confirmed.notOnOrAfter, condAfter ?? 0) + SAML_CLOCK_SKEW_MS,
      now + MAX_REMEMBER_MS,
    ),
    attributes,
  };
}
