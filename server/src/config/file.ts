/**
 * The server's configuration file (`/etc/postern/server.toml` in the packages; `--config FILE` or
 * POSTERN_CONFIG name it). TOML, parsed by smol-toml. Each key stands for one POSTERN_* environment
 * variable (table `FILE_KEYS`); the environment overrides the file. The file is turned into the
 * variables' string form here, and the one schema in `index.ts` validates both sources, so a rule is
 * written once. Documented in docs/install.md "Configuration".
 *
 * ```toml
 * data_dir = "/var/lib/postern"
 * listen = "0.0.0.0:443"
 * log_level = "info"
 * trusted_proxies = ["10.0.0.5"]
 * license_public_keys = []
 * agent_token_hours = 24
 *
 * [tls]
 * mode = "self-signed"        # "off", "self-signed", or leave it out and give cert + key
 * cert = "/etc/postern/tls/cert.pem"
 * key = "/etc/postern/tls/key.pem"
 *
 * [discovery]
 * ports = [222, 3389]
 * tls_cert = "/etc/postern/tls/cert.pem"
 * tls_key = "/etc/postern/tls/key.pem"
 *
 * [metrics]
 * token = "a long random string"
 * ```
 */
import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";

/** What a file key holds: a string, a number, or a list of strings or numbers (joined with commas). */
type ValueKind = "string" | "number" | "list";

/** File key (dotted for tables) → the environment variable it stands for and the kind of its value. */
export const FILE_KEYS: Readonly<Record<string, { env: string; kind: ValueKind }>> = {
  data_dir: { env: "POSTERN_DATA_DIR", kind: "string" },
  database_url: { env: "POSTERN_DATABASE_URL", kind: "string" },
  listen: { env: "POSTERN_LISTEN", kind: "string" },
  log_level: { env: "POSTERN_LOG_LEVEL", kind: "string" },
  trusted_proxies: { env: "POSTERN_TRUSTED_PROXIES", kind: "list" },
  license_public_keys: { env: "POSTERN_LICENSE_PUBLIC_KEYS", kind: "list" },
  agent_token_hours: { env: "POSTERN_AGENT_TOKEN_HOURS", kind: "number" },
  "tls.mode": { env: "POSTERN_TLS", kind: "string" },
  "tls.cert": { env: "POSTERN_TLS_CERT", kind: "string" },
  "tls.key": { env: "POSTERN_TLS_KEY", kind: "string" },
  "discovery.ports": { env: "POSTERN_DISCOVERY_PORTS", kind: "list" },
  "discovery.tls_cert": { env: "POSTERN_DISCOVERY_TLS_CERT", kind: "string" },
  "discovery.tls_key": { env: "POSTERN_DISCOVERY_TLS_KEY", kind: "string" },
  "metrics.token": { env: "POSTERN_METRICS_TOKEN", kind: "string" },
};

/** The file's values as environment variables, and where each came from (for problem messages). */
export interface ConfigFileValues {
  /** POSTERN_* name → value in the environment's string form. */
  values: Record<string, string>;
  /** POSTERN_* name → "server.toml: tls.mode" style label. */
  labels: Record<string, string>;
  /** Problems of the file itself (syntax, unknown keys, wrong kinds). */
  problems: string[];
}

/**
 * Reads and converts a configuration file. Never throws: an unreadable file, a TOML syntax error
 * (with its line), an unknown key or a value of the wrong kind is a problem in the answer.
 */
export function readConfigFile(path: string): ConfigFileValues {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return {
      values: {},
      labels: {},
      problems: [`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`],
    };
  }
  return parseConfigText(text, path);
}

/** Converts the text of a configuration file (see `readConfigFile`); `source` names it in problems. */
export function parseConfigText(text: string, source: string): ConfigFileValues {
  const out: ConfigFileValues = { values: {}, labels: {}, problems: [] };
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (err) {
    const where = err instanceof TomlError ? ` (line ${err.line}, column ${err.column})` : "";
    out.problems.push(`${source}: not valid TOML${where}: ${(err as Error).message.split("\n")[0] ?? ""}`);
    return out;
  }
  for (const [key, value] of flatten(doc)) {
    const label = `${source}: ${key}`;
    const spec = FILE_KEYS[key];
    if (!spec) {
      out.problems.push(`${label}: unknown key (known: ${Object.keys(FILE_KEYS).join(", ")})`);
      continue;
    }
    const converted = convert(value, spec.kind);
    if (converted === null) {
      out.problems.push(`${label}: must be ${KIND_WORDS[spec.kind]}`);
      continue;
    }
    out.values[spec.env] = converted;
    out.labels[spec.env] = label;
  }
  return out;
}

const KIND_WORDS: Record<ValueKind, string> = {
  string: "a string",
  number: "a number",
  list: 'a list, e.g. ["a", "b"]',
};

/** Dotted keys of the document's leaves; a table of tables is flattened one level per table. */
function flatten(doc: Record<string, unknown>, prefix = ""): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(doc)) {
    const key = prefix === "" ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date))
      out.push(...flatten(v as Record<string, unknown>, key));
    else out.push([key, v]);
  }
  return out;
}

/** The environment form of a file value, or null when it is of the wrong kind. */
function convert(value: unknown, kind: ValueKind): string | null {
  if (kind === "string") return typeof value === "string" ? value : null;
  if (kind === "number") return typeof value === "number" || typeof value === "bigint" ? String(value) : null;
  if (!Array.isArray(value)) return null;
  if (!value.every((v) => typeof v === "string" || typeof v === "number" || typeof v === "bigint")) return null;
  return value.map(String).join(",");
}
