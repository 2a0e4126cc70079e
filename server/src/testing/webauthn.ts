/**
 * A software WebAuthn authenticator for route tests: one P-256 (ES256) credential answering
 * registration (attestation "none") and authentication ceremonies as a browser would hand them to the
 * server (RegistrationResponseJSON / AuthenticationResponseJSON), so the server's checks run for real
 * without a browser. WebAuthn Level 2 §6.1 (authenticator data), §8.7 (none attestation).
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const b64url = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

/** Flags of the authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/** One software credential: `origin` and `rpId` are the ones the browser would put in (e.g. "http://postern.test", "postern.test"). */
export class SoftAuthenticator {
  readonly credentialId: Buffer = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  /** The signature counter; raised by every assertion (set it back to replay an old counter). */
  counter = 0;

  /** The origin the browser would report, e.g. "http://postern.test". */
  readonly origin: string;
  /** The relying party id, e.g. "postern.test". */
  readonly rpId: string;

  constructor(origin: string, rpId: string) {
    this.origin = origin;
    this.rpId = rpId;
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.publicJwk = { x: jwk.x!, y: jwk.y! };
  }

  /** The credential id as base64url (the `id` of every answer). */
  get id(): string {
    return b64url(this.credentialId);
  }

  /** The registration answer to options carrying `challenge` (base64url). */
  register(challenge: string, opts: { origin?: string } = {}): Record<string, unknown> {
    const clientDataJSON = this.clientData("webauthn.create", challenge, opts.origin);
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(this.publicJwk.x, "base64url")],
      [-3, Buffer.from(this.publicJwk.y, "base64url")],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.authDataHead(UP | UV | AT),
      Buffer.alloc(16), // AAGUID
      idLength,
      this.credentialId,
      Buffer.from(isoCBOR.encode(cose)),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, never> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, never>()],
        ["authData", new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  /** The authentication answer to options carrying `challenge` (base64url); raises the counter first. */
  authenticate(challenge: string, opts: { origin?: string; keepCounter?: boolean } = {}): Record<string, unknown> {
    if (!opts.keepCounter) this.counter++;
    const clientDataJSON = this.clientData("webauthn.get", challenge, opts.origin);
    const authenticatorData = this.authDataHead(UP | UV);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** RP id hash, flags and the big-endian counter. */
  private authDataHead(flags: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter]);
  }
}
