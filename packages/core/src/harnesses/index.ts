/**
 * The harness registry (`harness.id`). The built-ins are imported on first use, so a run loads
 * only the harness it names (the coding agent brings its tools and their schemas, the command
 * and openai-agents harnesses the program launcher; reverse-text's `null` is a few lines).
 * Others can add harnesses with `registerHarness`. An unknown id is the validator's to report
 * (loaders/checks.ts, with did-you-mean); here it is only "not found".
 */
import type { Harness } from "./harness.ts";

const builtins: Record<string, () => Promise<Harness>> = {
  null: async () => (await import("./null.ts")).nullHarness,
  default: async () => (await import("./coding/harness.ts")).codingHarness,
  tools: async () => (await import("./tools.ts")).toolsHarness,
  command: async () => (await import("./command.ts")).commandHarness,
  "openai-agents": async () => (await import("./openai-agents.ts")).openaiAgentsHarness,
  acp: async () => (await import("./acp/harness.ts")).genericAcpHarness,
  codex: async () => (await import("./acp/harness.ts")).codexHarness,
  claude_code: async () => (await import("./acp/harness.ts")).claudeCodeHarness,
};

const harnesses = new Map<string, Harness>();

export function registerHarness(h: Harness): void {
  harnesses.set(h.id, h);
}

/** The harness `id` names (a registered one first, then a built-in, imported now); null if none. */
export async function findHarness(id: string): Promise<Harness | null> {
  const registered = harnesses.get(id);
  if (registered) return registered;
  // Own keys only: "constructor" must not resolve to an Object.prototype member.
  const load = Object.hasOwn(builtins, id) ? builtins[id] : undefined;
  if (!load) return null;
  const h = await load();
  if (h.id !== id) throw new Error(`built-in harness "${id}" loaded as "${h.id}"`);
  harnesses.set(id, h);
  return h;
}

/** The harness of a validated config (its id was checked when the config was validated). */
export async function getHarness(id: string): Promise<Harness> {
  const h = await findHarness(id);
  if (!h) throw new Error(`unknown harness "${id}" (known: ${harnessIds().join(", ")})`);
  return h;
}

export function harnessIds(): string[] {
  return [...new Set([...Object.keys(builtins), ...harnesses.keys()])];
}

export type { Harness, HarnessContext } from "./harness.ts";
export { taskPrompt } from "./prompt.ts";
