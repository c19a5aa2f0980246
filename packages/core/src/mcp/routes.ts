/**
 * The interception server's rollout side channels, mounted beside the model routes and
 * authenticated by the same secret (a bearer token):
 *
 * - `GET /state` — the rollout's shared state (`trace.state`) as JSON; with the agent program's
 *   credential, keys named in the taskset's `hiddenFields` are withheld, since a server may copy
 *   an answer into state for its own later calls;
 * - `PUT /state` — replaces it (last write wins; validated by the taskset's `stateSchema` when it
 *   has one: 400 `invalid state PUT for <taskset>: …`), answers `{"ok": true}`. Only the
 *   environment servers' credential writes state: rewards and stop conditions read it, so the
 *   agent's is refused (403, and `info.guard` records the attempt);
 * - `GET /task` — `{"cls": <taskset id>, "task": <the task row as a JSON string>}` (V1's shape);
 *   with the agent program's credential the row lacks the taskset's `hiddenFields` (answers),
 *   which only the environment servers' credential (`VF_STATE_SECRET`) reads;
 * - `/mcp/<server>` — the rollout's toolset `<server>` as a stateless streamable-HTTP MCP server.
 */
// The leaf modules, not http/index.ts: the barrel loads listen.ts (node:http), and a rollout
// without an interception server (single-turn evals over plain HTTP) must not load it.
import { HttpError } from "../http/error.ts";
import { sendJson } from "../http/reply.ts";
import type { InterceptionRoute, RouteContext } from "../interception/route.ts";
import { noteGuard } from "../trace/guard.ts";
import { attachmentsOf } from "./attach.ts";

const stateErrorBody = (message: string) => ({ error: message });

function tasksetId(ctx: RouteContext): string {
  return attachmentsOf(ctx.session)?.tasksetId ?? "task";
}

const getState: InterceptionRoute = {
  method: "GET",
  path: "/state",
  errorBody: stateErrorBody,
  handle: (ctx) => sendJson(ctx.res, 200, visible(ctx, "GET /state", ctx.session.trace.state)),
};

const putState: InterceptionRoute = {
  method: "PUT",
  path: "/state",
  errorBody: stateErrorBody,
  async handle(ctx) {
    if (!ctx.trusted) {
      noteGuard(ctx.session.trace, "PUT /state with the agent's credential refused");
      throw new HttpError(403, "state is written by the environment's servers only (VF_STATE_SECRET)");
    }
    let body: unknown = await ctx.json();
    const schema = attachmentsOf(ctx.session)?.stateSchema;
    if (schema) {
      const r = schema.safeParse(body);
      if (!r.success) throw new HttpError(400, `invalid state PUT for ${tasksetId(ctx)}: ${r.error.message}`);
      body = r.data;
    }
    const state = ctx.session.trace.state;
    for (const k of Object.keys(state)) delete state[k];
    Object.assign(state, body);
    sendJson(ctx.res, 200, { ok: true });
  },
};

const getTask: InterceptionRoute = {
  method: "GET",
  path: "/task",
  errorBody: stateErrorBody,
  handle: (ctx) => {
    const task = visible(ctx, "GET /task", ctx.session.trace.task as Record<string, unknown>);
    sendJson(ctx.res, 200, { cls: tasksetId(ctx), task: JSON.stringify(task) });
  },
};

/** `record` as the caller may see it: the agent's credential does not read the hidden keys. */
function visible(ctx: RouteContext, what: string, record: Record<string, unknown>): Record<string, unknown> {
  const hidden = (attachmentsOf(ctx.session)?.hiddenFields ?? []).filter((k) => Object.hasOwn(record, k));
  if (ctx.trusted || hidden.length === 0) return record;
  noteGuard(ctx.session.trace, `${what} with the agent's credential: ${hidden.join(", ")} withheld`);
  return Object.fromEntries(Object.entries(record).filter(([k]) => !hidden.includes(k)));
}

const MCP_PATH = /^\/mcp\/([^/]+)\/?$/;

async function serveMcp(ctx: RouteContext): Promise<void> {
  const name = decodeURIComponent(ctx.params[0]!);
  const toolbox = attachmentsOf(ctx.session)?.toolbox;
  if (!toolbox?.has(name))
    throw new HttpError(
      404,
      `no MCP server "${name}" in this rollout (have: ${toolbox?.serverNames.join(", ") || "none"})`,
    );
  // The SDK's server side loads with the first MCP request: most rollouts never make one.
  const { serveToolset } = await import("./serve.ts");
  let listed = false;
  await serveToolset(
    {
      name,
      listTools: async (signal) => {
        const tools = await toolbox.listServer(name, signal);
        listed = true;
        return tools;
      },
      callTool: (tool, args, options) => toolbox.callServer(name, tool, args, options?.meta),
    },
    ctx.req,
    ctx.res,
  );
  if (listed) toolbox.noteServed(name);
}

/** POST carries the JSON-RPC messages; GET (a server stream) and DELETE get the transport's own answers. */
const mcpRoutes: InterceptionRoute[] = (["POST", "GET", "DELETE"] as const).map((method) => ({
  method,
  path: MCP_PATH,
  handle: serveMcp,
}));

export const rolloutRoutes: readonly InterceptionRoute[] = [getState, putState, getTask, ...mcpRoutes];
