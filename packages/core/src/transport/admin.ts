/**
 * The transport's side channel to the engine: aborts, the worker listing behind a router and the
 * context-length question. They go over a few sockets of their own, because an abort must never
 * wait for a connection behind the very generations it is meant to stop.
 */
import { ProviderHttpError } from "./errors.ts";
import { createGeneratePool, exchange, type GeneratePool } from "./http.ts";
import { parseWorkerList, WORKER_LIST_PATHS } from "./workers.ts";

const ADMIN_TIMEOUT_MS = 10_000;
const WORKER_CACHE_MS = 5_000;
const ADMIN_CONNECTIONS = 8;

export class AdminChannel {
  // Made at the first admin request. Plain http goes through the transport's own HTTP/1.1 client,
  // as /generate does: the context-length question is asked at every run's first turn, and undici
  // (node:http, TLS, HTTP/2) would otherwise load for it (test/build/lean-start.test.ts).
  private ownPool: GeneratePool | null = null;
  private readonly workerPools = new Map<string, GeneratePool>();
  private workerCache: { at: number; urls: string[] } | null = null;

  constructor(
    private readonly origin: string,
    private readonly prefix: string,
    private readonly headers: Record<string, string>,
    private readonly connectTimeoutMs: number,
  ) {}

  private get pool(): GeneratePool {
    this.ownPool ??= createGeneratePool(this.origin, ADMIN_CONNECTIONS, this.connectTimeoutMs);
    return this.ownPool;
  }

  /** `max_model_len` from the server's `/v1/models` (SGLang, routers and the stand-ins). */
  async contextLength(): Promise<number | null> {
    try {
      const reply = await this.get("/v1/models");
      if (reply.status !== 200) return null;
      const len = (JSON.parse(reply.text) as { data?: { max_model_len?: unknown }[] }).data?.[0]
        ?.max_model_len;
      return typeof len === "number" && len > 0 ? len : null;
    } catch {
      return null;
    }
  }

  /**
   * Worker base URLs behind the router, or `[]` when the base URL is a single server. Cached for
   * a few seconds: aborting many rollouts at once should not list the workers once per rollout.
   */
  async listWorkers(): Promise<string[]> {
    const now = performance.now();
    if (this.workerCache && now - this.workerCache.at < WORKER_CACHE_MS) return this.workerCache.urls;
    const urls = await this.fetchWorkers();
    this.workerCache = { at: now, urls };
    return urls;
  }

  private async fetchWorkers(): Promise<string[]> {
    for (const path of WORKER_LIST_PATHS) {
      try {
        const reply = await this.get(path);
        if (reply.status !== 200) continue;
        const urls = parseWorkerList(JSON.parse(reply.text));
        if (urls.length > 0) return urls;
      } catch {
        // Not a router (or not this kind): try the next listing endpoint.
      }
    }
    return [];
  }

  private get(path: string) {
    return exchange(this.pool, {
      method: "GET",
      path: `${this.prefix}${path}`,
      headers: this.headers,
      timeoutMs: ADMIN_TIMEOUT_MS,
    });
  }

  /** `/abort_request` on the base URL and on every worker behind it. */
  async broadcastAbort(body: { rid: string; abort_all: boolean }): Promise<void> {
    const payload = JSON.stringify(body);
    const workers = await this.listWorkers();
    const targets: { pool: GeneratePool; path: string }[] = [
      { pool: this.pool, path: `${this.prefix}/abort_request` },
    ];
    for (const url of workers) {
      const u = new URL(url);
      if (u.origin === this.origin && u.pathname.replace(/\/+$/, "") === this.prefix) continue;
      targets.push({
        pool: this.workerPool(u.origin),
        path: `${u.pathname.replace(/\/+$/, "")}/abort_request`,
      });
    }
    const results = await Promise.allSettled(
      targets.map((t) =>
        exchange(t.pool, {
          method: "POST",
          path: t.path,
          body: payload,
          headers: this.headers,
          timeoutMs: ADMIN_TIMEOUT_MS,
        }),
      ),
    );
    // The base URL must accept the abort; a worker that vanished is not an error.
    const base = results[0]!;
    if (base.status === "rejected") throw base.reason!;
    if (base.value.status !== 200 && workers.length === 0) {
      throw new ProviderHttpError(`/abort_request returned ${base.value.status}`, {
        statusCode: base.value.status,
        body: base.value.text.slice(0, 500),
      });
    }
  }

  private workerPool(origin: string): GeneratePool {
    let pool = this.workerPools.get(origin);
    if (!pool) {
      pool = createGeneratePool(origin, 4, this.connectTimeoutMs);
      this.workerPools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    const pools = [...(this.ownPool ? [this.ownPool] : []), ...this.workerPools.values()];
    await Promise.all(pools.map((p) => p.destroy().catch(() => {})));
  }
}
