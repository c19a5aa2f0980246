/**
 * Figure 5 — eval_1000_wall_s: `envroll eval reverse-text -n 1000` end to end through the CLI in
 * a subprocess (process start, config, the built-in engine started in-process by the CLI,
 * 1,000 single-turn rollouts, traces.jsonl, summary.json, report.html), as a user runs it: through
 * the bin, which runs the built CLI when dist/ is current (`npm run build`) and the sources otherwise.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runNode } from "./lib/child.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

export const EVAL_ARGS = ["eval", "reverse-text", "-n", "1000"];

async function runEval(outDir: string): Promise<number> {
  const { wallMs, tail } = await runNode(["packages/cli/bin/envroll.mjs", ...EVAL_ARGS, "-o", outDir], {
    cwd: ROOT,
  });
  if (!/1000\/1000 rollouts/.test(tail) && !/over 1000 rollouts/.test(tail))
    throw new Error(`envroll eval did not report 1000 rollouts:\n${tail}`);
  return wallMs / 1000;
}

export async function evalWall(o: BenchOptions): Promise<Figure[]> {
  const walls: number[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const dir = mkdtempSync(join(tmpdir(), "envroll-bench-eval-"));
    try {
      walls.push(await runEval(dir));
      note(`eval rep ${rep + 1}: ${walls.at(-1)!.toFixed(1)} s`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return [
    {
      name: "eval_1000_wall_s",
      value: median(walls),
      unit: "s",
      reps: walls,
      how: `CLI subprocess: envroll ${EVAL_ARGS.join(" ")} -o <tmp> (built-in engine in-process)`,
    },
  ];
}
