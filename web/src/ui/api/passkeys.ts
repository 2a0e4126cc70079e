/**
 * Passkey calls of both apps (docs/reference.md user-portal §7 and admin-console §7 "Passkeys"): users under
 * /api/otp/passkeys, admins under /api/admin/otp/passkeys. The WebAuthn ceremonies run in the browser
 * through @simplewebauthn/browser; a ceremony the user cancels rejects with its DOMException-based
 * error (see `isPasskeyCancel`).
 */
import { startAuthentication, startRegistration, WebAuthnError } from "@simplewebauthn/browser";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import type {
  Passkey,
  PasskeyAuthenticationOptionsResponse,
  PasskeyRegistrationOptionsResponse,
} from "@postern/shared";
import { apiRequest } from "./client.ts";

/** Whose passkeys: the user's (portal) or the admin's (admin console). */
export type PasskeyAudience = "user" | "admin";

const base = (audience: PasskeyAudience) => (audience === "admin" ? "/admin/otp/passkeys" : "/otp/passkeys");

/** GET …/otp/passkeys: the signed-in account's passkeys, oldest first. */
export async function listPasskeys(audience: PasskeyAudience): Promise<Passkey[]> {
  return (await apiRequest<Passkey[] | undefined>("GET", base(audience))) ?? [];
}

/**
 * Enrols a passkey named `name`: registration options, the browser's ceremony, then POST
 * …/registration. Resolves with the new passkey; rejects with ApiError or the browser's error.
 */
export async function enrolPasskey(audience: PasskeyAudience, name: string): Promise<Passkey> {
  const { Options } = await apiRequest<PasskeyRegistrationOptionsResponse>(
    "POST",
    `${base(audience)}/registration/options`,
    {
      body: {},
    },
  );
  const response = await startRegistration({
    optionsJSON: Options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  return await apiRequest<Passkey>("POST", `${base(audience)}/registration`, {
    body: { Name: name, Response: response },
  });
}

/** DELETE …/otp/passkeys/{id}. */
export async function removePasskey(audience: PasskeyAudience, id: string): Promise<void> {
  await apiRequest("DELETE", `${base(audience)}/${encodeURIComponent(id)}`);
}

/** POST …/authentication/options on a sign-in owing its second factor: `{Options (null: no passkey), Totp}`. */
export async function passkeySignInOptions(audience: PasskeyAudience): Promise<PasskeyAuthenticationOptionsResponse> {
  return await apiRequest<PasskeyAuthenticationOptionsResponse>("POST", `${base(audience)}/authentication/options`, {
    body: {},
    redirectOnInvalidSession: false,
  });
}

/**
 * Answers the second factor with a passkey: the browser's ceremony on `options` (from
 * `passkeySignInOptions`), then POST …/authentication, which completes the sign-in.
 */
export async function signInWithPasskey(audience: PasskeyAudience, options: Record<string, unknown>): Promise<void> {
  const response = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  await apiRequest("POST", `${base(audience)}/authentication`, {
    body: { Response: response },
    redirectOnInvalidSession: false,
  });
}

/** Whether a ceremony failed because the user cancelled it or it timed out (no server call was made). */
export function isPasskeyCancel(failure: unknown): boolean {
  return (
    (failure instanceof WebAuthnError && failure.code === "ERROR_CEREMONY_ABORTED") ||
    (failure instanceof Error && failure.name === "NotAllowedError")
  );
}
