/**
 * A minimal server that speaks /generate with scripted behaviour per request, for tests that
 * need exact control of failures (status codes, resets, stalls, malformed bodies).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Step =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { reset: true }
  | { stallMs: number }
  | { ok: true; ids?: number[]; completionTokens?: number };

export interface Scripted {
  url: string;
  /** Bodies received on /generate, in order. */
  bodies: unknown[];
  paths: string[];
  close(): Promise<void>;
}

/** A valid /generate body with the given ids (logprob −0.5 each). */
export function okBody(ids: number[] = [11, 151645], completionTokens = ids.length): Record<string, unknown> {
  return {
    text: "x",
    output_ids: ids,
    meta_info: {
      id: "r",
      finish_reason: { type: "stop", matched: 151645 },
      prompt_tokens: 3,
      completion_tokens: completionTokens,
      cached_tokens: 0,
      weight_version: "v1",
      e2e_latency: 0.01,
      output_token_logprobs: ids.map((id) => [-0.5, id, null]),
    },
  };
}

/** Steps are consumed one per /generate request; after the script runs out, requests succeed. */
export async function startScripted(steps: Step[]): Promise<Scripted> {
  const bodies: unknown[] = [];
  const paths: string[] = [];
  let i = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      paths.push(`${req.method} ${req.url}`);
      if (req.url !== "/generate") {
        res.writeHead(404).end();
        return;
      }
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      const step: Step = steps[i++] ?? { ok: true };
      if ("reset" in step) req.socket.destroy();
      else if ("stallMs" in step)
        setTimeout(() => res.writeHead(200).end(JSON.stringify(okBody())), step.stallMs);
      else if ("ok" in step) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(okBody(step.ids, step.completionTokens)));
      } else {
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
        res.end(JSON.stringify(step.body ?? { error: { message: `status ${step.status}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    paths,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
