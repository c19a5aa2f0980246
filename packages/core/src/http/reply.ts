/** JSON and empty replies. A reply after the headers went out only ends the response. */
import type { ServerResponse } from "node:http";

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { "content-length": 0 });
  res.end();
}

/**
 * An error reply. A 413 also closes the connection: the refused upload may still be arriving,
 * and keeping the socket would make the next request parse the rest of it.
 */
export function sendError(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, status === 413 ? { connection: "close" } : undefined);
}
