/** Runs `body` against a stand-in engine started with `opts`, and closes the engine after, pass or fail. */
import { type EngineHandle, type EngineOptions, startEngine } from "../../packages/engine/src/index.ts";

export async function withEngine<T>(
  opts: EngineOptions,
  body: (engine: EngineHandle) => Promise<T>,
): Promise<T> {
  const engine = await startEngine(opts);
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}
