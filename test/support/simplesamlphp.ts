/**
 * A real SAML identity provider for tests: SimpleSAMLphp from Debian served by PHP's built-in server
 * on loopback (docs/reference.md design "Testing with real parts").
 *
 * `startSimpleSamlPhp()` writes a temp config folder (named by SIMPLESAMLPHP_CONFIG_DIR):
 * `config.php` (baseurlpath `http://127.0.0.1:PORT/`, the SAML 2.0 IdP on, modules exampleauth/core/
 * saml, PHP sessions in the temp folder, flat-file metadata, cert/data/temp/log dirs in the temp
 * folder, a secret salt), `authsources.php` (an `exampleauth:UserPass` source with the given users and
 * their attributes), `metadata/saml20-idp-hosted.php` (`__DYNAMIC:1__`, a fresh test key and
 * certificate, NameID = the `uid` attribute, format unspecified; optionally requiring signed
 * AuthnRequests) and `metadata/saml20-sp-remote.php` (the given SPs: entity id, ACS URL, and the
 * certificate their requests are checked with); then runs `php -S 127.0.0.1:PORT -t
 * /usr/share/simplesamlphp/www` and waits (bounded, 15 s) until the IdP metadata answers at
 * `/saml2/idp/metadata.php`. `stop()` ends PHP by PID and removes the temp folder.
 *
 * `IdpBrowser` drives a sign-in without a browser: it follows redirects by hand with a cookie jar per
 * host, fills the login form, and returns the auto-submit form that carries the SAMLResponse.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeKeyPair } from "../../server/src/testing/saml.ts";
import { freePort } from "./haproxy.ts";
import { startProcess } from "./process.ts";

/** Where Debian installs SimpleSAMLphp's web root. */
export const SIMPLESAMLPHP_WWW = "/usr/share/simplesamlphp/www";
/** Whether SimpleSAMLphp and php-cli are installed. */
export const hasSimpleSamlPhp = existsSync(SIMPLESAMLPHP_WWW) && existsSync("/usr/bin/php");

/** A user of the IdP's exampleauth:UserPass source; `uid` becomes the NameID. */
export interface IdpUser {
  password: string;
  attributes: Record<string, string[]>;
}

/** A running SimpleSAMLphp IdP. */
export interface SimpleSamlPhp {
  readonly pid: number | undefined;
  readonly dir: string;
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly baseUrl: string;
  /** The IdP's entity id (= its metadata URL). */
  readonly entityId: string;
  /** The IdP metadata URL. */
  readonly metadataUrl: string;
  /** PHP's output so far (errors), for messages. */
  output(): string;
  /** Stops PHP by PID and removes the temp folder. Idempotent. */
  stop(): Promise<void>;
}

/** PHP single-quoted string literal. */
const php = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
const phpList = (values: readonly string[]) => `[${values.map(php).join(", ")}]`;

/**
 * Starts SimpleSAMLphp as an IdP for the given SPs (entity id and ACS URL) and users
 * (name → password and attributes; a `uid` attribute equal to the name is added when missing).
 */
