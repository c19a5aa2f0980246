/**
 * Side by side in one process: single-turn reverse-text rollouts through two checkouts' cores
 * (e.g. a `git worktree` of main and this one) against one engine child, in alternating chunks,
 * so both see the same machine load. Prints per side the median envroll CPU ms per rollout, the
 * engine's, and their ratio (the throughput figure needs envroll ≤ 2 × engine); then the median
 * over rounds of the first two sides' per-round ratio B/A, steadier under a moving load.
 *   node --import tsx bench/ab-rollouts.ts /path/to/main/packages/core/src packages/core/src
 * Env: CHUNK (rollouts per chunk, 400), ROUNDS (8), WARM (warm-up chunks per side, 5).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { procCpuMs, spawnTs, stop, waitForLine } from "./lib/child.ts";
import { median, note } from "./lib/report.ts";
import { alternate, paired } from "./lib/side-by-side.ts";

const roots = process.argv.slice(2).map((r) => resolve(r));
if (roots.length < 2) throw new Error("usage: ab-rollouts.ts CORE_SRC_A CORE_SRC_B [...]");
const CHUNK = Number(process.env.CHUNK ?? 400);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const WARM = Number(process.env.WARM ?? 5);

interface Side {
  name: string;
  env: {
    tasks: readonly unknown[];
    run(items: unknown[], o: unknown): Promise<unknown>;
    close(): Promise<void>;
  };
  client: { close(): Promise<void> };
  cpu: number[];
  engine: number[];
  next: number;
}

const engine = spawnTs("bench/engine-child.ts");
try {
  const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
  const load = (root: string, file: string) => import(pathToFileURL(`${root}/${file}`).href);
  const sides: Side[] = [];
  for (const root of roots) {
    const { loadConfig } = await load(root, "loaders/config.ts");
    const { loadEnvironment } = await load(root, "environment.ts");
    const { TrainClient } = await load(root, "clients/train.ts");
    const { createRenderer } = await load(root, "renderers/index.ts");
    const { SglangTransport } = await load(root, "transport/index.ts");
    const config = await loadConfig(
      { taskset: { id: "reverse-text" }, model: "envroll-engine/reference", max_concurrent: 64 },
      undefined,
      {},
    );
    sides.push({
      name: root,
      env: await loadEnvironment(config, {}),
      client: new TrainClient({
        renderer: createRenderer("qwen3"),
        transport: new SglangTransport({ baseUrl: url }),
      }),
      cpu: [],
      engine: [],
      next: 0,
    });
  }
  const chunk = async (s: Side): Promise<[number, number]> => {
    const items = Array.from({ length: CHUNK }, () => ({ taskIndex: s.next++ % s.env.tasks.length }));
    const e0 = procCpuMs(engine.pid);
    const c0 = process.cpuUsage();
    await s.env.run(items, { client: s.client });
    const c = process.cpuUsage(c0);
    return [(c.user + c.system) / 1000 / CHUNK, (procCpuMs(engine.pid) - e0) / CHUNK];
  };
  await alternate(sides, chunk, WARM, ROUNDS);
  for (const s of sides) {
    const ratio = median(s.cpu.map((c, i) => c / s.engine[i]!));
    note(
      `${s.name}: envroll ${median(s.cpu).toFixed(3)} CPU ms/rollout, engine ${median(s.engine).toFixed(3)}, envroll/engine ${ratio.toFixed(2)}`,
    );
  }
  const [a, b] = sides as [Side, Side];
  note(
    `paired B/A per round: envroll ${paired(a, b, "cpu").toFixed(3)}, engine ${paired(a, b, "engine").toFixed(3)}`,
  );
  for (const s of sides) {
    await s.env.close();
    await s.client.close();
  }
} finally {
  await stop(engine);
}
