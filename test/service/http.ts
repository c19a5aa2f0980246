/** Test helpers: talk to the service over real HTTP. */
import { request } from "node:http";

export interface Reply {
  status: number;
  body: any;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.includes("\n") ? ndjson(text) : JSON.parse(text) };
}

export function ndjson(text: string): any[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

/**
 * Opens a /rollout stream, reads lines until `stopAfter` of them arrived, then destroys the
 * socket (a client going away mid-stream). Resolves with the lines read.
 */
export function streamThenDisconnect(url: string, body: unknown, stopAfter: number): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const lines: any[] = [];
    let buf = "";
    const req = request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let i = buf.indexOf("\n");
        while (i >= 0) {
          lines.push(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
          i = buf.indexOf("\n");
        }
        if (lines.length >= stopAfter) {
          req.destroy();
          resolve(lines);
        }
      });
      res.on("end", () => resolve(lines));
    });
    req.on("error", (e) => {
      if (lines.length >= stopAfter) resolve(lines);
      else reject(e);
    });
    req.end(JSON.stringify(body));
  });
}

export async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
