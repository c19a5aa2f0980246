/**
 * The tool names a prompt offers (the `<tools>` block of a Qwen3 system turn), so a solver can
 * call a task tool by whatever name the harness gave it: bare (`calculate`, the `tools`
 * harness) or MCP-named `<server>_<tool>` (`math_calculate`, `coding_bash`).
 */

const TOOLS_BLOCK = /<tools>\n([\s\S]*?)\n<\/tools>/;
const FUNCTION_NAME = /"function":\s*\{"name":\s*"([^"]+)"/g;

export function offeredTools(promptText: string): string[] {
  const block = TOOLS_BLOCK.exec(promptText)?.[1] ?? "";
  return [...block.matchAll(FUNCTION_NAME)].map((m) => m[1]!);
}

/** The offered name for `base` (exact, else `<server>_<base>`), or null when none is offered. */
export function toolName(offered: readonly string[], base: string): string | null {
  return offered.find((n) => n === base) ?? offered.find((n) => n.endsWith(`_${base}`)) ?? null;
}
