/**
 * The samlify service provider and identity provider of one audience (docs/reference.md admin-console §3
 * "Authentication settings": SAML for users and admins separately), built from the settings:
 * PublicURL, the IdP metadata, and the SP key and certificate. docs/reference.md design "Security": samlify with a
 * real XML schema validator (schema-validator.ts, installed once here), and no SAML at all without an
 * IdP signing certificate.
 *
 * - SP entity id `<PublicURL>/api/saml/metadata` (admins `<PublicURL>/api/admin/saml/metadata`),
 *   assertion consumer service `<PublicURL>/api/saml/acs` (admins `/api/admin/saml/acs`), HTTP-POST.
 * - AuthnRequests go by HTTP-Redirect; they are signed exactly when the IdP's metadata says
 *   WantAuthnRequestsSigned (samlify requires both sides to agree), which then needs the SP key.
 * - The SP asks for signed assertions (WantAssertionsSigned) and the unspecified NameID format.
 */
import { X509Certificate } from "node:crypto";
import * as samlify from "samlify";
import type { IdentityProviderInstance, ServiceProviderInstance } from "samlify";
import type { SamlAudience } from "../admin-settings.ts";
import { notConfigured } from "./errors.ts";
import { samlSchemaValidator } from "./schema-validator.ts";

samlify.setSchemaValidator(samlSchemaValidator);

/** Clock skew tolerated on NotBefore / NotOnOrAfter, in milliseconds (60 seconds). */
export const SAML_CLOCK_SKEW_MS = 60_000;
/** The NameID format the SP asks for: the IdP chooses; transient ids are refused at the ACS. */
export const NAMEID_UNSPECIFIED = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";

const BINDING = samlify.Constants.namespace.binding;

/** The SP's own URLs for an audience: entity id (= metadata URL) and assertion consumer service. */
export function spUrls(publicUrl: string, audience: SamlAudience): { entityId: string; acsUrl: string } {
  const base = `${publicUrl.replace(/\/+$/, "")}/api${audience === "admin" ? "/admin" : ""}/saml`;
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs` };
}

/** What an audience's SAML is built from (settings; the key is the opened PEM). */
export interface SamlInputs {
  audience: SamlAudience;
  /** The PublicURL setting (must be http or https). */
  publicUrl: string;
  /** The IdP metadata XML (one EntityDescriptor with an IDPSSODescriptor). */
  idpMetadataXml: string;
  /** The SP private key PEM, or "". */
  spKeyPem: string;
  /** The SP certificate PEM, or "". */
  spCertPem: string;
}

/** A usable SAML set-up of one audience. */
export interface SamlSetup {
  audience: SamlAudience;
  sp: ServiceProviderInstance;
  idp: IdentityProviderInstance;
  /** The SP entity id: the audience every assertion must name. */
  spEntityId: string;
  /** The assertion consumer service URL: the Recipient and Destination every response must name. */
  acsUrl: string;
  /** The IdP entity id: the Issuer every assertion must name. */
  idpEntityId: string;
  /** The IdP's signing certificates (base64 DER), at least one. */
  idpSigningCerts: string[];
}

function certList(value: unknown): string[] {
  const flat = (Array.isArray(value) ? value.flat(3) : [value]).filter((v): v is string => typeof v === "string");
  return flat.map((c) => c.replace(/\s+/g, "")).filter((c) => c !== "");
}

/**
 * Builds the SP and IdP of an audience. Throws SamlError "SAML not configured" (with the reason)
 * when PublicURL is missing or not http(s), the IdP metadata is unreadable, has no entity id, no
 * valid signing certificate or no HTTP-Redirect SSO endpoint, or the IdP wants signed requests and
 * no SP key and certificate are set.
 */
export function buildSetup(inputs: SamlInputs): SamlSetup {
  const base = URL.parse(inputs.publicUrl);
  if (!inputs.publicUrl || !base || (base.protocol !== "http:" && base.protocol !== "https:"))
    throw notConfigured("PublicURL is not set");
  const xml = inputs.idpMetadataXml.trim();
  if (!xml) throw notConfigured("no IdP metadata (file or URL)");
  let idp: IdentityProviderInstance;
  try {
    idp = samlify.IdentityProvider({ metadata: xml });
  } catch {
    throw notConfigured("IdP metadata is not readable");
  }
  const idpEntityId = idp.entityMeta.getEntityID() as unknown;
  if (typeof idpEntityId !== "string" || idpEntityId === "")
    throw notConfigured("IdP metadata has no single EntityDescriptor with an entityID");
  const idpSigningCerts = certList(idp.entityMeta.getX509Certificate("signing"));
  if (idpSigningCerts.length === 0) throw notConfigured("IdP metadata has no signing certificate");
  for (const cert of idpSigningCerts) {
    try {
      new X509Certificate(Buffer.from(cert, "base64"));
    } catch {
      throw notConfigured("IdP metadata has an unreadable signing certificate");
    }
  }
  const sso = idp.entityMeta.getSingleSignOnService("redirect") as unknown;
  if (typeof sso !== "string" || !/^https?:\/\//i.test(sso))
    throw notConfigured("IdP metadata has no HTTP-Redirect single sign-on service");
  const signRequests = idp.entityMeta.isWantAuthnRequestsSigned();
  if (signRequests && (!inputs.spKeyPem || !inputs.spCertPem))
    throw notConfigured("the IdP wants signed requests: set the SP key and certificate");
  const { entityId, acsUrl } = spUrls(inputs.publicUrl, inputs.audience);
  const sp = samlify.ServiceProvider({
    entityID: entityId,
    assertionConsumerService: [{ Binding: BINDING.post, Location: acsUrl }],
    authnRequestsSigned: signRequests,
    wantAssertionsSigned: true,
    wantMessageSigned: false,
    nameIDFormat: [NAMEID_UNSPECIFIED],
    clockDrifts: [-SAML_CLOCK_SKEW_MS, SAML_CLOCK_SKEW_MS],
    ...(inputs.spKeyPem ? { privateKey: inputs.spKeyPem } : {}),
    ...(inputs.spCertPem ? { signingCert: inputs.spCertPem } : {}),
  });
  return { audience: inputs.audience, sp, idp, spEntityId: entityId, acsUrl, idpEntityId, idpSigningCerts };
}
