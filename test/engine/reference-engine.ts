/** The stand-in engine answering with the built-in tasksets' reference solutions (`--policy reference`). */
import { builtinReferenceBook } from "../../packages/core/src/references.ts";
import { type EngineHandle, type EngineOptions, startEngine } from "../../packages/engine/src/index.ts";

export async function referenceEngine(
  opts: Omit<EngineOptions, "policy" | "reference"> = {},
): Promise<EngineHandle> {
  return startEngine({ ...opts, policy: "reference", reference: (await builtinReferenceBook()).answer });
}
