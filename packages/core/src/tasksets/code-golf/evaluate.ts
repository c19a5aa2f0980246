/**
 * The `evaluate` metric: run the extracted program in the rollout's runtime (the sandbox by
 * default) and time it, as verifiers 0.2.0 does (`perf_counter` around `python3 solution.py`).
 */
import type { Runtime } from "../../runtimes/runtime.ts";
import { pyStrip } from "../../text/python-str.ts";

/** Latency recorded when there is nothing to run (0.2.0's value). */
export const NO_PROGRAM_LATENCY = 1e6;

export interface Evaluation {
  passed: number;
  latency: number;
}

export async function evaluateProgram(
  program: string,
  expected: string,
  runtime: Runtime,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<Evaluation> {
  if (program === "") return { passed: 0, latency: NO_PROGRAM_LATENCY };
  await runtime.writeFile("solution.py", program);
  const t0 = performance.now();
  const r = await runtime.run(["python3", "solution.py"], options);
  const latency = (performance.now() - t0) / 1000;
  const passed = r.exitCode === 0 && !r.timedOut && pyStrip(r.stdout) === expected ? 1 : 0;
  return { passed, latency };
}
