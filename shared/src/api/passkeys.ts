/**
 * Passkeys (WebAuthn) as a second factor beside TOTP, for users (not SAML or API-key users) and admins
 * (issue #14 item 2; docs/reference.md user-portal §7 and admin-console §7 "Passkeys"; docs/decisions.md
 * "Passkeys"). The WebAuthn options and answers travel as the JSON shapes of the browser's
 * `PublicKeyCredential` (what @simplewebauthn/browser produces and takes); the server checks them.
 */
import { z } from "zod";

/** Longest passkey name, in characters. */
export const PASSKEY_NAME_MAX_LENGTH = 64;
/** Longest credential id the server reads (base64url characters; WebAuthn allows 1023 bytes). */
const CREDENTIAL_ID_MAX_LENGTH = 1400;

/** A passkey's name: 1 to 64 characters after trimming. */
export const PasskeyNameSchema = z
  .string()
  .trim()
  .min(1, { message: "Name is required" })
  .max(PASSKEY_NAME_MAX_LENGTH, { message: `Must be at most ${PASSKEY_NAME_MAX_LENGTH} characters` });

/** One enrolled passkey as its owner sees it. Times ISO 8601 UTC; `LastUsed` null until first used. */
export const PasskeySchema = z.object({
  ID: z.string(),
  Name: z.string(),
  Created: z.string(),
  LastUsed: z.string().nullable(),
});
/** One enrolled passkey. */
export type Passkey = z.infer<typeof PasskeySchema>;

/** GET /api/otp/passkeys and GET /api/admin/otp/passkeys response. */
export const PasskeyListSchema = z.array(PasskeySchema);

/**
 * WebAuthn options for the browser (`PublicKeyCredentialCreationOptionsJSON` for registration,
 * `PublicKeyCredentialRequestOptionsJSON` for authentication), passed on as they are.
 */
export const WebAuthnOptionsSchema = z.record(z.string(), z.unknown());

/** POST /api/otp/passkeys/registration/options response: the options for `navigator.credentials.create`. */
export const PasskeyRegistrationOptionsResponseSchema = z.object({ Options: WebAuthnOptionsSchema });
/** POST /api/otp/passkeys/registration/options response. */
export type PasskeyRegistrationOptionsResponse = z.infer<typeof PasskeyRegistrationOptionsResponseSchema>;

/** A `PublicKeyCredential` as JSON (RegistrationResponseJSON / AuthenticationResponseJSON). */
export const WebAuthnCredentialSchema = z.looseObject({
  id: z.string().min(1).max(CREDENTIAL_ID_MAX_LENGTH),
  rawId: z.string().min(1).max(CREDENTIAL_ID_MAX_LENGTH),
  type: z.literal("public-key"),
  response: z.record(z.string(), z.unknown()),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().optional(),
});

/** POST /api/otp/passkeys/registration body: the passkey's name and the browser's answer. */
export const PasskeyRegistrationRequestSchema = z.object({
  Name: PasskeyNameSchema,
  Response: WebAuthnCredentialSchema,
});
/** POST /api/otp/passkeys/registration body. */
export type PasskeyRegistrationRequest = z.infer<typeof PasskeyRegistrationRequestSchema>;

/**
 * POST /api/otp/passkeys/authentication/options response: the options for `navigator.credentials.get`,
 * or null when the account has no passkey (no challenge is then handed out), and whether the account
 * can give a TOTP code instead (`Totp`: an enrolled secret).
 */
export const PasskeyAuthenticationOptionsResponseSchema = z.object({
  Options: WebAuthnOptionsSchema.nullable(),
  Totp: z.boolean(),
});
/** POST /api/otp/passkeys/authentication/options response. */
export type PasskeyAuthenticationOptionsResponse = z.infer<typeof PasskeyAuthenticationOptionsResponseSchema>;

/** POST /api/otp/passkeys/authentication body: the browser's answer. */
export const PasskeyAuthenticationRequestSchema = z.object({ Response: WebAuthnCredentialSchema });
/** POST /api/otp/passkeys/authentication body. */
export type PasskeyAuthenticationRequest = z.infer<typeof PasskeyAuthenticationRequestSchema>;
