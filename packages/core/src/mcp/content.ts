/**
 * An MCP tool result as the content of a tool message, the way V1's agent-side client converts
 * it: text blocks joined by newlines, images as data-URL image parts, other blocks as JSON, and
 * `[]` for an empty result. `isError` changes nothing the model sees (the error text is there).
 */
import type { Content } from "../types.ts";
import type { CallToolResult } from "./provider.ts";

type Part = Exclude<Content, string>[number];

export function toolResultContent(result: CallToolResult): Content {
  const blocks = result.content ?? [];
  if (blocks.length === 0) return "[]";
  const parts: Part[] = blocks.map((b): Part => {
    if (b.type === "text") return { type: "text", text: b.text };
    if (b.type === "image")
      return { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } };
    return { type: "text", text: JSON.stringify(b) };
  });
  if (parts.every((p) => p.type === "text")) return parts.map((p) => (p as { text: string }).text).join("\n");
  return parts;
}

/** Plain text of a result (for logs, errors and the user simulator's `respond`). */
export function toolResultText(result: CallToolResult): string {
  return (result.content ?? []).map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n");
}
