/**
 * Test fixtures for backends and ACLs: agents enrolled with a real X25519 box key pair (libsodium)
 * and given version and capabilities, opening sealed values with the agent's secret key, and an
 * admin-authenticated request helper over the in-process app.
 */
import sodium from "libsodium-wrappers";
import type { AgentCapabilities } from "@postern/shared";
import type { Harness } from "./harness.ts";

await sodium.ready;

/** An agent box key pair: the public key as enrolment sends it (base64 raw 32 bytes) and the secret key. */
export interface BoxKeys {
  publicKey: string;
  secretKey: Uint8Array;
}

/** Generates an X25519 box key pair as an agent would. */
export function boxKeyPair(): BoxKeys {
  const kp = sodium.crypto_box_keypair();
  return { publicKey: Buffer.from(kp.publicKey).toString("base64"), secretKey: kp.privateKey };
}

/** Opens a sealed value (base64) with the agent's keys; throws when it was not sealed to them. */
export function openSealed(sealed: string, keys: BoxKeys): string {
  const pk = Buffer.from(keys.publicKey, "base64");
  return sodium.to_string(sodium.crypto_box_seal_open(Buffer.from(sealed, "base64"), pk, keys.secretKey));
}

const actor = { adminName: "test-admin", ip: "127.0.0.1" };

/** Every capability a 1.9.0 agent can report: ipset with command and sudo, script enabled, haproxy. */
export const ALL_CAPABILITIES: AgentCapabilities = {
  ipset: { ipsets: [], command_available: true, sudo_enabled: true },
  script: { enabled: true },
  haproxy: { socket_location: "/var/run/haproxy.sock" },
};

/**
 * Creates an agent and, unless `enrol` is false (never connected), enrols it through
 * `services.agents.enrol` with a fresh box key pair, the given version (default 1.9.0) and
 * capabilities (default `ALL_CAPABILITIES`).
 */
export async function makeAgent(
  h: Harness,
  name: string,
  opts: { version?: string; capabilities?: AgentCapabilities; enrol?: boolean } = {},
): Promise<{ id: string; keys: BoxKeys }> {
  const agent = await h.services.agents.create(name, "http://127.0.0.1:8080", actor);
  const keys = boxKeyPair();
  if (opts.enrol !== false) {
    await h.services.agents.enrol(
      {
        Token: agent.Token,
        SigningPublicKey: "test",
        BoxPublicKey: keys.publicKey,
        Version: opts.version ?? "1.9.0",
        Capabilities: opts.capabilities ?? ALL_CAPABILITIES,
      },
      "127.0.0.1",
    );
  }
  return { id: agent.ID, keys };
}

/** The response of `AdminClient.req`: status and parsed JSON body (null when empty). */
export interface Reply {
  status: number;
  body: unknown;
}

/** Requests as a signed-in admin against the harness's app. */
export interface AdminClient {
  req(method: string, path: string, body?: unknown): Promise<Reply>;
}

/** Creates a local admin, signs in, and returns a client that sends its cookie on every request. */
export async function adminClient(h: Harness): Promise<AdminClient> {
  const env = { incoming: { socket: { remoteAddress: "203.0.113.5", remotePort: 40000, remoteFamily: "IPv4" } } };
  const send = async (method: string, path: string, body: unknown, cookie: string) => {
    const res = await h.app.request(
      `http://postern.test${path}`,
      {
        method,
        headers: {
          host: "postern.test",
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...(cookie ? { cookie } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      env,
    );
    const text = await res.text();
    return { res, reply: { status: res.status, body: text ? (JSON.parse(text) as unknown) : null } };
  };
  await h.services.adminSessions.createLocalAdmin({ userName: "root", name: "Root", password: "root-password" });
  const login = await send("POST", "/api/admin/login", { UserName: "root", Password: "root-password" }, "");
  const cookie = (login.res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  if (login.reply.status !== 204 || !cookie) throw new Error(`admin login failed: ${login.reply.status}`);
  return { req: async (method, path, body) => (await send(method, path, body, cookie)).reply };
}
