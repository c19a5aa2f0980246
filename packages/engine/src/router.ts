/**
 * Router mode: a front server in the SGLang Model Gateway's place, spreading /generate (and
 * /v1/chat/completions) over K workers. With `consistent_hashing`, `X-SMG-Routing-Key` picks the worker on a hash ring, so a
 * rollout's turns keep hitting the worker that holds its prefix cache; `X-SMG-Target-Worker`
 * pins a worker index. Admin calls (abort, weight version, cache flush) fan out to every worker.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  bearerCheck,
  guarded,
  listen,
  pathOf,
  type RunningServer,
  readBody,
  sendEmpty,
  sendJson,
} from "envroll/internal/http/index.ts";
import { Pool } from "envroll/internal/undici.ts";
import { CHAT_PATH } from "./chat-completions.ts";
import { errorBody } from "./error-body.ts";
import type { FaultInjector } from "./faults.ts";
import { applyFault, type GenerateContext } from "./generate-handler.ts";
import { HashRing } from "./hash-ring.ts";
import { answerError } from "./server.ts";
import type { EngineOptions } from "./types.ts";

export interface RouterConfig {
  host: string;
  port: number;
  token: string | undefined;
  bodyLimit: number;
  policy: NonNullable<EngineOptions["routerPolicy"]>;
  workerUrls: string[];
  faults: FaultInjector | null;
  stallMs: number;
  onRequest: EngineOptions["onRequest"];
  extraGet?: Record<string, () => unknown>;
}

export interface RouterServer extends RunningServer {
  /** /generate requests forwarded to each worker, in worker order. */
  perWorker: number[];
}

const FORWARD_HEADERS = ["content-type", "authorization"];

export async function startRouter(cfg: RouterConfig): Promise<RouterServer> {
  const authorized = bearerCheck(cfg.token);
  const pools = cfg.workerUrls.map(
    (u) => new Pool(u, { connections: 512, headersTimeout: 0, bodyTimeout: 0 }),
  );
  const ring = new HashRing(cfg.workerUrls);
  const perWorker = cfg.workerUrls.map(() => 0);
  let rr = 0;
  let signalClosed: () => void = () => {};
  const closing = new Promise<void>((resolve) => {
    signalClosed = resolve;
  });
  const stallCtx = { closing, stallMs: cfg.stallMs } as GenerateContext;

  function pick(req: IncomingMessage): number {
    const target = req.headers["x-smg-target-worker"];
    if (typeof target === "string") {
      const i = Number(target);
      if (!Number.isInteger(i) || i < 0 || i >= pools.length) return -1;
      return i;
    }
    const key = req.headers["x-smg-routing-key"];
    // `manual` is sticky per key too; the ring gives that stickiness without per-key state.
    const keyed = cfg.policy === "consistent_hashing" || cfg.policy === "manual";
    if (keyed && typeof key === "string" && key) return ring.lookup(key);
    if (cfg.policy === "random") return Math.floor(Math.random() * pools.length);
    return rr++ % pools.length;
  }

  function headersFor(req: IncomingMessage, extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { ...extra };
    for (const name of FORWARD_HEADERS) {
      const v = req.headers[name];
      if (typeof v === "string") h[name] = v;
    }
    return h;
  }

  async function forward(
    i: number,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    body: string,
    extra?: Record<string, string>,
  ) {
    const ac = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) ac.abort();
    });
    const up = await pools[i]!.request({
      method: (req.method ?? "POST") as "POST",
      path,
      body: req.method === "GET" ? undefined : body,
      headers: headersFor(req, extra),
      signal: ac.signal,
    });
    const headers: Record<string, string> = { "x-envroll-worker": String(i) };
    const ct = up.headers["content-type"];
    if (typeof ct === "string") headers["content-type"] = ct;
    res.writeHead(up.statusCode, headers);
    for await (const chunk of up.body) res.write(chunk);
    res.end();
  }

  /** Sends an admin call to every worker; answers with the first worker's reply. */
  async function fanOut(req: IncomingMessage, res: ServerResponse, path: string, body: string | undefined) {
    const replies = await Promise.all(
      pools.map(async (p) => {
        const r = await p.request({
          method: (req.method ?? "GET") as "GET",
          path,
          body,
          headers: headersFor(req),
        });
        return { status: r.statusCode, text: await r.body.text(), type: r.headers["content-type"] };
      }),
    );
    const first = replies[0]!;
    res.writeHead(first.status, typeof first.type === "string" ? { "content-type": first.type } : {});
    res.end(first.text);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    const method = req.method ?? "GET";
    const chat = path === CHAT_PATH && method === "POST";
    if (chat || (path === "/generate" && (method === "POST" || method === "PUT"))) {
      const body = await readBody(req, cfg.bodyLimit);
      if (cfg.onRequest) cfg.onRequest(parseOrRaw(body), req.headers);
      const fault = cfg.faults?.draw() ?? null;
      if (await applyFault(fault, req, res, stallCtx)) return;
      const i = pick(req);
      if (i < 0) return sendJson(res, 503, errorBody("X-SMG-Target-Worker does not name a healthy worker"));
      perWorker[i]!++;
      return forward(i, req, res, path, body, fault === "abort" ? { "x-envroll-fault": "abort" } : undefined);
    }
    if (method === "GET" && cfg.extraGet?.[path]) return sendJson(res, 200, cfg.extraGet[path]());
    switch (`${method} ${path}`) {
      case "GET /workers":
        return sendJson(res, 200, {
          workers: cfg.workerUrls.map((url, i) => ({
            url,
            worker_type: "regular",
            is_healthy: true,
            load: perWorker[i],
          })),
          total: cfg.workerUrls.length,
        });
      case "GET /list_workers":
        return sendJson(res, 200, { urls: cfg.workerUrls });
      case "GET /health":
      case "GET /liveness":
      case "GET /readiness":
      case "GET /health_generate":
        return sendEmpty(res, 200);
      case "POST /abort_request":
      case "POST /update_weight_version":
      case "POST /flush_cache":
      case "POST /pause_generation":
      case "POST /continue_generation":
      case "GET /flush_cache":
        return fanOut(req, res, path, method === "POST" ? await readBody(req, cfg.bodyLimit) : undefined);
      case "GET /get_model_info":
      case "GET /get_server_info":
      case "GET /get_weight_version":
        return forward(0, req, res, path, "");
    }
    if (method === "GET" && path.startsWith("/v1/models")) return forward(0, req, res, path, "");
    sendJson(res, 404, { detail: "Not Found" });
  }

  const handler = guarded(
    (req, res) => {
      if (!authorized(req)) return sendJson(res, 401, errorBody("Unauthorized"));
      return route(req, res);
    },
    (err, _req, res) => {
      // A worker that vanished mid-request: the gateway answers 502.
      if (!res.headersSent && (err as { code?: string })?.code?.startsWith?.("UND_ERR")) {
        sendJson(res, 502, errorBody(`worker error: ${(err as Error).message}`));
      } else answerError(err, res);
    },
  );
  const running = await listen(handler, { host: cfg.host, port: cfg.port }, signalClosed);
  return {
    ...running,
    perWorker,
    close: async () => {
      await running.close();
      await Promise.all(pools.map((p) => p.destroy()));
    },
  };
}

function parseOrRaw(body: string): unknown {
  try {
    return body ? JSON.parse(body) : {};
  } catch {
    return body;
  }
}
