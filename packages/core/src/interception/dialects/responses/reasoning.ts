/**
 * Reasoning items round-trip exactly. A reasoning item envroll answers with carries the
 * sampled reasoning text twice: as a summary (what clients show) and as `encrypted_content`
 * (what clients that `include: ["reasoning.encrypted_content"]` echo back verbatim, as Codex
 * does with `store: false`). On the way back the encrypted copy wins, so a client that edits or
 * drops the summary still re-sends the exact text the model sampled, and the turn bridges onto
 * its sampled tokens. Encrypted content from elsewhere (a real OpenAI reasoning item) cannot be
 * read; the summary and content texts stand in for it.
 */
import { array, type Json, object, string } from "../fields.ts";

const PREFIX = "envroll.v1:";

export function encryptedReasoning(text: string): string {
  return PREFIX + Buffer.from(text, "utf8").toString("base64");
}

/** The texts of one reasoning item, in order. */
export function readReasoning(item: Json, path: string): string[] {
  const sealed = item["encrypted_content"];
  if (typeof sealed === "string" && sealed.startsWith(PREFIX))
    return [Buffer.from(sealed.slice(PREFIX.length), "base64").toString("utf8")];
  const out: string[] = [];
  for (const key of ["summary", "content"]) {
    const parts = item[key];
    if (parts == null) continue;
    array(parts, `${path}.${key}`).forEach((p, j) => {
      out.push(string(object(p, `${path}.${key}[${j}]`)["text"], `${path}.${key}[${j}].text`));
    });
  }
  return out;
}
