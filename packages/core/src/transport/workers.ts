/**
 * Finding the workers behind a router, so an abort reaches the one that holds the request.
 *
 * Routers do not reliably forward `/abort_request` to every worker, and `rid` plays no part in
 * routing, so the transport asks the router for its workers (SGLang Model Gateway `GET /workers`,
 * MilesRouter `GET /list_workers`) and sends the abort to each of them as well as to the base URL.
 * A plain SGLang server answers 404 to both, and the base URL alone is then the whole fleet.
 */

/** Pulls worker base URLs out of the shapes routers are known to return. */
export function parseWorkerList(body: unknown): string[] {
  const list = Array.isArray(body)
    ? body
    : body && typeof body === "object"
      ? ((body as Record<string, unknown>).urls ?? (body as Record<string, unknown>).workers)
      : undefined;
  if (!Array.isArray(list)) return [];
  const urls: string[] = [];
  for (const item of list) {
    if (typeof item === "string") urls.push(item);
    else if (item && typeof item === "object") {
      const rec = item as Record<string, unknown>;
      const url = rec.url ?? rec.worker_url;
      if (typeof url === "string") urls.push(url);
    }
  }
  return urls.map((u) => (/^https?:\/\//.test(u) ? u : `http://${u}`)).map((u) => u.replace(/\/+$/, ""));
}

/** The endpoints to try, in order; the first that answers 200 with a list wins. */
export const WORKER_LIST_PATHS = ["/workers", "/list_workers"] as const;
