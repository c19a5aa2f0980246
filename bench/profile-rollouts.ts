/**
 * Profiling entry for figure 1: runs the reverse-text rollouts (b) or the tool episodes (c)
 * against the engine in its own process, so `node --cpu-prof` sees envroll's side only.
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile-rollouts.ts [reverse|tools] [N]
 *   node --import tsx bench/profile-summary.ts /tmp/prof/<the larger .0.*.cpuprofile>
 */
import { spawnTs, stop, waitForLine } from "./lib/child.ts";
import { note } from "./lib/report.ts";
import { toolLoopTaskset } from "./lib/tool-loop.ts";
import { environment, timedEval, trainClient } from "./lib/workloads.ts";
import { CONCURRENCY } from "./throughput.ts";

const [kind = "reverse", count = "4000"] = process.argv.slice(2);
const engine = spawnTs("bench/engine-child.ts");
try {
  const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
  const env =
    kind === "tools"
      ? await environment(toolLoopTaskset.id, CONCURRENCY, toolLoopTaskset)
      : await environment("reverse-text", CONCURRENCY);
  const client = trainClient(url);
  await timedEval(env, client, Math.min(500, Number(count)));
  // performance.now() counts from process start, as the profile's clock does (near enough).
  note(
    `measured part starts at ${Math.round(performance.now())} ms: pass --skip-ms=${Math.round(performance.now())}`,
  );
  const s = await timedEval(env, client, Number(count));
  note(`${kind}: ${JSON.stringify(s)} → ${(s.cpuMs / s.turns).toFixed(3)} CPU ms/turn`);
  await env.close();
} finally {
  await stop(engine);
}
