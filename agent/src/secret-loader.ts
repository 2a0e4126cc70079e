/**
 * The agent's sealed-secret opener, loaded on first need (issue #13 item 4; docs/reference.md design
 * "Agent protocol": secrets arrive as libsodium sealed boxes). secrets.ts instantiates libsodium and
 * its WebAssembly at import (~15 MB of RSS); an agent whose targets carry no sealed secret (HAProxy,
 * ipset) never needs it, so the daemon imports it only when `DriverSet.prepare` sees such a target.
 */

/** `openSecret` and `loadSecrets` of a `DriverContext`, and whether libsodium is loaded (tests). */
export interface LazySecretOpener {
  /** Opens a base64 sealed box. @throws Error when `loadSecrets` has not completed, or the box cannot be opened. */
  readonly openSecret: (sealed: string) => string;
  /** Imports secrets.ts (libsodium) once; later calls resolve at once. @throws Error when the import fails. */
  readonly loadSecrets: () => Promise<void>;
  /** True once `loadSecrets` completed. */
  readonly loaded: () => boolean;
}

/** An opener for the agent's box key pair (both base64 of the raw 32 bytes) that loads libsodium on demand. */
export function lazySecretOpener(boxPublicKey: string, boxSecretKey: string): LazySecretOpener {
  let opener: ((sealed: string) => string) | undefined;
  return {
    loadSecrets: async () => {
      opener ??= (await import("./secrets.ts")).secretOpener(boxPublicKey, boxSecretKey);
    },
    openSecret: (sealed) => {
      if (!opener) throw new Error("a sealed secret cannot be opened: libsodium is not loaded");
      return opener(sealed);
    },
    loaded: () => opener !== undefined,
  };
}
