/** The harness registry (`harness.id`). Others can add harnesses with `registerHarness`. */
import { ConfigError } from "../errors.ts";
import { codingHarness } from "./coding/harness.ts";
import { commandHarness } from "./command.ts";
import type { Harness } from "./harness.ts";
import { nullHarness } from "./null.ts";
import { openaiAgentsHarness } from "./openai-agents.ts";
import { toolsHarness } from "./tools.ts";

const harnesses = new Map<string, Harness>([
  [nullHarness.id, nullHarness],
  [codingHarness.id, codingHarness],
  [toolsHarness.id, toolsHarness],
  [commandHarness.id, commandHarness],
  [openaiAgentsHarness.id, openaiAgentsHarness],
]);

export function registerHarness(h: Harness): void {
  harnesses.set(h.id, h);
}

export function getHarness(id: string): Harness {
  const h = harnesses.get(id);
  if (!h)
    throw new ConfigError(
      `harness.id: unknown harness "${id}" (known: ${[...harnesses.keys()].join(", ")})`,
      {
        path: "harness.id",
      },
    );
  return h;
}

export function harnessIds(): string[] {
  return [...harnesses.keys()];
}

export type { Harness, HarnessContext } from "./harness.ts";
export { taskPrompt } from "./prompt.ts";
