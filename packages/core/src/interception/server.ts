/**
 * The interception HTTP server: the model endpoint external harness programs talk to. One
 * server multiplexes every rollout by its secret (so thousands of rollouts do not mean
 * thousands of ports), binds to 127.0.0.1 only, and is started lazily — a run that uses only the
 * in-process harnesses never opens a socket.
 *
 * Routes are mounted (`mount`), each with its own secret header and error body shape; the
 * built-in ones are the model dialects (`/v1/chat/completions`, …) and
 * `POST /v1/tools/{name}`, which executes one of the task's tools (body = the arguments object,
 * answer `{"content": "<tool message text>"}`) so programs in any language run task tools
 * without reimplementing them; and V1's state channel and the rollout's toolsets over MCP
 * (`GET/PUT /state`, `GET /task`, `/mcp/<server>`; see mcp/routes.ts, mounted by mcp/mount.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { errorMessage, relayStatus } from "../errors.ts";
import {
  bearerToken,
  HttpError,
  listen,
  pathOf,
  Routes,
  type RunningServer,
  readBodyBytes,
  readJsonObject,
  sendError,
  sendJson,
} from "../http/index.ts";
import { randomHex } from "../random.ts";
import { anthropicDialect, countTokensRoute } from "./dialects/anthropic/index.ts";
import { chatDialect, openAiErrorBody } from "./dialects/chat.ts";
import { responsesDialect } from "./dialects/responses/index.ts";
import { modelRoute } from "./model-route.ts";
import type { InterceptionRoute } from "./route.ts";
import type { RolloutSession } from "./session.ts";

const MAX_BODY = 64 << 20;

export interface Registration {
  /** Base URL ending in `/v1` (what `OPENAI_BASE_URL` should be). */
  baseUrl: string;
  /** The agent program's credential. */
  secret: string;
  /**
   * The environment's own servers' credential (tool and user-simulator servers): the same
   * routes, but `/task` answers the whole row, hidden fields included.
   */
  serverSecret: string;
  dispose(): void;
}

interface Holder {
  session: RolloutSession<any>;
  trusted: boolean;
}

export interface InterceptionServerOptions {
  /** A streaming turn pending this long starts sending SSE keepalive comments (default 3 s). */
  keepaliveMs?: number;
  /**
   * Parse a resent history past the bytes it shares with the rollout's last request (default
   * true; false parses every body whole — the reference the fast path is tested against).
   */
  reuseResent?: boolean;
}

export class InterceptionServer {
  private running: RunningServer | null = null;
  private starting: Promise<string> | null = null;
  private readonly sessions = new Map<string, Holder>();
  private readonly routes = new Routes<InterceptionRoute>();
  /** Model requests parsed past their resent history, and the history elements that reused. */
  readonly resent = { bodies: 0, reusedElements: 0 };
  /** What was attached to this server from above (mcp/mount.ts) and ends with it. */
  private readonly attached: { close(): Promise<void> }[] = [];

  constructor(options: InterceptionServerOptions = {}) {
    const modelOptions = {
      keepaliveMs: options.keepaliveMs ?? 3000,
      reuseResent: options.reuseResent ?? true,
      resent: this.resent,
    };
    for (const dialect of [chatDialect, responsesDialect, anthropicDialect])
      this.mount(modelRoute(dialect, modelOptions));
    this.mount(countTokensRoute);
    this.mount(toolRoute);
  }

  /** Closes `resource` when the server closes (before the listener, as it may still hold requests). */
  closeWith(resource: { close(): Promise<void> }): void {
    this.attached.push(resource);
  }

  /** Adds a route (before or after the server started); a duplicate method and path throws. */
  mount(route: InterceptionRoute): void {
    this.routes.add(route.method, route.path, route);
  }

  /** Starts the server on first use; resolves to the origin (`http://127.0.0.1:<port>`). */
  private start(): Promise<string> {
    this.starting ??= listen((req, res) => void this.handle(req, res), {
      host: "127.0.0.1",
      port: 0,
      // Agents keep connections alive between turns; the default 5 s would race their next call.
      keepAliveTimeout: 60_000,
      // A turn can take as long as the model does; only the upload is bounded.
      requestTimeout: 0,
    }).then((running) => {
      this.running = running;
      return running.url;
    });
    return this.starting;
  }

  async register(session: RolloutSession<any>): Promise<Registration> {
    const origin = await this.start();
    const secret = randomHex(24);
    const serverSecret = randomHex(24);
    this.sessions.set(secret, { session, trusted: false });
    this.sessions.set(serverSecret, { session, trusted: true });
    return {
      baseUrl: `${origin}/v1`,
      secret,
      serverSecret,
      dispose: () => {
        this.sessions.delete(secret);
        this.sessions.delete(serverSecret);
      },
    };
  }

  get activeSessions(): number {
    return this.sessions.size / 2;
  }

  async close(): Promise<void> {
    const running = this.running;
    this.running = null;
    this.starting = null;
    this.sessions.clear();
    await Promise.all(this.attached.splice(0).map((r) => r.close()));
    await running?.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let route: InterceptionRoute | null = null;
    try {
      const match = this.routes.find(req.method ?? "GET", pathOf(req));
      route = match.handler;
      const secret = (route.secret ?? bearerToken)(req);
      const holder = secret ? this.sessions.get(secret) : undefined;
      if (!holder)
        throw new HttpError(401, "invalid or unknown rollout secret", { code: "authentication_error" });
      await route.handle({
        req,
        res,
        session: holder.session,
        trusted: holder.trusted,
        params: match.params,
        json: () => readJsonObject(req, MAX_BODY),
        bytes: () => readBodyBytes(req, MAX_BODY),
      });
    } catch (e) {
      const shape = route?.errorBody ?? openAiErrorBody;
      if (e instanceof HttpError) return sendError(res, e.status, shape(e.message, errorType(e.status)));
      // The program sees the provider's status (so its SDK retries 5xx/429 as it would upstream);
      // the real cause is kept on the session and re-raised after the program exits.
      sendError(res, relayStatus(e), shape(errorMessage(e), "provider_error"));
    }
  }
}

function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  return "invalid_request_error";
}

const toolRoute: InterceptionRoute = {
  method: "POST",
  path: /^\/v1\/tools\/([^/]+)$/,
  async handle({ session, params, json, res }) {
    const args = await json();
    const content = await session.executeTool(toolName(params[0]!), args);
    sendJson(res, 200, { content });
  },
};

function toolName(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new HttpError(400, `malformed tool name in the path: ${encoded}`);
  }
}
