/** Small numeric helpers the benchmarks share: nearest-rank percentiles and millisecond formatting. */

/** The nearest-rank percentile `q` (0–1) of ascending `sorted` values; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Milliseconds for a table: "-" for NaN, two decimals below 10, one above. */
export function formatMs(v: number): string {
  return Number.isNaN(v) ? "-" : v < 10 ? v.toFixed(2) : v.toFixed(1);
}

/** Prints rows as a table: the first `leftColumns` columns left-aligned, the rest right-aligned. */
export function printTable(header: readonly string[], rows: readonly (readonly string[])[], leftColumns: number): void {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const fmt = (r: readonly string[]): string =>
    r.map((v, c) => (c < leftColumns ? v.padEnd(widths[c] ?? 0) : v.padStart(widths[c] ?? 0))).join("  ");
  console.log(fmt(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(fmt(r));
}
