/**
 * What the interception server mounts: a route names its method and path, how it reads the
 * rollout's secret from a request and how its error bodies look (each wire format has its own),
 * and handles the request for the session that secret belongs to. The model dialects, the tool
 * route and other channels (MCP, state) are all mounted this way, side by side.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RolloutSession } from "./session.ts";

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  session: RolloutSession<any>;
  /** The request carries the environment servers' credential, not the agent program's. */
  trusted: boolean;
  /** Capture groups of a pattern path. */
  params: string[];
  /** The body as a JSON object (bounded: 413 past the limit, 400 for anything but an object). */
  json(): Promise<Record<string, any>>;
  /** The body's bytes, bounded as `json` (for a reader that parses them itself). */
  bytes(): Promise<Buffer>;
}

export interface InterceptionRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string | RegExp;
  /** The rollout secret a request carries; the bearer token unless the route says otherwise. */
  secret?: (req: IncomingMessage) => string | null;
  /** This route's error body; OpenAI's `{error: {message, type, code}}` unless it says otherwise. */
  errorBody?: (message: string, type: string) => unknown;
  handle(ctx: RouteContext): Promise<void> | void;
}
