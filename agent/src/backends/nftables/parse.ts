/**
 * Parsing of `nft -j` (JSON) output: the sets of `nft -j list sets` and the elements of
 * `nft -j list set <family> <table> <set>`.
 */
import { normaliseIp } from "@postern/shared";

/** One set as capability detection reports it: its table as `<family> <name>`, name, type, timeout flag. */
export interface NftSetInfo {
  readonly table: string;
  readonly name: string;
  readonly type: string;
  readonly timeout: boolean;
}

interface NftSetJson {
  family?: string;
  table?: string;
  name?: string;
  type?: string | string[];
  flags?: string[];
  elem?: unknown[];
}

function setsOf(text: string): NftSetJson[] {
  const doc = JSON.parse(text) as { nftables?: { set?: NftSetJson }[] };
  return (doc.nftables ?? []).flatMap((o) => (o.set ? [o.set] : []));
}

/** Parses `nft -j list sets`. @throws SyntaxError when the text is not JSON. */
export function parseNftSets(text: string): NftSetInfo[] {
  return setsOf(text).map((s) => ({
    table: `${s.family ?? ""} ${s.table ?? ""}`,
    name: s.name ?? "",
    type: Array.isArray(s.type) ? s.type.join(" . ") : (s.type ?? ""),
    timeout: (s.flags ?? []).includes("timeout"),
  }));
}

/**
 * Parses `nft -j list set ...`: the element addresses, normalised (an element is a string, or
 * `{elem: {val}}` when it carries a timeout; prefixes and ranges are kept as `addr/len`, `a-b`).
 * @throws SyntaxError when the text is not JSON.
 */
export function parseNftElements(text: string): string[] {
  const out: string[] = [];
  for (const s of setsOf(text)) {
    for (const raw of s.elem ?? []) {
      const val =
        typeof raw === "object" && raw !== null && "elem" in raw ? (raw as { elem: { val: unknown } }).elem.val : raw;
      if (typeof val === "string") out.push(normaliseIp(val)?.ip ?? val);
      else if (val && typeof val === "object" && "prefix" in val) {
        const p = (val as { prefix: { addr: string; len: number } }).prefix;
        out.push(`${p.addr}/${p.len}`);
      } else if (val && typeof val === "object" && "range" in val) {
        const r = (val as { range: [string, string] }).range;
        out.push(`${r[0]}-${r[1]}`);
      }
    }
  }
  return out;
}
