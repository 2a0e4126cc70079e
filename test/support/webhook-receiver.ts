/**
 * A real webhook receiver on loopback (issue #10 item 13): verifies every delivery's Standard Webhooks
 * signature with the `standardwebhooks` package (not with our code), answers 401 when it does not
 * verify, and otherwise applies the change to the address set it keeps, as a firewall fed by webhooks
 * would. `failNext` makes the next deliveries answer an error status first (retries).
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One delivery as received. */
export interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly verified: boolean;
  readonly status: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:PORT/hook` */
  readonly url: string;
  /** Every delivery, in arrival order. */
  readonly deliveries: Delivery[];
  /** The addresses currently granted (after add, del and flush). */
  readonly granted: Set<string>;
  /** The next `count` deliveries answer `status` without being applied. */
  failNext(count: number, status: number): void;
  stop(): Promise<void>;
}

/**
 * Starts a receiver that verifies with `secret` (`whsec_…`), or with what `secret()` answers at each delivery
 * (for endpoints whose secret is known only once they are registered).
 */
export async function startWebhookReceiver(secret: string | (() => string)): Promise<WebhookReceiver> {
  const webhookOf = (s: string) => new Webhook(s);
  const fixed = typeof secret === "string" ? webhookOf(secret) : undefined;
  const deliveries: Delivery[] = [];
  const granted = new Set<string>();
  let failures: { count: number; status: number } = { count: 0, status: 500 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      let verified: boolean;
      try {
        (fixed ?? webhookOf((secret as () => string)())).verify(body, headers);
        verified = true;
      } catch {
        verified = false;
      }
      let status = 200;
      if (!verified) status = 401;
      else if (failures.count > 0) {
        failures.count--;
        status = failures.status;
      } else {
        const msg = JSON.parse(body) as { data: { action?: string; ip?: string } };
        if (msg.data.action === "add" && msg.data.ip) granted.add(msg.data.ip);
        if (msg.data.action === "del" && msg.data.ip) granted.delete(msg.data.ip);
        if (msg.data.action === "flush") granted.clear();
      }
      deliveries.push({ headers, body, verified, status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    granted,
    failNext(count, status) {
      failures = { count, status };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
