/**
 * Test helpers for a real OpenLDAP `slapd` on loopback (docs/reference.md design "Testing with real parts").
 *
 * `startSlapd()` makes a temp dir holding a test CA and a server certificate (openssl CLI; the server
 * certificate names `IP:127.0.0.1` and `DNS:localhost` only), a `slapd.conf` (modulepath
 * /usr/lib/ldap, back_mdb, the core/cosine/inetorgperson schemas of /etc/ldap/schema, an mdb database
 * for `dc=example,dc=org` in the temp dir, rootdn/rootpw, TLS with that certificate), loads the LDIF
 * given with `slapadd`, and runs `slapd -d stats -f slapd.conf -h "<urls>"` in the foreground,
 * listening on:
 * - `ldap://127.0.0.1:<free port>/` (plain, StartTLS offered),
 * - `ldaps://127.0.0.1:<free port>/` and `ldaps://127.0.0.2:<that port>/` (same certificate, so a
 *   client that checks the host name must refuse the 127.0.0.2 one),
 * - `ldapi://<dir>/ldapi` (a Unix socket).
 * The stats log (stderr) is kept so tests can count BIND operations. `stop()` ends slapd by PID
 * (SIGTERM, SIGKILL after 5 s) and removes the temp dir.
 */
import { createConnection } from "node:net";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { startProcess } from "./process.ts";
import { freePort } from "./haproxy.ts";

/** The suffix of the test directory. */
export const SLAPD_SUFFIX = "dc=example,dc=org";
/** The directory manager (rootdn) and its password. */
export const SLAPD_ROOT_DN = `cn=admin,${SLAPD_SUFFIX}`;
/** Password of `SLAPD_ROOT_DN`. */
export const SLAPD_ROOT_PASSWORD = "root-secret";

