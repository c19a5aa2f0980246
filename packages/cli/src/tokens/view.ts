/** The human-readable token view of `envroll tokens` (without --jsonl). */
import type { Renderer } from "envroll/internal/renderers/renderer.ts";

/** One line per token: position, id, text (escaped), message index/role, sampled, content. */
export function formatTokenTable(renderer: Renderer, result: Record<string, unknown>, from = 0): string {
  const ids = result.ids as number[] | null;
  if (ids === null) return "bridge: null (cannot be proven; render in full)\n";
  const mi = result.message_indices as number[];
  const sampled = result.sampled_mask as boolean[];
  const content = result.is_content as boolean[];
  const roles = result.message_roles as string[];
  const lines: string[] = [];
  if (from > 0) lines.push(`… ${from} prior token(s) kept exactly as sampled`);
  lines.push(
    `${"pos".padStart(6)} ${"id".padStart(7)}  ${"text".padEnd(24)} ${"role".padEnd(12)} sampled content`,
  );
  for (let i = from; i < ids.length; i++) {
    const text = JSON.stringify(renderer.decode([ids[i]!])).slice(0, 24);
    const role = mi[i]! < 0 ? "(scaffold)" : `${mi[i]}:${roles[mi[i]!] ?? "?"}`;
    lines.push(
      `${String(i).padStart(6)} ${String(ids[i]).padStart(7)}  ${text.padEnd(24)} ${role.padEnd(12)} ${
        sampled[i] ? "S" : "."
      }       ${content[i] ? "C" : "."}`,
    );
  }
  lines.push(`${ids.length} token(s), ${sampled.filter(Boolean).length} sampled`);
  return `${lines.join("\n")}\n`;
}

export function formatParse(result: Record<string, unknown>): string {
  const lines = [
    `content:   ${JSON.stringify(result.content)}`,
    `reasoning: ${JSON.stringify(result.reasoning)}`,
  ];
  const calls = result.tool_calls as Record<string, unknown>[];
  lines.push(`tool calls: ${calls.length}`);
  for (const c of calls) {
    lines.push(
      `  [${(c.token_span as number[]).join(", ")}) ${c.status} ${c.name ?? "-"} ${JSON.stringify(c.arguments)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
