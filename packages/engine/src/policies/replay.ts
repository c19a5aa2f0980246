/**
 * `replay:<file.jsonl>`: answers from recorded replies. Each line is
 * `{"reply": "…"}` or `{"output_ids": [...]}` (aliases `text`, `ids`), optionally with
 * `"match": "…"`: a row with `match` answers any prompt whose text contains it; rows without
 * `match` are served in order, cycling. A prompt nothing answers falls back to echo.
 */
import { readFileSync } from "node:fs";
import type { PolicyFn, PolicyReply } from "../types.ts";
import { echoReply } from "./echo.ts";

interface Row {
  match: string | null;
  reply: PolicyReply;
}

export function loadReplayRows(file: string): Row[] {
  const rows: Row[] = [];
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`);
    }
    const ids = rec.output_ids ?? rec.ids;
    const text = rec.reply ?? rec.text;
    let reply: PolicyReply;
    if (Array.isArray(ids) && ids.every((x) => Number.isInteger(x))) reply = { ids: ids as number[] };
    else if (typeof text === "string") reply = text;
    else throw new Error(`${file}:${i + 1}: needs "reply" (string) or "output_ids" (int list)`);
    rows.push({ match: typeof rec.match === "string" ? rec.match : null, reply });
  });
  return rows;
}

export function replayPolicy(file: string): PolicyFn {
  const rows = loadReplayRows(file);
  const matched = rows.filter((r) => r.match !== null);
  const ordered = rows.filter((r) => r.match === null);
  let next = 0;
  return (ctx) => {
    if (matched.length) {
      const text = ctx.promptText;
      const hit = matched.find((r) => text.includes(r.match as string));
      if (hit) return hit.reply;
    }
    if (ordered.length) return ordered[next++ % ordered.length]!.reply;
    return echoReply(ctx);
  };
}
