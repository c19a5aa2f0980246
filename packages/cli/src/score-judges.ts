/**
 * The judges `envroll score` runs: those of the resolved config (the taskset's defaults, e.g.
 * short-answer's `reference` judge, then the TOML and `--KEY.PATH` overrides), scored after the
 * rewards exactly as in a rollout. As `eval` does offline, judges left at the default endpoint
 * are answered by the built-in engine (its `judge` policy), which is said on stderr; an explicit
 * `base_url` is kept.
 */
import type { startEngine } from "@envroll/engine/internal/index.ts";
import { DEFAULT_BASE_URL, type EnvConfig } from "envroll/internal/config/schema.ts";
import type { LoadedJudge } from "envroll/internal/judges/loader.ts";
import { loadJudges } from "envroll/internal/judges/loader.ts";

export interface ScoreJudges {
  judges: LoadedJudge[];
  close(): Promise<void>;
}

export async function scoreJudges(config: EnvConfig, say: (line: string) => void): Promise<ScoreJudges> {
  const configs = config.taskset.task.judges;
  if (configs.length === 0) return { judges: [], close: async () => {} };
  let engine: Awaited<ReturnType<typeof startEngine>> | null = null;
  if (configs.some((j) => j.base_url === DEFAULT_BASE_URL)) {
    const { startEngine } = await import("@envroll/engine/internal/index.ts");
    engine = await startEngine({ policy: "judge" });
    say(`judges at the default endpoint are answered by the built-in engine (judge policy) at ${engine.url}`);
  }
  try {
    const judges = await loadJudges(configs, engine ? { defaultBaseUrl: `${engine.url}/v1` } : {});
    return {
      judges,
      close: async () => {
        await Promise.all(judges.map((j) => j.close()));
        await engine?.close();
      },
    };
  } catch (e) {
    await engine?.close();
    throw e;
  }
}
