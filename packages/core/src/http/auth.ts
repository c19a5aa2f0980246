/** Request credentials: bearer tokens and API-key headers, compared in constant time. */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  return typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : null;
}

/** A single-valued header, or null (absent or repeated). */
export function headerValue(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return typeof v === "string" ? v : null;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * A check that the request's bearer token is `token` (every request passes when there is none).
 * Both sides are hashed so the comparison time depends on neither's length.
 */
export function bearerCheck(token: string | null | undefined): (req: IncomingMessage) => boolean {
  if (!token) return () => true;
  const want = digest(token);
  return (req) => {
    const given = bearerToken(req);
    return given !== null && given !== "" && timingSafeEqual(want, digest(given));
  };
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith("127.");
}
