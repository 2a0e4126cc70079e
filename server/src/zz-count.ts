
import Database from "better-sqlite3";
import { apiRequest, createHarness, seedLoop } from "./testing/harness.ts";

async function main() {
  const h = await createHarness("/tmp/zz-count.db");
  const seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
  const cookie = login.setCookie.split(";")[0] ?? "";
  await apiRequest(h, "GET", "/api/status", undefined, { cookie });
  const probe = new Database(":memory:").prepare("select 1");
  const proto = Object.getPrototypeOf(probe);
  const log: string[] = [];
  const time = new Map<string, [number, number]>();
  for (const m of ["run", "all", "get", "iterate"]) {
    const orig = proto[m];
    proto[m] = function (this: { source: string; database: any }, ...a: unknown[]) { (globalThis as any).__db ??= this.database; (globalThis as any).__src ??= new Map(); (globalThis as any).__src.set(this.source.replace(/\s+/g, ' ').slice(0, 120), this.source); const t = performance.now(); try { return orig.apply(this, a); } finally { const k = this.source.replace(/\s+/g, " ").slice(0, 120); const e = time.get(k) ?? [0, 0]; e[0]++; e[1] += performance.now() - t; time.set(k, e); log.push(k); } };
  }
  const eng = h.services.engine as any; const og = eng.grant.bind(eng); let tEng = 0;
  eng.grant = async (...a: any[]) => { const t = performance.now(); try { return await og(...a); } finally { tEng += performance.now() - t; } };
  const N = Number(process.env.N ?? 300);
  const t0 = performance.now(); let tg = 0;
  for (let i = 0; i < N; i++) {
    const ta = performance.now(); const firstLen = log.length;
    const r = await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId }, { cookie });
    tg += performance.now() - ta;
    if (i === 1 && process.env.LOG) console.log("GRANT:\n" + log.slice(firstLen).join("\n"));
    const id = (r.body as { ACLs: { ACLID: string; ID: string }[] }).ACLs.find((a) => a.ACLID === seed.aclId)!.ID;
    const la = log.length;
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    if (i === 1 && process.env.LOG) console.log("ACK:\n" + log.slice(la).join("\n"));
    const lr = log.length;
    await apiRequest(h, "DELETE", `/api/sessions/current/granted-acls/${id}`, undefined, { cookie });
    if (i === 1 && process.env.LOG) console.log("REVOKE:\n" + log.slice(lr).join("\n"));
    const ld = log.length;
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "del", ok: true }]);
    if (i === 1 && process.env.LOG) console.log("DELACK:\n" + log.slice(ld).join("\n"));
  }
  const el = performance.now() - t0;
  let tot = 0; for (const [, v] of time) tot += v[1];
  console.log(`engine.grant ${(tEng/N).toFixed(3)} ms; grant ${(tg / N).toFixed(2)} ms; cycle ${(el / N).toFixed(2)} ms, statements ${(log.length / N).toFixed(1)}/cycle, sqlite time ${(tot / N).toFixed(2)} ms/cycle`);
  console.log([...time].sort((a, b) => b[1][1] - a[1][1]).slice(0, 25).map(([k, v]) => `${(v[1] / N * 1000).toFixed(0).padStart(5)} µs/cycle ${(v[0] / N).toFixed(1)}× ${k}`).join("\n"));
  if (process.env.PLAN) { const db = (globalThis as any).__db; for (const [k, full] of (globalThis as any).__src) { if (/^(begin|commit|insert|delete|update)/i.test(k)) continue; try { const rows = db.prepare('EXPLAIN QUERY PLAN ' + full).all(...Array(200).fill(null).slice(0, (full.match(/\?/g) ?? []).length)); console.log('PLAN', k.slice(0, 80), '\n   ', rows.map((r: any) => r.detail).join(' | ')); } catch (e) { console.log('PLANERR', k.slice(0,60), String(e).slice(0,100)); } } }
  await h.close();
}
await main();
