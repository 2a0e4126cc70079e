/**
 * Authenticates the frames the server sends on one socket (docs/agent-protocol.md step 4 "Server
 * identity"): each frame is bound to the agent's connection nonce and its position (frames counted
 * from 0) and carries either an Ed25519 signature (`sig`) with the server key pinned at enrolment, or,
 * once a signed `welcome` delivered this socket's key share, an HMAC-SHA256 (`mac`) under the frame key
 * derived from it (frameKeyDeriver: X25519 with the agent's box key, then HKDF; node:crypto, no libsodium).
 * A frame with `mac` before the key, with neither member, or whose signature or MAC does not verify is
 * refused; after the key a correctly signed frame is still accepted (it is authentic).
 */
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  diffieHellman,
  hkdfSync,
  timingSafeEqual,
  verify,
} from "node:crypto";
import type { KeyObject } from "node:crypto";
import {
  deriveFrameKey,
  FRAME_KEY_BYTES,
  serverFramePayload,
  serverFramePrefix,
  splitMacFrame,
  splitSignedFrame,
} from "@postern/shared";

/** Canonical base64 of 32 bytes (a raw X25519 public key). */
const KEY_SHARE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Derives this agent's frame key of a socket from the welcome's `frameKeyShare` (docs/agent-protocol.md
 * step 4 "MAC'd frames"): `(agentNonce, share)` → the 32-byte key; the same as the server's
 * (deriveFrameKey). Throws Error when the share is not base64 of 32 bytes or the X25519 agreement fails
 * (node refuses a low-order point).
 */
export type FrameKeyDeriver = (agentNonce: string, share: string) => Uint8Array;

/**
 * The agent's frame key deriver for its box key pair (`boxPublicKey`, `boxSecretKey`: base64 of the raw
 * 32-byte X25519 keys, as in the agent config). node:crypto only (no libsodium): the secret key is
 * imported once here, as a KeyObject.
 * @throws Error when the keys are not a usable X25519 pair.
 */
export function frameKeyDeriver(boxPublicKey: string, boxSecretKey: string): FrameKeyDeriver {
  const privateKey = createPrivateKey({
    key: { kty: "OKP", crv: "X25519", d: base64url(boxSecretKey), x: base64url(boxPublicKey) },
    format: "jwk",
  });
  return (agentNonce, share) => {
    if (!KEY_SHARE.test(share) || Buffer.from(share, "base64").length !== FRAME_KEY_BYTES)
      throw new Error("the frame key share is not 32 bytes of base64");
    const publicKey = createPublicKey({ key: { kty: "OKP", crv: "X25519", x: base64url(share) }, format: "jwk" });
    return deriveFrameKey(hkdfSync, diffieHellman({ privateKey, publicKey }), agentNonce, share, boxPublicKey);
  };
}

/** base64 → base64url (JWK members). */
function base64url(b64: string): string {
  return Buffer.from(b64, "base64").toString("base64url");
}

/** The frame verifier of one socket: create one per connection (the frame counter starts at 0). */
export class FrameVerifier {
  private frame = 0;
  /** A KeyObject, not the Buffer: createHmac imports a raw key on every call (measured ~25 µs against ~3). */
  private macKey: KeyObject | undefined;
  private readonly agentNonce: string;
  private readonly serverKey: KeyObject;

  /**
   * @param agentNonce the connection nonce this agent sent in the URL.
   * @param serverKey the server's Ed25519 public key pinned at enrolment.
   */
  constructor(agentNonce: string, serverKey: KeyObject) {
    this.agentNonce = agentNonce;
    this.serverKey = serverKey;
  }

  /** True once a frame key was set: MAC'd frames are accepted from then on. */
  get hasKey(): boolean {
    return this.macKey !== undefined;
  }

  /** Accepts frames MAC'd with `key` (32 bytes) from the next frame on. @throws Error when a key is set already or `key` is not 32 bytes. */
  setKey(key: Uint8Array): void {
    if (this.macKey) throw new Error("a frame key was set already on this socket");
    if (key.length !== FRAME_KEY_BYTES) throw new Error("a frame key is 32 bytes");
    this.macKey = createSecretKey(key);
  }

  /**
   * Checks the next frame (counts it, whether or not it verifies). Returns the frame's JSON text
   * without its `mac` or `sig` member, or null when the frame is not authentic.
   */
  verify(text: string): string | null {
    const frame = this.frame++;
    const maced = splitMacFrame(text);
    if (maced) {
      if (!this.macKey) return null;
      const expected = createHmac("sha256", this.macKey)
        .update(serverFramePrefix(this.agentNonce, frame), "utf8")
        .update(maced.body, "utf8")
        .digest();
      const given = Buffer.from(maced.mac, "base64");
      return given.length === expected.length && timingSafeEqual(given, expected) ? maced.body : null;
    }
    const signed = splitSignedFrame(text);
    if (!signed) return null;
    const digest = createHash("sha256").update(signed.body, "utf8").digest("hex");
    const payload = Buffer.from(serverFramePayload(this.agentNonce, frame, digest), "utf8");
    return verify(null, payload, this.serverKey, Buffer.from(signed.signature, "base64")) ? signed.body : null;
  }
}
