/**
 * Bounded request bodies. Past the limit the upload is still read and discarded, never reset:
 * destroying the socket first loses the 413, and an SDK retries a reset connection (the same
 * oversize request, again and again) but not a 413. The reply then closes the connection.
 */
import type { IncomingMessage } from "node:http";
import { HttpError } from "./error.ts";

export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return (await readBodyBytes(req, limit)).toString("utf8");
}

/** The body's bytes, bounded as `readBody` (for a reader that compares them before decoding). */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit)
    return Promise.reject(tooLarge(`request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge(`request body exceeds the limit of ${limit} bytes`));
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function tooLarge(message: string): HttpError {
  return new HttpError(413, message, { code: "body_too_large" });
}

/** The body parsed as JSON; an empty body is `{}` (SGLang and the SDKs treat it so). */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return parseJsonText(await readBody(req, limit));
}

/** `readJson`'s parse of a body's text (its errors are 400s naming the JSON problem). */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, `invalid JSON body: ${(e as Error).message}`, {
      code: "invalid_json",
      cause: e,
    });
  }
}

/** As `readJson`, but anything other than a JSON object is a 400. */
export async function readJsonObject(req: IncomingMessage, limit: number): Promise<Record<string, any>> {
  return jsonObjectOf(await readJson(req, limit));
}

/** The parsed body as an object; anything else is a 400. */
export function jsonObjectOf(value: unknown): Record<string, any> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new HttpError(400, "invalid JSON body: expected a JSON object", { code: "not_an_object" });
  return value as Record<string, any>;
}
