/**
 * The test load balancer (test/support/load-balancer.ts) on a real HAProxy in front of two loopback
 * HTTP servers: it spreads requests over both, lets a WebSocket upgrade through, takes a dead server
 * out within about 2 s while every request still succeeds, cuts the tunnels of a server whose health
 * check fails, and puts a server back when it returns.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { execa } from "execa";
import { WebSocket, WebSocketServer } from "ws";
import { httpJson, waitFor } from "../support/stack.ts";
import { loadBalancerConfig, startLoadBalancer } from "../support/load-balancer.ts";
import type { LoadBalancer } from "../support/load-balancer.ts";

const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;
if (!hasHaproxy) console.warn("haproxy is not installed: skipping the load balancer tests (scripts/setup.sh --test)");

/** A loopback HTTP server answering its name, healthy while `healthy` is true, with a WebSocket echo at /ws. */
class Replica {
  readonly name: string;
  healthy = true;
  server: Server;
  readonly wss = new WebSocketServer({ noServer: true });
  port = 0;
  constructor(name: string) {
    this.name = name;
    this.server = this.create();
    this.wss.on("connection", (ws) => ws.on("message", (m) => ws.send(`${this.name}:${String(m)}`)));
  }
  private create(): Server {
    const s = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/api/system_status") {
        res.writeHead(this.healthy ? 200 : 503).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: this.name }));
    });
    s.on("upgrade", (req, socket, head) =>
      this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit("connection", ws)),
    );
    return s;
  }
  async listen(port = 0): Promise<string> {
    this.server.listen(port, "127.0.0.1");
    await once(this.server, "listening");
    this.port = (this.server.address() as AddressInfo).port;
    return `127.0.0.1:${this.port}`;
  }
  /** Dies: stops listening and cuts every connection (what the kernel does for a killed process). */
  async kill(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  /** Comes back on the same port. */
  async restart(): Promise<void> {
    this.server = this.create();
    await this.listen(this.port);
  }
}

let lb: LoadBalancer | undefined;
const replicas: Replica[] = [];

afterEach(async () => {
  await lb?.stop();
  lb = undefined;
  for (const r of replicas.splice(0)) if (r.server.listening) await r.kill();
});

async function twoReplicas(): Promise<[Replica, Replica, LoadBalancer]> {
  const a = new Replica("a");
  const b = new Replica("b");
  replicas.push(a, b);
  lb = await startLoadBalancer([await a.listen(), await b.listen()]);
  expect(await waitFor(async () => Object.values(await lb!.status()).every((s) => s === "UP"), 5_000)).toBe(true);
  return [a, b, lb];
}

async function whoAnswers(balancer: LoadBalancer): Promise<string> {
  // A connection of its own each time: a kept-alive one the balancer closed when a replica died would be reused
  // and hang up (Node's global agent keeps connections alive), which is the client's race, not the balancer's.
  const r = await httpJson("GET", `${balancer.url}/`, undefined, { headers: { connection: "close" } });
  if (r.status !== 200) return `HTTP ${r.status}`;
  return (r.body as { name: string }).name;
}

/** Opens a WebSocket through the balancer and resolves it once open (bounded: 5 s). */
async function openSocket(balancer: LoadBalancer): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${balancer.port}/ws`, { handshakeTimeout: 5_000 });
  await once(ws, "open");
  return ws;
}

describe.skipIf(!hasHaproxy)("the test load balancer on a real HAProxy", () => {
  it("spreads requests over both replicas and lets a WebSocket upgrade through", async () => {
    const [, , balancer] = await twoReplicas();
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(await whoAnswers(balancer));
    expect([...seen].sort()).toEqual(["a", "b"]);

    const ws = await openSocket(balancer);
    ws.send("ping");
    const [echo] = (await once(ws, "message")) as [Buffer];
    expect(String(echo)).toMatch(/^[ab]:ping$/);
    ws.close();
  });

  it("takes a killed replica out within 2 s, every request answered meanwhile, and puts it back when it returns", async () => {
    const [a, , balancer] = await twoReplicas();
    await a.kill();
    const killed = Date.now();
    const answers: string[] = [];
    const out = await waitFor(
      async () => {
        answers.push(await whoAnswers(balancer));
        return (await balancer.status())["r1"] === "DOWN";
      },
      5_000,
      50,
    );
    expect(out).toBe(true);
    expect(Date.now() - killed).toBeLessThan(2_000);
    // Connection refused by the dead one is redispatched: no request failed.
    expect(answers.every((n) => n === "b")).toBe(true);
    for (let i = 0; i < 4; i++) expect(await whoAnswers(balancer)).toBe("b");

    await a.restart();
    expect(await waitFor(async () => (await balancer.status())["r1"] === "UP", 5_000)).toBe(true);
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(await whoAnswers(balancer));
    expect([...seen].sort()).toEqual(["a", "b"]);
  });

  it("cuts the WebSockets of a replica whose health check fails, though its process still holds them", async () => {
    const [a, b, balancer] = await twoReplicas();
    const ws = await openSocket(balancer);
    ws.send("who");
    const [echo] = (await once(ws, "message")) as [Buffer];
    const holder = String(echo).startsWith("a:") ? a : b;
    const closed = once(ws, "close");
    const failed = Date.now();
    holder.healthy = false; // hangs as far as the balancer can tell; the socket itself stays open
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error("still open")), 5_000))]);
    expect(Date.now() - failed).toBeLessThan(2_500);
    // A new socket lands on the healthy one.
    const again = await openSocket(balancer);
    again.send("who");
    const [second] = (await once(again, "message")) as [Buffer];
    expect(String(second)).toBe(`${holder === a ? "b" : "a"}:who`);
    again.close();
  });
});

describe("docs/high-availability.md", () => {
  it("prints the configuration the harness starts", async () => {
    const doc = await readFile(new URL("../../docs/high-availability.md", import.meta.url), "utf8");
    const config = loadBalancerConfig({
      bind: "127.0.0.1:8443",
      backends: ["10.0.0.11:8080", "10.0.0.12:8080"],
      socketPath: "/run/haproxy/postern-lb.sock",
      source: "10.0.0.10",
    });
    expect(doc).toContain(`\`\`\`haproxy\n${config}\`\`\``);
  });
});
