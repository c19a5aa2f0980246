/**
 * A local OpenAI-compatible provider over real HTTP (127.0.0.1) whose answers come from a
 * handler: the policy side for EvalClient and error-relay tests.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type ProviderReply =
  | { status?: number; json: unknown; delayMs?: number; headers?: Record<string, string> }
  | { status?: number; text: string }
  | { destroy: true };

export interface FakeProvider {
  baseUrl: string;
  requests: { headers: IncomingMessage["headers"]; body: any }[];
  close(): Promise<void>;
}

/** Answers a request's body; `attempt` counts the requests so far, this one included (1, 2, …). */
export type ProviderHandler = (body: any, attempt: number) => ProviderReply;

export async function startProvider(handler: ProviderHandler): Promise<FakeProvider> {
  const requests: FakeProvider["requests"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
      requests.push({ headers: req.headers, body });
      const reply = handler(body, requests.length);
      if ("destroy" in reply) return void req.socket.destroy();
      if ("delayMs" in reply && reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      const extra = "headers" in reply ? reply.headers : undefined;
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...extra });
      res.end("json" in reply ? JSON.stringify(reply.json) : reply.text);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export function completion(message: Record<string, unknown>, finish = "stop") {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "provider-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  };
}

/** Runs `body` against a fake provider answering with `handler`, and closes it after, pass or fail. */
export async function withProvider(
  handler: ProviderHandler,
  body: (provider: FakeProvider) => Promise<void>,
): Promise<void> {
  const provider = await startProvider(handler);
  try {
    await body(provider);
  } finally {
    await provider.close();
  }
}