/** A running slapd. */
export interface SlapdInstance {
  /** PID of slapd. */
  readonly pid: number;
  /** Temp directory: config, database, certificates, the ldapi socket. */
  readonly dir: string;
  /** `ldap://127.0.0.1:<port>` (plain; StartTLS offered). */
  readonly ldapUrl: string;
  /** `ldaps://127.0.0.1:<port>` (certificate valid for 127.0.0.1 and localhost). */
  readonly ldapsUrl: string;
  /** `ldaps://127.0.0.2:<port>`: same certificate, so the host name does not match. */
  readonly ldapsWrongHostUrl: string;
  /** `ldapi://<percent-encoded socket path>`. */
  readonly ldapiUrl: string;
  /** PEM of the test CA that signed the server certificate. */
  readonly caPem: string;
  /** The stats log so far (slapd's stderr, last 200 KB). */
  log(): string;
  /** Number of BIND operations slapd has logged so far. */
  bindCount(): number;
  /** Stops slapd by PID (SIGTERM, SIGKILL after 5 s) and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** Options of `startSlapd`. */
export interface StartSlapdOptions {
  /** LDIF entries below the suffix, loaded with slapadd after the suffix and `ou=people` entries. */
  readonly ldif?: string;
}

/** PATH with the sbin folders, where Debian installs slapd and slapadd. */
const PATH = `${process.env.PATH ?? ""}:/usr/sbin:/sbin`;

/** True when `slapd`, `slapadd` and `openssl` are installed (tests skip cleanly otherwise). */
export async function haveSlapd(): Promise<boolean> {
  const r = await execa("sh", ["-c", "command -v slapd && command -v slapadd && command -v openssl"], {
    reject: false,
    env: { PATH },
  });
  return r.exitCode === 0;
}

/** Runs openssl with `args` in `cwd` (bounded: 30 s). @throws Error with openssl's stderr. */
async function openssl(cwd: string, args: string[]): Promise<void> {
  const r = await execa("openssl", args, { cwd, reject: false, timeout: 30_000 });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0] ?? ""} failed: ${r.stderr}`);
}

/** Makes ca.pem/ca.key and server.pem/server.key (EC P-256, 1 day) in `dir`. Returns the CA PEM. */
async function makeCertificates(dir: string): Promise<string> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  await openssl(dir, [
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=Postern Test LDAP CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  await openssl(dir, ["req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]);
  await writeFile(
    join(dir, "server.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n",
  );
  await openssl(dir, [
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "server.pem",
    "-days",
    "1",
    "-extfile",
    "server.ext",
  ]);
  return readFile(join(dir, "ca.pem"), "utf8");
}

/** Resolves when a TCP (or Unix socket) connection to `target` succeeds. */
function canConnect(target: { host: string; port: number } | { path: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(target, () => {
      s.destroy();
      resolve(true);
    });
    s.setTimeout(1_000, () => {
      s.destroy();
      resolve(false);
    });
    s.on("error", () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts slapd as described in the module documentation and resolves once every listener accepts
 * connections (bounded: 15 s).
 * @throws Error when slapadd refuses the LDIF or slapd does not come up (its log included).
 */
export async function startSlapd(options: StartSlapdOptions = {}): Promise<SlapdInstance> {
  const dir = await mkdtemp(join(tmpdir(), `postern-slapd-${process.pid}-`));
  let stopFn: (() => Promise<void>) | null = null;
  try {
    const caPem = await makeCertificates(dir);
    await mkdir(join(dir, "db"));
    const conf = join(dir, "slapd.conf");
    await writeFile(
      conf,
      [
        "include /etc/ldap/schema/core.schema",
        "include /etc/ldap/schema/cosine.schema",
        "include /etc/ldap/schema/inetorgperson.schema",
        "modulepath /usr/lib/ldap",
        "moduleload back_mdb",
        `pidfile ${join(dir, "slapd.pid")}`,
        `argsfile ${join(dir, "slapd.args")}`,
        `TLSCACertificateFile ${join(dir, "ca.pem")}`,
        `TLSCertificateFile ${join(dir, "server.pem")}`,
        `TLSCertificateKeyFile ${join(dir, "server.key")}`,
        "database mdb",
        `suffix "${SLAPD_SUFFIX}"`,
        `rootdn "${SLAPD_ROOT_DN}"`,
        `rootpw ${SLAPD_ROOT_PASSWORD}`,
        `directory ${join(dir, "db")}`,
        "maxsize 10485760",
        "",
      ].join("\n"),
    );
    const base = [
      `dn: ${SLAPD_SUFFIX}`,
      "objectClass: dcObject",
      "objectClass: organization",
      "dc: example",
      "o: Example",
      "",
      `dn: ou=people,${SLAPD_SUFFIX}`,
      "objectClass: organizationalUnit",
      "ou: people",
      "",
    ].join("\n");
    await writeFile(join(dir, "data.ldif"), `${base}\n${options.ldif ?? ""}\n`);
    const added = await execa("slapadd", ["-f", conf, "-l", join(dir, "data.ldif")], {
      reject: false,
      timeout: 30_000,
      env: { PATH },
    });
    if (added.exitCode !== 0) throw new Error(`slapadd failed: ${added.stderr}`);

    const [ldapPort, ldapsPort] = [await freePort(), await freePort()];
    const socketPath = join(dir, "ldapi");
    const ldapUrl = `ldap://127.0.0.1:${ldapPort}`;
    const ldapsUrl = `ldaps://127.0.0.1:${ldapsPort}`;
    const ldapsWrongHostUrl = `ldaps://127.0.0.2:${ldapsPort}`;
    const ldapiUrl = `ldapi://${encodeURIComponent(socketPath)}`;
    const urls = `${ldapUrl}/ ${ldapsUrl}/ ${ldapsWrongHostUrl}/ ${ldapiUrl}`;
    const proc = startProcess("slapd", ["-d", "stats", "-f", conf, "-h", urls], {
      cwd: dir,
      env: { PATH },
      keepBytes: 200_000,
      cleanUp: () => rm(dir, { recursive: true, force: true }),
    });
    const pid = proc.pid;
    const stop = proc.stop;
    stopFn = stop;
    if (pid === undefined) throw new Error("slapd did not start");

    const deadline = Date.now() + 15_000;
    for (;;) {
      if (proc.exited()) throw new Error(`slapd exited:\n${proc.output()}`);
      const up = await Promise.all([
        canConnect({ host: "127.0.0.1", port: ldapPort }),
        canConnect({ host: "127.0.0.1", port: ldapsPort }),
        canConnect({ host: "127.0.0.2", port: ldapsPort }),
        canConnect({ path: socketPath }),
      ]);
      if (up.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error(`slapd did not listen within 15 s:\n${proc.output()}`);
      await sleep(50);
    }
    return {
      pid,
      dir,
      ldapUrl,
      ldapsUrl,
      ldapsWrongHostUrl,
      ldapiUrl,
      caPem,
      log: () => proc.output(),
      bindCount: () => (proc.output().match(/ BIND dn="[^\n]*" method=/g) ?? []).length,
      stop,
    };
  } catch (e) {
    if (stopFn) await stopFn();
    else await rm(dir, { recursive: true, force: true });
    throw e;
  }
}
