/**
 * The model an eval names must be one something can serve, checked before anything starts: a
 * typo in a checkpoint folder, or a name with no renderer behind it, would otherwise run (on the
 * built-in engine, as the carried Qwen3 files) and score as if the right model had been named.
 */
import { existsSync } from "node:fs";
import type { EnvConfig } from "envroll/internal/config/schema.ts";
import { namesRenderer } from "envroll/internal/renderers/index.ts";
import { isCheckpointFolder, QWEN3_HUB_NAMES } from "envroll/internal/tokenizer/index.ts";
import { UsageError } from "./args.ts";
import { BUILTIN_MODEL, type EndpointChoice } from "./eval-backend.ts";

/** `./x`, `../x`, `/x`, `~/x`, `x/`: a model spelled as a path names a local folder, never a hub id. */
export function looksLikePath(model: string): boolean {
  return /^(\.{1,2}(\/|$)|\/|~)/.test(model) || model.endsWith("/");
}

const QWEN3_EXAMPLES = QWEN3_HUB_NAMES.filter((n) => !n.endsWith("FP8"))
  .slice(0, 3)
  .join(", ");

/** What the built-in engine can serve, said in every refusal. */
const BUILTIN_SERVES =
  `the built-in engine serves: no --model (${BUILTIN_MODEL}, the carried Qwen3 files), ` +
  `a Qwen3 hub name (${QWEN3_EXAMPLES}, …), or a checkpoint folder (tokenizer.json and its chat template)`;

/**
 * Throws a UsageError naming the model and what would work. `--openai` endpoints are exempt from
 * the path rule: an OpenAI-compatible server may name its model by a path on its own disk.
 */
export function checkModel(config: EnvConfig, endpoint: EndpointChoice): void {
  const model = config.model;
  const what = `model "${model}"`;
  const local = endpoint.kind === "builtin" || endpoint.client.type === "train";
  if (local && looksLikePath(model) && !isCheckpointFolder(model)) {
    const problem = existsSync(model)
      ? "is not a checkpoint folder (no tokenizer.json in it)"
      : "does not exist";
    throw new UsageError(
      `${what} looks like a path and ${problem}; give a checkpoint folder with tokenizer.json` +
        (endpoint.kind === "builtin" ? ` (${BUILTIN_SERVES})` : ", or the model name the engine serves"),
    );
  }
  if (endpoint.kind === "builtin" && model !== BUILTIN_MODEL && !namesRenderer(model))
    throw new UsageError(`${what}: no renderer or tokenizer can serve it offline; ${BUILTIN_SERVES}`);
}
