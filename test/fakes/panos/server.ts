/**
 * A fake PAN-OS XML API (issue #10 item 14), built from `shared/vendors.md` §3, on 127.0.0.1 over
 * plain http: one `POST /api/` handler.
 *
 * Models: the API key in `X-PAN-KEY` or the `key` field (403 `<response status="error">` otherwise);
 * `type=user-id` with a `uid-message` holding `register` / `unregister` of `<entry ip><tag><member
 * timeout>` (timeout in seconds, 0 = none), kept per vsys as ip → tag → expiry; the per-entry messages
 * "tag X already exists, ignore" and "tag X does not exist, ignore unreg" with `status="error"`;
 * expiry of registrations by the clock; `type=op` `show object registered-ip tag` listing
 * `<entry ip=…>` rows; `type=op` `request system external-list refresh type ip name <EDL>` for the
 * EDLs made with `addEdl`, recorded with its `target=` serial (an unknown EDL, or a serial not in
 * `addEdl`'s device list, answers `status="error"`: texts invented, vendors.md has none).
 *
 * Does not model: Panorama's own object tree (`target=` only picks a device), the asynchronous EDL
 * fetch job, login/logout (MapUser), persistent, keygen, GET requests, XML entities beyond the five
 * basic ones.
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running fake. */
export interface FakePanos {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Every form received, in order (the key removed). */
  readonly requests: Record<string, string>[];
  /** Addresses registered on `tag` in `vsys` (default vsys1), live at the fake's clock. */
  registered(tag: string, vsys?: string): string[];
  /** The remaining timeout in seconds of a registration, or null (none or absent). */
  timeoutOf(ip: string, tag: string, vsys?: string): number | null;
  /** Registers or removes behind the agent's back (drift). */
  put(ip: string, tag: string, vsys?: string): void;
  drop(ip: string, tag: string, vsys?: string): void;
  /** Declares an EDL, on the firewall itself or (with `serials`) on those devices behind Panorama. */
  addEdl(name: string, serials?: string[]): void;
  /** The refreshes of an EDL so far: the `target` serial of each ("" without). */
  refreshes(name: string): string[];
  /** Moves the fake's clock forward (milliseconds). */
  advance(ms: number): void;
  stop(): Promise<void>;
}

const unescape = (s: string) =>
  s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[e]!);

/** Starts the fake accepting `apiKey`. */
export async function startFakePanos(apiKey: string): Promise<FakePanos> {
  let offset = 0;
  const now = () => Date.now() + offset;
  /** vsys → ip → tag → expiry (ms, Infinity for none). */
  const db = new Map<string, Map<string, Map<string, number>>>();
  const requests: Record<string, string>[] = [];
  const edls = new Map<string, { serials: string[]; refreshes: string[] }>();
  const tags = (vsys: string, ip: string) => {
    let v = db.get(vsys);
    if (!v) db.set(vsys, (v = new Map()));
    let t = v.get(ip);
    if (!t) v.set(ip, (t = new Map()));
    return t;
  };
  const live = (vsys: string, tag: string) =>
    [...(db.get(vsys) ?? new Map<string, Map<string, number>>()).entries()]
      .filter(([, t]) => (t.get(tag) ?? 0) > now())
      .map(([ip]) => ip);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const key = req.headers["x-pan-key"] ?? form["key"];
      delete form["key"];
      requests.push(form);
      const reply = (status: number, xml: string) =>
        res.writeHead(status, { "content-type": "application/xml" }).end(xml);
      if (req.method !== "POST" || !req.url?.startsWith("/api")) return reply(404, "");
      if (key !== apiKey)
        return reply(
          403,
          `<response status="error" code="403"><result><msg>Invalid Credential</msg></result></response>`,
        );
      const vsys = form["vsys"] || "vsys1";
      const cmd = form["cmd"] ?? "";
      if (form["type"] === "op" && cmd.includes("<external-list><refresh>")) {
        const name = unescape(/<ip><name>([^<]*)<\/name><\/ip>/.exec(cmd)?.[1] ?? "");
        const edl = edls.get(name);
        const target = form["target"] ?? "";
        if (!edl)
          return reply(
            200,
            `<response status="error"><msg><line>external-list ${name} does not exist</line></msg></response>`,
          );
        if (target !== "" ? !edl.serials.includes(target) : edl.serials.length > 0)
          return reply(
            200,
            `<response status="error"><msg><line>device ${target || "(none)"} is not managed here</line></msg></response>`,
          );
        edl.refreshes.push(target);
        return reply(200, `<response status="success"><result>EDL refresh job enqueued</result></response>`);
      }
      if (form["type"] === "op") {
        const tag = /<registered-ip><tag><entry name="([^"]*)"/.exec(cmd)?.[1];
        if (tag === undefined)
          return reply(200, `<response status="error"><msg><line>unsupported op</line></msg></response>`);
        const rows = live(vsys, unescape(tag))
          .map((ip) => `<entry ip="${ip}" from_agent="0" persistent="1"><tag><member>${tag}</member></tag></entry>`)
          .join("");
        return reply(
          200,
          `<response status="success"><result>${rows}<count>${live(vsys, unescape(tag)).length}</count></result></response>`,
        );
      }
      if (form["type"] !== "user-id")
        return reply(200, `<response status="error"><msg><line>unsupported type</line></msg></response>`);
      const problems: string[] = [];
      for (const [, kind, body] of cmd.matchAll(/<(register|unregister)>([\s\S]*?)<\/\1>/g)) {
        for (const [, ip, inner] of body!.matchAll(/<entry ip="([^"]+)">([\s\S]*?)<\/entry>/g)) {
          for (const [, timeout, tagText] of inner!.matchAll(/<member(?: timeout="(\d+)")?>([^<]*)<\/member>/g)) {
            const tag = unescape(tagText!);
            const t = tags(vsys, ip!);
            const present = (t.get(tag) ?? 0) > now();
            if (kind === "register") {
              if (present) problems.push(`<entry ip="${ip}" message="tag ${tagText} already exists, ignore"/>`);
              else t.set(tag, timeout && timeout !== "0" ? now() + Number(timeout) * 1000 : Infinity);
            } else if (!present) {
              problems.push(`<entry ip="${ip}" message="tag ${tagText} does not exist, ignore unreg"/>`);
            } else t.delete(tag);
          }
        }
      }
      if (problems.length === 0)
        return reply(
          200,
          `<response status="success"><result><uid-response><version>2.0</version><payload/></uid-response></result></response>`,
        );
      return reply(
        200,
        `<response status="error"><msg><line><uid-response><version>2.0</version><payload><register>${problems.join("")}</register></payload></uid-response></line></msg></response>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    registered: (tag, vsys = "vsys1") => live(vsys, tag),
    timeoutOf: (ip, tag, vsys = "vsys1") => {
      const exp = db.get(vsys)?.get(ip)?.get(tag);
      return exp === undefined || exp === Infinity || exp <= now() ? null : Math.round((exp - now()) / 1000);
    },
    put: (ip, tag, vsys = "vsys1") => void tags(vsys, ip).set(tag, Infinity),
    drop: (ip, tag, vsys = "vsys1") => void tags(vsys, ip).delete(tag),
    addEdl: (name, serials = []) => void edls.set(name, { serials, refreshes: [] }),
    refreshes: (name) => [...(edls.get(name)?.refreshes ?? [])],
    advance: (ms) => void (offset += ms),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
