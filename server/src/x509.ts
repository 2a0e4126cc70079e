/**
 * @peculiar/x509 loaded on first use (issue #13 item 4: heavy modules loaded only when used). Only
 * making a self-signed certificate needs it (the server's TLS certificate on first start, a SAML SP
 * key pair on an admin's request); with its ASN.1 libraries and tsyringe it is ~0.55 MB of code
 * that an idle server never runs.
 */
import type * as X509 from "@peculiar/x509";

/**
 * The @peculiar/x509 module, with the reflect-metadata polyfill its dependency injection (tsyringe)
 * needs loaded first. Later calls answer the same module. Run from source Node loads the package's
 * ES build (named exports); in the esbuild bundle it is the CommonJS build in a chunk of its own,
 * whose namespace has only `default` (the `exports` object), so that one is answered when present.
 */
export async function loadX509(): Promise<typeof X509> {
  await import("reflect-metadata");
  const loaded = (await import("@peculiar/x509")) as typeof X509 & { default?: typeof X509 };
  return loaded.default ?? loaded;
}
