/**
 * One engine worker: a node:http server speaking SGLang's native endpoints over an EngineCore.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  bearerCheck,
  guarded,
  HttpError,
  listen,
  pathOf,
  type RunningServer,
  readJson,
  sendEmpty,
  sendError,
  sendJson,
} from "envroll/internal/http/index.ts";
import { CHAT_PATH, handleChatCompletion } from "./chat-completions.ts";
import type { EngineCore } from "./core.ts";
import { errorBody, validationBody } from "./error-body.ts";
import type { FaultInjector } from "./faults.ts";
import { applyFault, handleGenerate } from "./generate-handler.ts";
import { BadRequest } from "./sampling.ts";
import type { EngineOptions, FaultKind } from "./types.ts";

export interface WorkerConfig {
  host: string;
  port: number;
  token: string | undefined;
  bodyLimit: number;
  faults: FaultInjector | null;
  /** Behind our own router: honour `x-envroll-fault` (the router drew the fault). */
  trustFaultHeader: boolean;
  stallMs: number;
  incrementalStreaming: boolean;
  modelName: string;
  onRequest: EngineOptions["onRequest"];
  /** Extra GET routes (the engine's stats endpoint), answered after auth. */
  extraGet?: Record<string, () => unknown>;
  maxRunningRequests: number;
}

export type { RunningServer };

