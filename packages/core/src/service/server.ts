/**
 * The rollout service over HTTP (node:http: the streaming endpoint needs direct control of the
 * socket to notice a closed client at once and abort its episodes).
 *
 *   GET  /health   → {"status":"ok"}
 *   GET  /info     → environment facts the Python side validates against
 *   POST /rollout  → NDJSON: one `group` line per finished group, then one `summary` line
 *   POST /abort    → aborts active requests (all, or one rollout step's)
 *   POST /release  → hands back the tasks of groups a client received but did not use
 *
 * Bound to 127.0.0.1 by default; any other host requires a token (checked on every route).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import {
  bearerCheck,
  guarded,
  HttpError,
  isLoopback,
  listen,
  pathOf,
  Routes,
  readJson,
  sendError,
  sendJson,
} from "../http/index.ts";
import type { SampleCounter } from "../miles/convert.ts";
import type { ClientFactory, RolloutEnvironment } from "./backend.ts";
import { CursorStore } from "./cursor-store.ts";
import {
  AbortRequestSchema,
  formatIssues,
  ReleaseRequestSchema,
  type RolloutRequest,
  RolloutRequestSchema,
  type SummaryLine,
} from "./protocol.ts";
import { type RequestLedger, type RunDeps, runRollout } from "./rollout-run.ts";

/** How many train requests stay releasable (only the last one or two ever are in practice). */
const LEDGER_CAPACITY = 16;

export const SERVICE_VERSION = 1;

export interface ServiceOptions {
  env: RolloutEnvironment;
  makeClient: ClientFactory;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  token?: string | null;
  /** Where the train cursor is saved per step; null keeps it in memory only. */
  stateDir?: string | null;
  bodyLimit?: number;
  log?: (message: string) => void;
}

