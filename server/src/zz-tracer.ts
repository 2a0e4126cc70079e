// throwaway tracer: POSTERN_TRACE_FILE=path enables; records [label, t] and writes at exit
import { writeFileSync } from "node:fs";
const file = process.env["POSTERN_TRACE_FILE"];
const rows: string[] = [];
(globalThis as any).__T = file
  ? (label: string) => rows.push(`${label} ${(performance.timeOrigin + performance.now()).toFixed(3)}`)
  : undefined;
if (file) {
  const dump = () => writeFileSync(`${file}.${process.pid}`, rows.join("\n") + "\n");
  process.on("exit", dump);
  process.on("SIGTERM", () => { dump(); });
}
if (file) {
  const { default: Database } = await import("better-sqlite3");
  const probe = new Database(":memory:").prepare("select 1");
  const proto = Object.getPrototypeOf(probe);
  for (const m of ["run", "all", "get", "iterate"]) {
    const orig = proto[m];
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      const t = performance.now();
      try { return orig.apply(this, a); } finally { const d = performance.now() - t; rows.push(`Q ${(performance.timeOrigin + t).toFixed(3)} ${d.toFixed(4)} ${this.source.replace(/\s+/g, " ").slice(0, 60).replace(/ /g, "_")}`); }
    };
  }
}
