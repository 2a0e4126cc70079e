import { openDatabase, migrateDatabase, rawStatement } from "./src/db/index.ts";
import { createHash, randomUUID } from "node:crypto";
const { db, close } = openDatabase("/tmp/sc/mb.db");
const PRAGMA = process.env.PRAGMA;
await migrateDatabase(db);
const sqlite = (await import("better-sqlite3")).default;
const s = new sqlite("/tmp/sc/mb.db");
const hashes: string[] = [];
const ids: string[] = [];
s.transaction(() => {
  const iu = s.prepare("INSERT INTO users (id, user_name, name, auth_type, created_at) VALUES (?, ?, ?, 'local', ?)");
  const is = s.prepare("INSERT INTO user_sessions (id, token_hash, user_id, created_at, ends_at, ip_address) VALUES (?, ?, ?, 0, 9999999999999, '127.0.0.1')");
  for (let i = 0; i < 10000; i++) {
    const u = randomUUID(), sid = randomUUID(), h = createHash("sha256").update(sid).digest("hex");
    iu.run(u, "u" + i, "U " + i, i); is.run(sid, h, u); hashes.push(h); ids.push(sid);
  }
})();
if (PRAGMA) await db.run((await import('drizzle-orm')).sql.raw(PRAGMA));
const look = rawStatement(db, `SELECT s.id, s.ended_at, s.ends_at, s.verified, s.ip_address, u.id, u.disabled, u.valid_until, u.user_name, u.name, u.auth_type
       FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = @hash`);
const ver = rawStatement(db, `SELECT s.status_version, (SELECT sum(c.value) FROM change_counters c WHERE c.name IN ('acls','users','assignments','licenses','status_settings')) FROM user_sessions s WHERE s.id = @sessionId`);
for (const [name, f] of [["lookup", (i: number) => look.all({ hash: hashes[i % 10000] })], ["versions", (i: number) => ver.all({ sessionId: ids[i % 10000] })]] as const) {
  for (let r = 0; r < 3; r++) {
    const t = performance.now(); const N = 50000;
    for (let i = 0; i < N; i++) await f((i * 7919) % 10000);
    console.log(name, ((performance.now() - t) * 1000 / N).toFixed(2), "µs/call");
  }
}
close();