export interface RunningService {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

interface ActiveRequest {
  rolloutId: number;
  evaluation: boolean;
  controller: AbortController;
  /** Settles when the request has handed back its tasks and saved the cursor. */
  done: Promise<unknown>;
  /** Settles once the response (summary line included) has been flushed or the client left. */
  flushed: Promise<void>;
}

export async function startService(opts: ServiceOptions): Promise<RunningService> {
  const host = opts.host ?? "127.0.0.1";
  const token = opts.token ?? null;
  if (!isLoopback(host) && !token) {
    throw new Error(`refusing to listen on non-loopback host ${host} without --token`);
  }
  const bodyLimit = opts.bodyLimit ?? 1 << 20;
  const log = opts.log ?? (() => {});
  const deps: RunDeps = {
    env: opts.env,
    makeClient: opts.makeClient,
    cursors: new CursorStore(opts.stateDir ?? null),
    counters: new Map<number, SampleCounter>(),
  };
  const active = new Set<ActiveRequest>();
  let closing = false;
  // Train requests share one cursor: run them one after another (a refill that arrives while the
  // previous stream is still draining its aborts waits for it instead of racing it).
  let trainChain: Promise<unknown> = Promise.resolve();
  const ledgers = new Map<string, { entry: ActiveRequest; ledger: RequestLedger }>();

  const info = () => ({
    service_version: SERVICE_VERSION,
    taskset_id: opts.env.info.tasksetId,
    num_tasks: opts.env.info.numTasks,
    num_eval_tasks: opts.env.info.numEvalTasks,
    requires_group_scoring: opts.env.info.requiresGroupScoring,
    // envroll_miles checks its group sizes against this instead of repeating the rule.
    min_group_size: opts.env.info.minGroupSize,
    // Every dialect and streaming mode trains; which ones a run used is in its summary line.
    dialects: ["chat", "responses", "anthropic"],
    streaming: true,
    active_requests: active.size,
  });

  const rollout = async (req: IncomingMessage, res: ServerResponse) => {
    const parsed = RolloutRequestSchema.safeParse(await readJson(req, bodyLimit));
    if (!parsed.success) throw new HttpError(400, formatIssues(parsed.error));
    const body: RolloutRequest = parsed.data;
    if (!body.evaluation && body.count === undefined && body.tasks === undefined)
      throw new HttpError(400, "count: required for train requests (or tasks)");
    const limit = body.evaluation ? opts.env.info.numEvalTasks : opts.env.info.numTasks;
    const bad = body.tasks?.findIndex((t) => t.task >= limit) ?? -1;
    if (bad >= 0)
      throw new HttpError(
        400,
        `tasks.${bad}.task: ${body.tasks?.[bad]?.task} is out of range (${limit} ${body.evaluation ? "eval" : "train"} tasks)`,
      );
    const entry: ActiveRequest = {
      rolloutId: body.rollout_id,
      evaluation: body.evaluation,
      controller: new AbortController(),
      done: Promise.resolve(),
      // Shutdown waits for this, not just `done`: closing the sockets right after `done` would
      // cut the stream before its summary line, and the client could not tell a stop from a crash.
      flushed: new Promise<void>((resolve) => {
        res.once("finish", resolve);
        res.once("close", resolve);
      }),
    };
    active.add(entry);
    // `close` on the response fires when the client goes away before we end the stream.
    res.on("close", () => {
      if (!res.writableFinished) entry.controller.abort();
    });
    res.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
    res.flushHeaders();
    const write = (line: unknown) =>
      new Promise<boolean>((resolve) => {
        if (res.destroyed) return resolve(false);
        res.write(`${JSON.stringify(line)}\n`, (err) => resolve(!err && !res.destroyed));
      });
    const ledger: RequestLedger = { cursor: null, written: [] };
    // Given tasks: the client owns the cursor, so nothing of this request is releasable here.
    const ownCursor = !body.evaluation && body.tasks === undefined;
    if (body.request_id !== undefined && ownCursor) {
      ledgers.set(body.request_id, { entry, ledger });
      if (ledgers.size > LEDGER_CAPACITY) ledgers.delete(ledgers.keys().next().value as string);
    }
    const run = () => runRollout(body, deps, write, entry.controller.signal, ledger);
    try {
      const task = ownCursor ? trainChain.then(run) : run();
      entry.done = task.catch(() => {});
      if (ownCursor) trainChain = entry.done;
      const summary = await task;
      log(
        `rollout ${body.rollout_id}${body.evaluation ? " (eval)" : ""}: ${summary.delivered}/${summary.requested} ` +
          `groups, ${summary.aborted} aborted${summary.error ? `, error: ${summary.error}` : ""}`,
      );
      await write(summary);
    } catch (err) {
      // E.g. a saved cursor that does not fit this environment: the stream still ends with a summary.
      const failed: SummaryLine = {
        type: "summary",
        rollout_id: body.rollout_id,
        evaluation: body.evaluation,
        requested: body.tasks?.length ?? (body.evaluation ? 0 : (body.count ?? 0)),
        delivered: 0,
        aborted: 0,
        dropped: {},
        error: err instanceof Error ? err.message : String(err),
        elapsed_s: 0,
        dialects: {},
        cursor: null,
      };
      await write(failed);
    } finally {
      active.delete(entry);
      res.end();
    }
  };

  const abort = async (req: IncomingMessage, res: ServerResponse) => {
    const parsed = AbortRequestSchema.safeParse(await readJson(req, bodyLimit));
    if (!parsed.success) throw new HttpError(400, formatIssues(parsed.error));
    let aborted = 0;
    for (const a of active) {
      if (parsed.data.rollout_id === undefined || a.rolloutId === parsed.data.rollout_id) {
        a.controller.abort();
        aborted++;
      }
    }
    sendJson(res, 200, { aborted });
  };

  const release = async (req: IncomingMessage, res: ServerResponse) => {
    const parsed = ReleaseRequestSchema.safeParse(await readJson(req, bodyLimit));
    if (!parsed.success) throw new HttpError(400, formatIssues(parsed.error));
    const { request_id, used } = parsed.data;
    const found = ledgers.get(request_id);
    if (!found) throw new HttpError(404, `unknown train request_id ${request_id}`);
    // Stop the request first so nothing more is written, and let it settle its cursor.
    found.entry.controller.abort();
    await found.entry.done;
    const { cursor, written } = found.ledger;
    if (!cursor || !deps.cursors.isCurrent(cursor)) {
      throw new HttpError(409, `request ${request_id}'s step is over; its groups can no longer be released`);
    }
    const judged = new Set(used);
    const unused = written.filter((w) => !judged.has(w.seq));
    found.ledger.written = written.filter((w) => judged.has(w.seq));
    const released = unused.filter((w) => cursor.release(w.taken)).map((w) => w.taken.task);
    await deps.cursors.save(cursor);
    sendJson(res, 200, { released });
  };

  type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;
  const routes = new Routes<Route>()
    .add("GET", "/health", (_req, res) => sendJson(res, 200, { status: "ok" }))
    .add("GET", "/info", (_req, res) => sendJson(res, 200, info()))
    .add("POST", "/rollout", rollout)
    .add("POST", "/abort", abort)
    .add("POST", "/release", release);
  const authorized = bearerCheck(token);

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) throw new HttpError(401, "missing or wrong bearer token");
    const path = pathOf(req);
    // Shutting down: a refill that arrives while the last streams drain must not start new
    // groups (they would run on a cursor that is being saved, then die with the process).
    if (closing && path !== "/health") throw new HttpError(503, "the rollout service is shutting down");
    await routes.find(req.method ?? "GET", path).handler(req, res);
  };

  const running = await listen(
    guarded(route, (err, _req, res) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      if (status === 500) log(`internal error: ${message}`);
      // An unexpected error's message can carry file paths (state dir, modules): it goes to the
      // log, and the client only learns that the service failed.
      sendError(res, status, { error: status === 500 ? "internal error (see the service log)" : message });
    }),
    // Node's default idle keep-alive: the Python client opens a connection per request.
    { host, port: opts.port ?? 0, keepAliveTimeout: 5_000 },
  );
  const { server, port } = running;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    async close() {
      closing = true;
      // Abort and drain: every request hands its tasks back and saves the cursor before we exit.
      for (const a of active) a.controller.abort();
      // Both: `done` (cursor saved) can come after `flushed` when the client already left.
      await Promise.all([...active].map((a) => Promise.all([a.done, a.flushed])));
      await running.close();
    },
  };
}
