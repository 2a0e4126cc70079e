/**
 * A fake SAML identity provider for tests: its own RSA key and self-signed certificate, metadata
 * built by samlify, and login responses written by hand (so each field can be set, left out or
 * forged) and signed with samlify's XML signature (assertion and/or response). Signature-wrapping
 * variants are made from signed responses by string surgery in the tests.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import * as x509 from "@peculiar/x509";
import * as samlify from "samlify";

/** A PEM private key and its self-signed certificate. */
export interface KeyPair {
  keyPem: string;
  certPem: string;
}

/** Generates an RSA-2048 key and a self-signed certificate (CN `cn`, valid from yesterday for a year). */
export async function makeKeyPair(cn: string): Promise<KeyPair> {
  const alg = {
    name: "RSASSA-PKCS1-v1_5",
    hash: "SHA-256",
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: "01",
      name: `CN=${cn}`,
      notBefore: new Date(now - 86_400_000),
      notAfter: new Date(now + 365 * 86_400_000),
      signingAlgorithm: alg,
      keys,
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
  return {
    keyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END PRIVATE KEY-----\n`,
    certPem: cert.toString("pem"),
  };
}

/** The fields of a hand-written login response; `null` leaves an optional part out. */
export interface ResponseFields {
  responseId: string;
  assertionId: string;
  issuer: string;
  /** Response Destination (null: none). */
  destination: string | null;
  /** Response InResponseTo (null: none). */
  responseInResponseTo: string | null;
  /** SubjectConfirmationData InResponseTo (null: none). */
  inResponseTo: string | null;
  recipient: string;
  /** SubjectConfirmationData NotOnOrAfter, epoch ms (null: none). */
  notOnOrAfter: number | null;
  /** Conditions NotBefore / NotOnOrAfter, epoch ms (null: none). */
  conditionsNotBefore: number | null;
  conditionsNotOnOrAfter: number | null;
  audience: string;
  /** NameID element content, inserted as is (may hold a comment for the truncation test). */
  nameIdXml: string;
  nameIdFormat: string;
  /** Attributes by name (values XML-escaped). */
  attributes: Record<string, string[]>;
  statusCode: string;
  issueInstant: number;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const iso = (ms: number) => new Date(ms).toISOString();

/** Writes the assertion element of `f` (unsigned). */
export function assertionXml(f: ResponseFields): string {
  const scd = [
    f.notOnOrAfter !== null ? ` NotOnOrAfter="${iso(f.notOnOrAfter)}"` : "",
    ` Recipient="${esc(f.recipient)}"`,
    f.inResponseTo !== null ? ` InResponseTo="${esc(f.inResponseTo)}"` : "",
  ].join("");
  const cond = [
    f.conditionsNotBefore !== null ? ` NotBefore="${iso(f.conditionsNotBefore)}"` : "",
    f.conditionsNotOnOrAfter !== null ? ` NotOnOrAfter="${iso(f.conditionsNotOnOrAfter)}"` : "",
  ].join("");
  const attrs = Object.entries(f.attributes)
    .map(
      ([name, values]) =>
        `<saml:Attribute Name="${esc(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${values.map((v) => `<saml:AttributeValue xsi:type="xs:string">${esc(v)}</saml:AttributeValue>`).join("")}</saml:Attribute>`,
    )
    .join("");
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" ID="${esc(f.assertionId)}" Version="2.0" IssueInstant="${iso(f.issueInstant)}">` +
    `<saml:Issuer>${esc(f.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="${esc(f.nameIdFormat)}">${f.nameIdXml}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${scd}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions${cond}><saml:AudienceRestriction><saml:Audience>${esc(f.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(f.issueInstant)}" SessionIndex="_s${esc(f.assertionId)}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : "") +
    `</saml:Assertion>`
  );
}

/** Writes the whole response of `f` around `assertion` (default: the unsigned assertion of `f`). */
export function responseXml(f: ResponseFields, assertion = assertionXml(f)): string {
  const attrs = [
    f.destination !== null ? ` Destination="${esc(f.destination)}"` : "",
    f.responseInResponseTo !== null ? ` InResponseTo="${esc(f.responseInResponseTo)}"` : "",
  ].join("");
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${esc(f.responseId)}" Version="2.0" IssueInstant="${iso(f.issueInstant)}"${attrs}>` +
    `<saml:Issuer>${esc(f.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${esc(f.statusCode)}"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`
  );
}

