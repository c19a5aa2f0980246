/**
 * A judge endpoint that fails on purpose: the first `failures` requests get `status` (or a reset
 * connection), the rest are forwarded to a real endpoint (the built-in engine). It stands in for
 * a provider outage, the one thing the real engine cannot be told to have for exactly N calls.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Flaky {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startFlaky(
  target: string,
  failures: number,
  status: number | "reset" = 503,
): Promise<Flaky> {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const n = ++state.requests;
      if (n <= failures) {
        if (status === "reset") return req.socket.destroy();
        res.writeHead(status, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: `scripted outage ${n}` } }));
      }
      const up = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: { "content-type": "application/json" },
        body: Buffer.concat(chunks),
      });
      res.writeHead(up.status, { "content-type": "application/json" });
      res.end(await up.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
