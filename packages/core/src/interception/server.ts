/**
 * The interception HTTP server: an OpenAI-compatible endpoint for external harness programs.
 * One server multiplexes every rollout by its bearer secret (so thousands of rollouts do not
 * mean thousands of ports), binds to 127.0.0.1 only, and is started lazily — a run that uses
 * only the in-process harnesses never opens a socket.
 *
 * Routes (all with `Authorization: Bearer <secret>`):
 * - `POST /v1/chat/completions` — one model call (OpenAI request/response JSON; `stream: true`
 *   gets a single-shot SSE stream in eval mode and a 400 in training mode).
 * - `POST /v1/tools/{name}` — executes one of the task's tools; body = the arguments object;
 *   answers `{"content": "<tool message text>"}`. Lets programs in any language run task tools
 *   without reimplementing them.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage, relayStatus } from "../errors.ts";
import type { Message, Tool } from "../types.ts";
import type { RolloutSession } from "./session.ts";
import {
  completionToSse,
  completionToWire,
  errorBody,
  messagesFromWire,
  samplingFromWire,
  toolsFromWire,
} from "./wire.ts";

const MAX_BODY = 64 << 20;

export interface Registration {
  /** Base URL ending in `/v1` (what `OPENAI_BASE_URL` should be). */
  baseUrl: string;
  secret: string;
  dispose(): void;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
  ) {
    super(message);
  }
}

export class InterceptionServer {
  private server: Server | null = null;
  private starting: Promise<string> | null = null;
  private readonly sessions = new Map<string, RolloutSession<any>>();

  /** Starts the server on first use; resolves to the origin (`http://127.0.0.1:<port>`). */
  private start(): Promise<string> {
    this.starting ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        this.handle(req, res).catch((e) => send(res, 500, errorBody(errorMessage(e), "server_error")));
      });
      // Agents keep connections alive between turns; the default 5 s would race their next call.
      server.keepAliveTimeout = 60_000;
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        this.server = server;
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      });
    });
    return this.starting;
  }

  async register(session: RolloutSession<any>): Promise<Registration> {
    const origin = await this.start();
    const secret = randomBytes(24).toString("hex");
    this.sessions.set(secret, session);
    return { baseUrl: `${origin}/v1`, secret, dispose: () => this.sessions.delete(secret) };
  }

  get activeSessions(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.starting = null;
    this.sessions.clear();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const auth = req.headers["authorization"];
    const secret =
      typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7) : req.headers["x-api-key"];
    const session = typeof secret === "string" ? this.sessions.get(secret) : undefined;
    if (!session)
      return send(res, 401, errorBody("invalid or unknown rollout secret", "authentication_error"));
    const url = (req.url ?? "").split("?")[0]!;
    try {
      if (req.method === "POST" && url === "/v1/chat/completions")
        return await chat(session, await readJson(req), res);
      const tool = /^\/v1\/tools\/([^/]+)$/.exec(url);
      if (req.method === "POST" && tool) {
        const args = await readJson(req);
        const content = await session.executeTool(toolName(tool[1]!), args);
        return send(res, 200, { content });
      }
      throw new HttpFailure(404, `no route ${req.method} ${url}`);
    } catch (e) {
      if (e instanceof HttpFailure) return send(res, e.status, errorBody(e.message, e.type));
      // The program sees the provider's status (so its SDK retries 5xx/429 as it would upstream);
      // the real cause is kept on the session and re-raised after the program exits.
      return send(res, relayStatus(e), errorBody(errorMessage(e), "provider_error"));
    }
  }
}

async function chat(
  session: RolloutSession<any>,
  body: Record<string, any>,
  res: ServerResponse,
): Promise<void> {
  const stream = body["stream"] === true;
  if (stream && session.client.kind === "train")
    throw new HttpFailure(
      400,
      "streaming is not supported in training mode: each turn must be committed token-exact before the program sees it; send stream: false",
    );
  let messages: Message[];
  let tools: Tool[];
  try {
    messages = messagesFromWire(body["messages"]);
    tools = toolsFromWire(body["tools"]);
  } catch (e) {
    // A malformed request is the program's bug: tell it, without touching the rollout.
    throw new HttpFailure(400, errorMessage(e));
  }
  const result = await session.complete(messages, tools, samplingFromWire(body));
  if (result.kind === "stopped") throw new HttpFailure(400, `rollout stopped: ${result.reason}`);
  const model = typeof body["model"] === "string" ? body["model"] : session.model;
  if (!stream) return send(res, 200, completionToWire(result.response, model));
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end(completionToSse(result.response, model));
}

function toolName(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new HttpFailure(400, `malformed tool name in the path: ${encoded}`);
  }
}

function readJson(req: IncomingMessage): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      if (size > MAX_BODY) return; // already refused: discard the rest of the upload
      size += c.length;
      if (size > MAX_BODY) {
        // No req.destroy() here: it reset the connection before the 413 went out, and an SDK
        // retries a reset (the same oversize request, again and again) but not a 413.
        chunks.length = 0;
        reject(new HttpFailure(413, "request body too large"));
      } else chunks.push(c);
    });
    req.on("error", reject);
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        const v = text.trim() === "" ? {} : JSON.parse(text);
        if (typeof v !== "object" || v === null || Array.isArray(v))
          throw new Error("expected a JSON object");
        resolve(v);
      } catch (e) {
        reject(new HttpFailure(400, `invalid JSON body: ${errorMessage(e)}`));
      }
    });
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
