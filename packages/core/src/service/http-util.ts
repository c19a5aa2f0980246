/**
 * Small node:http helpers for the rollout service: bounded body reading, JSON replies that never
 * carry a stack trace, and constant-time bearer-token checks.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Reads the whole body, refusing (413) as soon as it passes `limit` bytes, and parses it as JSON. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, `request body of ${declared} bytes exceeds the limit of ${limit} bytes`);
  }
  // Manual listeners rather than `for await`: leaving the iterator early destroys the socket,
  // and then the 413 reply could never be sent. Past the limit the rest is read and discarded.
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        if (chunks.length > 0) chunks.length = 0;
        reject(new HttpError(413, `request body exceeds the limit of ${limit} bytes`));
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve());
    req.on("error", reject);
  });
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `invalid JSON body: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Compares the bearer token in constant time. Both sides are hashed first so the comparison
 * length does not depend on (and so does not leak) the token's length.
 */
export function tokenMatches(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const given = header.startsWith("Bearer ") ? header.slice(7) : "";
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith("127.");
}