export async function startSimpleSamlPhp(opts: {
  sps: readonly { entityId: string; acsUrl: string; certPem?: string }[];
  users: Record<string, IdpUser>;
  /** Require signed AuthnRequests (`validate.authnrequest`; WantAuthnRequestsSigned in the metadata), checked with each SP's `certPem`. */
  signedRequests?: boolean;
}): Promise<SimpleSamlPhp> {
  const dir = await mkdtemp(join(tmpdir(), "postern-ssp-"));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  for (const sub of ["metadata", "cert", "data", "tmp", "log", "sessions"]) await mkdir(join(dir, sub));
  const keys = await makeKeyPair("simplesamlphp.test");
  await writeFile(join(dir, "cert", "idp.key"), keys.keyPem, { mode: 0o600 });
  await writeFile(join(dir, "cert", "idp.crt"), keys.certPem);

  await writeFile(
    join(dir, "config.php"),
    `<?php
$config = [
  'baseurlpath' => ${php(`${baseUrl}/`)},
  'certdir' => ${php(join(dir, "cert") + "/")},
  'loggingdir' => ${php(join(dir, "log") + "/")},
  'datadir' => ${php(join(dir, "data") + "/")},
  'tempdir' => ${php(join(dir, "tmp"))},
  'metadatadir' => ${php(join(dir, "metadata") + "/")},
  'metadata.sources' => [['type' => 'flatfile', 'directory' => ${php(join(dir, "metadata"))}]],
  'secretsalt' => 'postern-test-salt-0123456789abcdef',
  'auth.adminpassword' => 'postern-test-admin',
  'technicalcontact_name' => 'Postern tests',
  'technicalcontact_email' => 'tests@example.test',
  'timezone' => 'UTC',
  'enable.saml20-idp' => true,
  'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => false],
  'store.type' => 'phpsession',
  'session.phpsession.savepath' => ${php(join(dir, "sessions"))},
  'session.cookie.secure' => false,
  'session.cookie.samesite' => null,
  'language.cookie.secure' => false,
  'logging.handler' => 'file',
  'logging.logfile' => 'simplesamlphp.log',
  'logging.level' => SimpleSAML\\Logger::INFO,
  'showerrors' => true,
  'errorreporting' => false,
  'admin.checkforupdates' => false,
];
`,
  );

  const users = Object.entries(opts.users)
    .map(([name, u]) => {
      const attributes = { uid: [name], ...u.attributes };
      return `  ${php(`${name}:${u.password}`)} => [${Object.entries(attributes)
        .map(([k, v]) => `${php(k)} => ${phpList(v)}`)
        .join(", ")}],`;
    })
    .join("\n");
  await writeFile(
    join(dir, "authsources.php"),
    `<?php\n$config = [\n 'admin' => ['core:AdminPassword'],\n 'example-userpass' => ['exampleauth:UserPass',\n${users}\n ],\n];\n`,
  );

  await writeFile(
    join(dir, "metadata", "saml20-idp-hosted.php"),
    `<?php
$metadata['__DYNAMIC:1__'] = [
  'host' => '__DEFAULT__',
  'privatekey' => 'idp.key',
  'certificate' => 'idp.crt',
  'auth' => 'example-userpass',
  'validate.authnrequest' => ${opts.signedRequests ? "true" : "false"},
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  'simplesaml.nameidattribute' => 'uid',
  'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
  'authproc' => [
    90 => ['class' => 'saml:AttributeNameID', 'attribute' => 'uid', 'Format' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
  ],
];
`,
  );
  const sps = opts.sps
    .map(
      (sp) => `$metadata[${php(sp.entityId)}] = [
  'AssertionConsumerService' => ${php(sp.acsUrl)},${sp.certPem ? `\n  'certData' => ${php(sp.certPem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ""))},` : ""}
  'NameIDFormat' => 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  'simplesaml.nameidattribute' => 'uid',
  'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
];`,
    )
    .join("\n");
  await writeFile(join(dir, "metadata", "saml20-sp-remote.php"), `<?php\n${sps}\n`);

  const proc = startProcess("php", ["-S", `127.0.0.1:${port}`, "-t", SIMPLESAMLPHP_WWW], {
    cwd: dir,
    env: { SIMPLESAMLPHP_CONFIG_DIR: dir },
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  });
  const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await fetch(metadataUrl, { signal: AbortSignal.timeout(2_000) })
      .then(async (r) => r.ok && (await r.text()).includes("EntityDescriptor"))
      .catch(() => false);
    if (ok) break;
    if (proc.exited() || Date.now() > deadline) {
      const out = proc.output();
      await proc.stop();
      throw new Error(`SimpleSAMLphp did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { pid: proc.pid, dir, baseUrl, entityId: metadataUrl, metadataUrl, output: proc.output, stop: proc.stop };
}

/** One HTML form: its action URL (absolute) and its inputs (name → value, entities decoded). */
export interface HtmlForm {
  action: string;
  fields: Record<string, string>;
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");

/** The first form of an HTML page (action resolved against `pageUrl`). Throws when there is none. */
export function parseForm(html: string, pageUrl: string): HtmlForm {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form)
    throw new Error(
      `no form in the page at ${pageUrl}: ${html
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .slice(0, 1500)}`,
    );
  const action = /\baction="([^"]*)"/i.exec(form[1] ?? "")?.[1] ?? "";
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? "").matchAll(/<input\b([^>]*)>/gi)) {
    const attrs = input[1] ?? "";
    const name = /\bname="([^"]*)"/i.exec(attrs)?.[1];
    if (name) fields[decode(name)] = decode(/\bvalue="([^"]*)"/i.exec(attrs)?.[1] ?? "");
  }
  return { action: new URL(decode(action) || pageUrl, pageUrl).toString(), fields };
}

/** A cookie-keeping client that follows redirects by hand (bounded) across hosts. */
export class IdpBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  private cookieHeader(url: string): string {
    const jar = this.jars.get(new URL(url).host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join("; ") : "";
  }

  private keep(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = (pair ?? "").indexOf("=");
      if (eq > 0) jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    this.jars.set(host, jar);
  }

  /** The cookie `name` this client holds for `url`'s host, if any. */
  cookie(url: string, name: string): string | undefined {
    return this.jars.get(new URL(url).host)?.get(name);
  }

  /**
   * Sends one request (no redirect following); a form body is sent urlencoded. `headers` are added
   * (e.g. Origin and Sec-Fetch-Site for a cross-site form post).
   */
  async send(
    method: string,
    url: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const cookie = this.cookieHeader(url);
    const res = await fetch(url, {
      method,
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    this.keep(url, res);
    return res;
  }

  /** GETs `url` and follows redirects (at most 10); returns the last response and its URL. */
  async follow(url: string, first?: Response): Promise<{ res: Response; url: string }> {
    let current = url;
    let res = first ?? (await this.send("GET", current));
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      const location = res.headers.get("location");
      if (!location) break;
      await res.body?.cancel();
      current = new URL(location, current).toString();
      res = await this.send("GET", current);
    }
    return { res, url: current };
  }
}
