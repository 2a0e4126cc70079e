/**
 * Authenticates the frames the server sends on one socket (docs/agent-protocol.md step 4 "Server
 * identity"): each frame is bound to the agent's connection nonce and its position (frames counted
 * from 0) and carries either an Ed25519 signature (`sig`) with the server key pinned at enrolment, or,
 * once a signed `welcome` delivered this socket's frame key, an HMAC-SHA256 (`mac`) under that key.
 * A frame with `mac` before the key, with neither member, or whose signature or MAC does not verify is
 * refused; after the key a correctly signed frame is still accepted (it is authentic).
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { serverFramePayload, serverFramePrefix, splitMacFrame, splitSignedFrame } from "@postern/shared";

/** Length of a frame key and of an HMAC-SHA256, bytes. */
const FRAME_KEY_BYTES = 32;

/**
 * Opens a welcome's `frameKey` (a base64 sealed box whose plaintext is the base64 of 32 bytes) with
 * `openSealed` (the agent's sealed-secret opener, secrets.ts) and returns the 32-byte key.
 * @throws Error when the box cannot be opened or does not hold 32 bytes of base64.
 */
export function openFrameKey(openSealed: (sealed: string) => string, sealed: string): Buffer {
  const text = openSealed(sealed);
  const key = Buffer.from(text, "base64");
  if (key.length !== FRAME_KEY_BYTES || key.toString("base64") !== text)
    throw new Error("the frame key is not 32 bytes of base64");
  return key;
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
  setKey(key: Buffer): void {
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
