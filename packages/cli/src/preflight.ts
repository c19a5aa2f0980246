/**
 * Before an eval schedules anything: is the endpoint there, does it take our key, and which
 * model does it serve? An unreachable URL fails in seconds with the URL and the cause, instead
 * of every rollout erroring after its retries.
 *
 * SGLang (TrainClient): `GET /get_model_info` (→ `model_path`), then `/v1/models`, then
 * `/health` for servers that have neither. OpenAI-compatible (EvalClient): `GET {base_url}/models`.
 */
import type { ClientRequest } from "node:http";
import type { ClientConfig } from "envroll/internal/config/schema.ts";
import { H1Client } from "envroll/internal/transport/h1.ts";
import { apiKey } from "./client-factory.ts";
import { idleDeadline } from "./idle-deadline.ts";

export class PreflightError extends Error {
  override name = "PreflightError";
}

export interface Preflight {
  /** The model the endpoint says it serves, or null when it cannot say. */
  model: string | null;
  /** Where that came from (`GET …`), or why it is unknown. */
  source: string;
  /** SGLang's `tokenizer_path` from `/get_model_info`, when it answered one. */
  tokenizer?: string;
}

const TIMEOUT_MS = 5_000;

type Probe = { status: number; body: unknown; url: string };

function causeOf(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err?.code) return err.message?.includes(err.code) ? err.code : `${err.code} (${err.message})`;
  return err instanceof Error ? err.message : String(e);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: keep the text
  }
}

/**
 * One GET over plain HTTP with the transport's own HTTP/1.1 client, which `/generate` uses too:
 * node:http (with its agent, parser and stream layers) would be loaded for this request alone,
 * a few percent of the CLI's start-up. fetch is out either way: its blocked-port list refuses
 * servers on ports such as 6000 that the transport reaches fine.
 */
function getHttp(url: URL, headers: Record<string, string>): Promise<Probe> {
  const client = new H1Client({
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port === "" ? 80 : Number(url.port),
    connections: 1,
    connectTimeoutMs: TIMEOUT_MS,
    keepAliveTimeoutMs: 0,
  });
  return new Promise<Probe>((resolve, reject) => {
    const fail = (why: string) => reject(new PreflightError(`cannot reach ${url.href}: ${why}`));
    const cancel = idleDeadline(TIMEOUT_MS, () => {
      call.abort(new Error(`no answer within ${TIMEOUT_MS / 1000} s`));
    });
    const call = client.send({ method: "GET", path: `${url.pathname}${url.search}`, headers }, (e, reply) => {
      cancel();
      if (e) fail(causeOf(e));
      else resolve({ status: reply!.status, body: parsed(reply!.text.slice(0, 1_000_000)), url: url.href });
    });
  }).finally(() => client.destroy());
}

/** One GET over TLS with node:https (loaded only for an https: endpoint). */
async function getHttps(url: URL, headers: Record<string, string>): Promise<Probe> {
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    let cancel = () => {};
    const fail = (why: string) => {
      cancel();
      reject(new PreflightError(`cannot reach ${url.href}: ${why}`));
    };
    let req: ClientRequest;
    try {
      req = request(url, { method: "GET", headers });
    } catch (e) {
      fail(causeOf(e));
      return;
    }
    cancel = idleDeadline(TIMEOUT_MS, () => {
      req.destroy();
      fail(`no answer within ${TIMEOUT_MS / 1000} s`);
    });
    req.on("error", (e) => fail(causeOf(e)));
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        if (text.length < 1_000_000) text += d;
      });
      res.on("error", (e) => fail(causeOf(e)));
      res.on("end", () => {
        cancel();
        resolve({ status: res.statusCode ?? 0, body: parsed(text), url: url.href });
      });
    });
    req.end();
  });
}

async function get(href: string, headers: Record<string, string>): Promise<Probe> {
  let url: URL;
  try {
    url = new URL(href);
  } catch (e) {
    throw new PreflightError(`cannot reach ${href}: ${causeOf(e)}`);
  }
  if (url.protocol === "http:") return getHttp(url, headers);
  if (url.protocol === "https:") return getHttps(url, headers);
  throw new PreflightError(`cannot reach ${href}: only http: and https: endpoints are supported`);
}

function requestHeaders(client: ClientConfig): Record<string, string> {
  const key = apiKey(client.api_key_var);
  return { ...client.headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) };
}

function refusedKey(p: Probe, client: ClientConfig): PreflightError | null {
  if (p.status !== 401 && p.status !== 403) return null;
  const hint = client.api_key_var
    ? apiKey(client.api_key_var)
      ? `check the key in $${client.api_key_var}`
      : `$${client.api_key_var} is not set`
    : "set --client.api_key_var to the variable holding the key";
  return new PreflightError(`${p.url} refused the request (HTTP ${p.status}): ${hint}`);
}

const firstModelId = (body: unknown): string | null => {
  const data = (body as { data?: { id?: unknown }[] } | null)?.data;
  const id = Array.isArray(data) ? data[0]?.id : undefined;
  return typeof id === "string" && id !== "" ? id : null;
};

/** Checks the endpoint answers; throws PreflightError naming the URL and the cause. */
export async function preflight(client: ClientConfig): Promise<Preflight> {
  const base = client.base_url.replace(/\/+$/, "");
  const headers = requestHeaders(client);
  if (client.type === "eval") {
    const p = await get(`${base}/models`, headers);
    const refused = refusedKey(p, client);
    if (refused) throw refused;
    if (p.status >= 500) throw new PreflightError(`${p.url} answered HTTP ${p.status}`);
    const model = p.status < 300 ? firstModelId(p.body) : null;
    return { model, source: model ? `GET ${p.url}` : `GET ${p.url} answered HTTP ${p.status}` };
  }
  const tried: string[] = [];
  for (const path of ["/get_model_info", "/v1/models", "/health"]) {
    const p = await get(`${base}${path}`, headers);
    const refused = refusedKey(p, client);
    if (refused) throw refused;
    tried.push(`${path} → HTTP ${p.status}`);
    if (p.status >= 300) continue;
    const info = p.body as { model_path?: unknown; tokenizer_path?: unknown } | null;
    const tokenizer =
      path === "/get_model_info" && typeof info?.tokenizer_path === "string" && info.tokenizer_path !== ""
        ? { tokenizer: info.tokenizer_path }
        : {};
    const model =
      path === "/get_model_info" && typeof info?.model_path === "string" && info.model_path !== ""
        ? info.model_path
        : path === "/v1/models"
          ? firstModelId(p.body)
          : null;
    if (model) return { model, source: `GET ${p.url}`, ...tokenizer };
    if (path === "/health") return { model: null, source: `no model name from ${tried.join(", ")}` };
  }
  throw new PreflightError(`${base} does not answer like an SGLang server (${tried.join(", ")})`);
}
