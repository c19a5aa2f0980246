/**
 * The interception server knows nothing of MCP (it sits below it): the rollout routes (`/state`,
 * `/task`, `/mcp/<server>`) and the worker-scoped MCP servers are attached here, once per server,
 * the first time a rollout's wiring reaches it.
 */
import type { InterceptionServer } from "../interception/server.ts";
import { SharedServers } from "./launch.ts";
import { rolloutRoutes } from "./routes.ts";

const attached = new WeakMap<InterceptionServer, SharedServers>();

/** The server's worker-scoped MCP servers; mounts the rollout routes on first use. */
export function mcpOn(server: InterceptionServer): SharedServers {
  let shared = attached.get(server);
  if (!shared) {
    shared = new SharedServers();
    for (const route of rolloutRoutes) server.mount(route);
    server.closeWith(shared);
    attached.set(server, shared);
  }
  return shared;
}