/** The base64 DER body of a PEM certificate (what samlify's signer embeds in KeyInfo). */
const certBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").replace(/\s+/g, "");

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const ASSERTION_XPATH = "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";

/** Signs the Response's assertion (enveloped signature after its Issuer); returns the XML. */
export function signAssertion(xml: string, keys: KeyPair): string {
  return samlify.SamlLib.constructSAMLSignature({
    rawSamlMessage: xml,
    referenceTagXPath: ASSERTION_XPATH,
    privateKey: keys.keyPem,
    signingCert: certBody(keys.certPem),
    signatureAlgorithm: RSA_SHA256,
    isBase64Output: false,
    signatureConfig: {
      prefix: "ds",
      location: { reference: `${ASSERTION_XPATH}/*[local-name(.)='Issuer']`, action: "after" },
    },
  });
}

/** Signs the whole Response (message signature after its Issuer); returns the XML. */
export function signResponse(xml: string, keys: KeyPair): string {
  return samlify.SamlLib.constructSAMLSignature({
    rawSamlMessage: xml,
    privateKey: keys.keyPem,
    signingCert: certBody(keys.certPem),
    signatureAlgorithm: RSA_SHA256,
    isBase64Output: false,
    isMessageSigned: true,
    signatureConfig: {
      prefix: "ds",
      location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Issuer']", action: "after" },
    },
  });
}

/** Base64 of a string (the SAMLResponse form field). */
export const b64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");

/** The ID of the AuthnRequest in an HTTP-Redirect URL (`SAMLRequest`, deflated and base64). */
export function requestIdOf(url: string): string {
  const param = new URL(url).searchParams.get("SAMLRequest");
  if (!param) throw new Error(`no SAMLRequest in ${url}`);
  const xml = inflateRawSync(Buffer.from(param, "base64")).toString("utf8");
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error("no ID in the AuthnRequest");
  return id;
}

/** A fake IdP: entity id, SSO URL, key pair, metadata. */
export class FakeIdp {
  readonly entityId: string;
  readonly ssoUrl: string;
  readonly keys: KeyPair;
  private counter = 0;
  constructor(keys: KeyPair, opts: { entityId?: string; ssoUrl?: string } = {}) {
    this.keys = keys;
    this.entityId = opts.entityId ?? "https://idp.example.test/metadata";
    this.ssoUrl = opts.ssoUrl ?? "https://idp.example.test/sso";
  }

  /** The IdP metadata (samlify-built): signing certificate, HTTP-Redirect SSO; `withCert` false leaves the certificate out. */
  metadata(opts: { withCert?: boolean; wantAuthnRequestsSigned?: boolean } = {}): string {
    return samlify
      .IdentityProvider({
        entityID: this.entityId,
        ...(opts.withCert === false ? {} : { signingCert: this.keys.certPem }),
        singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: this.ssoUrl }],
        singleLogoutService: [
          { Binding: samlify.Constants.namespace.binding.redirect, Location: `${this.ssoUrl}/logout` },
        ],
        wantAuthnRequestsSigned: opts.wantAuthnRequestsSigned ?? false,
      })
      .getMetadata();
  }

  /** Valid fields answering `requestId` for an SP (`acsUrl`, `audience`) at `now` (epoch ms). */
  fields(
    requestId: string,
    sp: { acsUrl: string; audience: string },
    nameId: string,
    now = Date.now(),
  ): ResponseFields {
    this.counter += 1;
    return {
      responseId: `_r${this.counter}-${now}`,
      assertionId: `_a${this.counter}-${now}`,
      issuer: this.entityId,
      destination: sp.acsUrl,
      responseInResponseTo: requestId,
      inResponseTo: requestId,
      recipient: sp.acsUrl,
      notOnOrAfter: now + 5 * 60_000,
      conditionsNotBefore: now - 30_000,
      conditionsNotOnOrAfter: now + 5 * 60_000,
      audience: sp.audience,
      nameIdXml: esc(nameId),
      nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
      attributes: {},
      statusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
      issueInstant: now,
    };
  }

  /** A response of `f` with its assertion signed by this IdP (or `keys`), as base64. */
  signed(f: ResponseFields, keys: KeyPair = this.keys): string {
    return b64(signAssertion(responseXml(f), keys));
  }
}
