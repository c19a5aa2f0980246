/**
 * The real wiring of the rollout service: a loaded Environment (and optionally a second one for
 * eval) behind the service's narrow RolloutEnvironment port. The only service file that knows
 * the environment runtime's API.
 */

import type { Sampling } from "../clients/client.ts";
import type { ConfigOverrides } from "../config/index.ts";
import { type Environment, loadEnvironment } from "../environment.ts";
import { minGroupSize } from "../loaders/checks.ts";
import { loadConfigAndTaskset } from "../loaders/config.ts";
import type { TraceRecord } from "../trace/record.ts";
import type { EnvironmentInfo, GroupRun, RolloutEnvironment } from "./backend.ts";

export class EnvironmentBackend implements RolloutEnvironment {
  readonly info: EnvironmentInfo;

  constructor(
    readonly train: Environment,
    readonly evaluation: Environment = train,
  ) {
    this.info = {
      tasksetId: train.taskset.id,
      numTasks: train.tasks.length,
      numEvalTasks: evaluation.tasks.length,
      requiresGroupScoring: train.requiresGroupScoring || evaluation.requiresGroupScoring,
      minGroupSize: Math.max(minGroupSize(train.taskset), minGroupSize(evaluation.taskset)),
    };
  }

  /** The renderer identity the config names (used when a request does not name one). */
  get model(): string {
    return this.train.config.model;
  }

  runGroup(run: GroupRun): Promise<TraceRecord[]> {
    const env = run.split === "eval" ? this.evaluation : this.train;
    // Miles' sampling goes over the config's (same keys: Miles wins; the config's other keys
    // stay); a per-rollout seed goes on top when deterministic.
    const samplingFor = (_task: number, rollout: number): Sampling => ({
      ...run.sampling,
      ...(run.seeds ? { seed: run.seeds[rollout] } : {}),
    });
    return env.runGroup(run.taskIndex, run.n, { client: run.client, signal: run.signal, samplingFor });
  }

  async close(): Promise<void> {
    await this.train.close();
    if (this.evaluation !== this.train) await this.evaluation.close();
  }
}

async function load(path: string, overrides?: ConfigOverrides): Promise<Environment> {
  // The taskset the validation resolved is the one the environment runs (resolved once).
  const { config, taskset } = await loadConfigAndTaskset(path, overrides);
  return loadEnvironment(config, { taskset });
}

/** Loads the train environment once (and the eval one, when a separate eval config is given). */
export async function openEnvironmentBackend(
  configPath: string,
  options: { evalConfigPath?: string; overrides?: ConfigOverrides } = {},
): Promise<EnvironmentBackend> {
  const train = await load(configPath, options.overrides);
  const evaluation = options.evalConfigPath ? await load(options.evalConfigPath, options.overrides) : train;
  return new EnvironmentBackend(train, evaluation);
}
