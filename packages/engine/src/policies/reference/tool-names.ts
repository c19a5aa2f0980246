/**
 * A task tool by whatever name the harness gave it: bare (`calculate`, the `tools` harness) or
 * MCP-named `<server>_<tool>` (`math_calculate`, `coding_bash`), among the names the prompt offers.
 */

/** The offered name for `base` (exact, else `<server>_<base>`), or null when none is offered. */
export function toolName(offered: readonly string[], base: string): string | null {
  return offered.find((n) => n === base) ?? offered.find((n) => n.endsWith(`_${base}`)) ?? null;
}
