/**
 * Licences for tests: one Ed25519 signing key per test process, licence keys signed with it, and a
 * harness whose licensing service trusts it (the harness itself trusts no key).
 */
import { generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { LicensePayload } from "@postern/shared";
import { LicensingService } from "../services/licensing/service.ts";
import { formatLicensePublicKey, signLicense } from "../services/licensing/keys.ts";
import { storeLicence } from "../services/licensing/store.ts";
import { testTables } from "./database.ts";
import type { Harness } from "./harness.ts";

const { licenses } = testTables;

const pair = generateKeyPairSync("ed25519");

/** The test signing key pair; `publicKey` in the POSTERN_LICENSE_PUBLIC_KEYS format. */
export const testLicenceKey: { privateKey: KeyObject; publicKey: string } = {
  privateKey: pair.privateKey,
  publicKey: formatLicensePublicKey(pair.publicKey),
};

/** A payload with test defaults (10 users + 30 %, 3 sessions, 5 machines, never expires) and `over` applied. */
export function testPayload(over: Partial<LicensePayload> = {}): LicensePayload {
  return {
    ID: "test-licence",
    UserLimit: 10,
    UserLimitOverage: 30,
    SessionLimit: 3,
    MaxMachines: 5,
    Expires: null,
    ...over,
  };
}

/** A licence key signed by the test key. */
export function issueTestLicence(over: Partial<LicensePayload> = {}): string {
  return signLicense(testPayload(over), testLicenceKey.privateKey);
}

/** Gives the harness a licensing service that trusts the test key; returns it. */
export function trustTestKey(h: Harness): LicensingService {
  const s = h.services;
  s.licensing = new LicensingService({
    db: s.db,
    clock: h.clock,
    engine: s.engine,
    licensePublicKeys: [testLicenceKey.publicKey],
  });
  return s.licensing;
}

/** Installs a test licence (trusting the test key) as admin "test-admin"; returns the key. */
export async function installTestLicence(h: Harness, over: Partial<LicensePayload> = {}): Promise<string> {
  const key = issueTestLicence(over);
  await trustTestKey(h).install(key, { adminName: "test-admin", ip: "127.0.0.1" });
  return key;
}

/**
 * The licence tests that are not about limits run with: 10,000 users (no overage), 1,000 sessions
 * per user, 1,000 machines, never expires. Creating or updating ACLs and Knocs needs a licence
 * (docs/reference.md admin-console §1).
 */
export const ROOMY_LICENCE: Partial<LicensePayload> = {
  ID: "test-roomy",
  UserLimit: 10_000,
  UserLimitOverage: 0,
  SessionLimit: 1000,
  MaxMachines: 1000,
};

/**
 * Stores ROOMY_LICENCE (with `over` applied), signed by the test key, straight into the licence
 * store: no audit entry, and the harness's licensing service is left as it is (trusting no key).
 * Returns the key.
 */
export async function licenseHarness(h: Harness, over: Partial<LicensePayload> = {}): Promise<string> {
  const payload = testPayload({ ...ROOMY_LICENCE, ...over });
  const key = signLicense(payload, testLicenceKey.privateKey);
  await h.services.db.transaction(async (tx) => await storeLicence(tx, key, payload, h.services.clock.now()));
  return key;
}

/** Empties the licence store: the install is unlicensed again (no API does this; tests of the unlicensed state). */
export async function unlicenseHarness(h: Harness): Promise<void> {
  await h.services.db.delete(licenses);
}