export function startWorker(core: EngineCore, cfg: WorkerConfig): Promise<RunningServer> {
  const authorized = bearerCheck(cfg.token);
  let closing = false;
  let signalClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    signalClosed = resolve;
  });
  const genCtx = {
    core,
    incrementalStreaming: cfg.incrementalStreaming,
    closing: closed,
    stallMs: cfg.stallMs,
  };

  const chatCtx = { core, modelName: cfg.modelName };

  const served = core.opts.model;
  const modelInfo = () => ({
    model_path: cfg.modelName,
    tokenizer_path: served.path === "qwen3" ? "Qwen/Qwen3-0.6B" : served.path,
    is_generation: true,
    preferred_sampling_params: null,
    weight_version: core.weightVersion,
    has_image_understanding: false,
    has_audio_understanding: false,
    model_type: served.config.modelType,
    architectures: served.config.architectures,
  });
  const modelCard = () => ({
    id: cfg.modelName,
    object: "model",
    created: 0,
    owned_by: "sglang",
    root: cfg.modelName,
    parent: null,
    max_model_len: core.opts.contextLength,
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req);
    const method = req.method ?? "GET";
    const chat = path === CHAT_PATH && method === "POST";
    if (chat || (path === "/generate" && (method === "POST" || method === "PUT"))) {
      if (chat) core.counters.chatCompletions++;
      else core.counters.requests++;
      const body = await readJson(req, cfg.bodyLimit);
      cfg.onRequest?.(body, req.headers);
      const injected = cfg.trustFaultHeader
        ? (req.headers["x-envroll-fault"] as FaultKind | undefined)
        : undefined;
      const fault = injected ?? cfg.faults?.draw() ?? null;
      if (await applyFault(fault, req, res, genCtx)) return;
      if (core.inflight.size >= cfg.maxRunningRequests) {
        // SGLang's shape for a scheduler-side abort with status 503 (overload / queue limits).
        return sendJson(res, 503, {
          object: "error",
          message: "The server is overloaded: too many running requests.",
          type: "503",
          param: null,
          code: 503,
        });
      }
      if (chat) {
        const cut = fault === "abort" ? 0.5 : undefined;
        return sendJson(res, 200, await handleChatCompletion(body, cut, res, chatCtx));
      }
      return handleGenerate(body, fault, res, genCtx);
    }
    if (method === "GET" && cfg.extraGet?.[path]) return sendJson(res, 200, cfg.extraGet[path]());
    switch (`${method} ${path}`) {
      case "POST /abort_request": {
        const b = (await readJson(req, cfg.bodyLimit)) as { rid?: unknown; abort_all?: unknown };
        core.abort(typeof b.rid === "string" ? b.rid : "", b.abort_all === true);
        return sendEmpty(res, 200);
      }
      case "GET /health":
      case "GET /health_generate":
        return sendEmpty(res, closing ? 503 : 200);
      case "GET /get_model_info":
        return sendJson(res, 200, modelInfo());
      case "GET /get_weight_version":
        return sendJson(res, 200, { weight_version: core.weightVersion });
      case "GET /get_server_info":
        return sendJson(res, 200, {
          ...modelInfo(),
          context_length: core.opts.contextLength,
          version: "envroll-engine",
        });
      case "GET /v1/models":
        return sendJson(res, 200, { object: "list", data: [modelCard()] });
      case "POST /update_weight_version": {
        const b = (await readJson(req, cfg.bodyLimit)) as {
          new_version?: unknown;
          abort_all_requests?: unknown;
        };
        if (typeof b.new_version !== "string") throw new BadRequest("new_version must be a string");
        // Aborting in-flight requests is the default (radixark/miles PR #2589).
        const aborted =
          b.abort_all_requests === false ? 0 : core.abort("", true, "Abort for weight version update");
        core.weightVersion = b.new_version;
        return sendJson(res, 200, {
          success: true,
          message: `Weight version updated to ${b.new_version}; aborted ${aborted} request(s).`,
          new_version: b.new_version,
        });
      }
      case "POST /pause_generation": {
        const b = (await readJson(req, cfg.bodyLimit)) as { mode?: unknown };
        const mode = b.mode ?? "abort";
        if (mode !== "abort" && mode !== "retract" && mode !== "in_place") {
          throw new BadRequest(`mode must be abort, retract or in_place, got ${JSON.stringify(mode)}`);
        }
        core.pause(mode);
        return sendJson(res, 200, { message: "Generation paused successfully.", status: "ok" });
      }
      case "POST /continue_generation":
        core.resume();
        return sendJson(res, 200, { message: "Generation continued successfully.", status: "ok" });
      case "GET /flush_cache":
      case "POST /flush_cache":
        if (core.inflight.size > 0)
          return sendJson(res, 400, errorBody("Cannot flush cache while requests are running."));
        core.cache.clear();
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(
          "Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, the operation will not be performed.)\n",
        );
        return;
    }
    if (method === "GET" && path.startsWith("/v1/models/")) {
      const id = decodeURIComponent(path.slice("/v1/models/".length));
      if (id === cfg.modelName) return sendJson(res, 200, modelCard());
      return sendJson(res, 404, {
        error: {
          message: `The model '${id}' does not exist`,
          type: "NotFoundError",
          param: "model",
          code: 404,
        },
      });
    }
    sendJson(res, 404, { detail: "Not Found" });
  }

  const handler = guarded(
    (req, res) => {
      if (!authorized(req)) return sendJson(res, 401, errorBody("Unauthorized"));
      return route(req, res);
    },
    (err, _req, res) => answerError(err, res, core),
  );
  return listen(handler, { host: cfg.host, port: cfg.port }, () => {
    closing = true;
    signalClosed();
  });
}

export function answerError(err: unknown, res: ServerResponse, core?: EngineCore): void {
  if (res.headersSent) {
    // Mid-stream: SGLang sends an error event then [DONE].
    if (!res.writableEnded)
      res.end(
        `data: ${JSON.stringify(errorBody(String((err as Error)?.message ?? err)))}\n\ndata: [DONE]\n\n`,
      );
    return;
  }
  if (err instanceof BadRequest) {
    if (core) core.counters.errors400++;
    sendJson(res, 400, errorBody(err.message));
  } else if (err instanceof HttpError) {
    if (core && err.status === 400) core.counters.errors400++;
    // FastAPI answers an unparseable body in its validation shape, everything else as SGLang.
    const body =
      err.code === "invalid_json"
        ? validationBody(`JSON decode error: ${(err.cause as Error).message}`)
        : errorBody(err.message);
    sendError(res, err.status, body);
  } else sendJson(res, 500, errorBody(`internal error: ${(err as Error)?.message ?? String(err)}`));
}
