/**
 * The authentication tabs' forms (docs/reference.md admin-console §3 "Authentication settings", §5 "SAML metadata
 * URL, admin SAML metadata URL and PublicURL http or https; LDAP URL ldap, ldaps, ldapi or
 * cldap"): each tab's fields of the shared AuthenticationUpdateSchema, all required, and its stored
 * values. Uploaded files start empty (empty keeps the stored file) with their Remove flags off.
 */
import { AuthenticationUpdateSchema } from "@postern/shared";
import { z } from "zod";
import type { AuthenticationSettings, AuthenticationUpdate } from "@postern/shared";
import { uploadValue } from "./settings-form.ts";

/** The SAML tab: for users and (Admin prefix) admins, metadata URL or file, key and certificate; PublicURL. */
export const SamlSchema = AuthenticationUpdateSchema.pick({
  SAMLMetadataURL: true,
  SAMLMetadataFile: true,
  SAMLKeyFile: true,
  SAMLCertFile: true,
  RemoveSAMLMetadataFile: true,
  RemoveSAMLKeyFile: true,
  RemoveSAMLCertFile: true,
  AdminSAMLMetadataURL: true,
  AdminSAMLMetadataFile: true,
  AdminSAMLKeyFile: true,
  AdminSAMLCertFile: true,
  RemoveAdminSAMLMetadataFile: true,
  RemoveAdminSAMLKeyFile: true,
  RemoveAdminSAMLCertFile: true,
  PublicURL: true,
}).required();
/** The SAML tab's values. */
export type SamlValues = z.input<typeof SamlSchema>;

/** The LDAP tab: the directory's URL, its TLS options and CA certificate (chosen file or Remove). */
export const LdapSchema = AuthenticationUpdateSchema.pick({
  LDAPURL: true,
  LDAPStartTLS: true,
  LDAPSkipVerifyTLS: true,
  LDAPCACertificate: true,
})
  .required()
  .extend({ RemoveLDAPCACertificate: z.boolean() });
/** The LDAP tab's values. */
export type LdapValues = z.input<typeof LdapSchema>;

/** The stored values of the SAML tab (files empty: nothing uploaded yet). */
export function storedSaml(s: AuthenticationSettings): SamlValues {
  return {
    SAMLMetadataURL: s.SAMLMetadataURL,
    SAMLMetadataFile: "",
    SAMLKeyFile: "",
    SAMLCertFile: "",
    RemoveSAMLMetadataFile: false,
    RemoveSAMLKeyFile: false,
    RemoveSAMLCertFile: false,
    AdminSAMLMetadataURL: s.AdminSAMLMetadataURL,
    AdminSAMLMetadataFile: "",
    AdminSAMLKeyFile: "",
    AdminSAMLCertFile: "",
    RemoveAdminSAMLMetadataFile: false,
    RemoveAdminSAMLKeyFile: false,
    RemoveAdminSAMLCertFile: false,
    PublicURL: s.PublicURL,
  };
}

/** The stored values of the LDAP tab. */
export function storedLdap(s: AuthenticationSettings): LdapValues {
  return {
    LDAPURL: s.LDAPURL,
    LDAPStartTLS: s.LDAPStartTLS,
    LDAPSkipVerifyTLS: s.LDAPSkipVerifyTLS,
    LDAPCACertificate: "",
    RemoveLDAPCACertificate: false,
  };
}

/** The authentication body of the LDAP tab's values: the CA certificate only when chosen or removed. */
export function ldapBody(values: z.output<typeof LdapSchema>): AuthenticationUpdate {
  const { LDAPCACertificate, RemoveLDAPCACertificate, ...rest } = values;
  const ca = uploadValue(LDAPCACertificate, RemoveLDAPCACertificate);
  return ca === undefined ? rest : { ...rest, LDAPCACertificate: ca };
}
