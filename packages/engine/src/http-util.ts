/**
 * Small node:http helpers shared by the worker and router servers. node:http is used directly
 * (not a framework) because the engine is the baseline of envroll's throughput benchmark: its
 * own per-request cost must stay near the socket's.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** An error that already knows its HTTP answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === "string" ? body : JSON.stringify(body));
  }
}

/** SGLang's ValueError shape. */
export function errorBody(message: string): { error: { message: string } } {
  return { error: { message } };
}

/** FastAPI/pydantic validation shape (body not parseable as the request model). */
export function validationBody(message: string): Record<string, unknown> {
  return { object: "error", message, type: "Bad Request", param: null, code: 400 };
}

export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        // Refuse, but keep reading (and discarding) the upload: destroying the socket here, as
        // this once did, reset the connection before the 413 could be sent, so the client only
        // saw ECONNRESET. The 413 goes out with `connection: close` (see answerError).
        refused = true;
        chunks.length = 0;
        reject(new HttpError(413, errorBody(`request body exceeds ${limit} bytes`)));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () =>
      resolve(chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8")),
    );
    req.on("error", reject);
  });
}

export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readBody(req, limit);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, validationBody(`JSON decode error: ${(err as Error).message}`));
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders?: Record<string, string>,
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
    ...extraHeaders,
  });
  res.end(payload);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-length": 0 });
  res.end();
}

/**
 * Bearer-token check in constant time. Both sides are hashed first so the comparison length
 * never depends on the secret (timingSafeEqual needs equal lengths).
 */
export function makeAuthCheck(token: string | undefined): (req: IncomingMessage) => boolean {
  if (!token) return () => true;
  const want = createHash("sha256").update(`Bearer ${token}`).digest();
  return (req) => {
    const got = createHash("sha256")
      .update(req.headers.authorization ?? "")
      .digest();
    return timingSafeEqual(want, got);
  };
}

export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost" || host.startsWith("127.");
}
