/**
 * Side by side in one process: SglangTransport.generate alone (the first-turn requests of the
 * reverse-text tasks, prompt ids as a TokenSequence as a TrainClient sends them, 64 in flight)
 * through two checkouts' cores against one engine child, alternating chunks. Prints per side the
 * median client CPU µs per request and the engine's, and the per-round paired ratio B/A.
 *   node --import tsx bench/ab-transport.ts /path/to/main/packages/core/src packages/core/src
 * Env: CHUNK (requests per chunk, 2000), ROUNDS (8), WARM (3).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { procCpuMs, spawnTs, stop, waitForLine } from "./lib/child.ts";
import { median, note } from "./lib/report.ts";
import { alternate, paired } from "./lib/side-by-side.ts";
import { environment } from "./lib/workloads.ts";

const roots = process.argv.slice(2, 4).map((r) => resolve(r));
if (roots.length < 2) throw new Error("usage: ab-transport.ts CORE_SRC_A CORE_SRC_B");
const CHUNK = Number(process.env.CHUNK ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const WARM = Number(process.env.WARM ?? 3);

const engine = spawnTs("bench/engine-child.ts");
try {
  const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;
  const env = await environment("reverse-text", 64);
  const renderer = createRenderer("qwen3");
  const prompts = env.tasks.map((task) => {
    const t = task as { prompt: string; system_prompt: string };
    return renderer.render(
      [
        { role: "system", content: t.system_prompt },
        { role: "user", content: t.prompt },
      ],
      { addGenerationPrompt: true },
    ).tokenIds;
  });
  const sides = await Promise.all(
    roots.map(async (root) => {
      const { SglangTransport } = await import(pathToFileURL(`${root}/transport/index.ts`).href);
      const { TokenSequence } = await import(pathToFileURL(`${root}/token-sequence.ts`).href);
      return {
        name: root,
        transport: new SglangTransport({ baseUrl: url }),
        inputs: prompts,
        seq: TokenSequence,
        cpu: [] as number[],
        engine: [] as number[],
        next: 0,
      };
    }),
  );
  type Side = (typeof sides)[number];
  const chunk = async (s: Side): Promise<[number, number]> => {
    let left = CHUNK;
    const worker = async () => {
      while (left-- > 0) {
        const i = s.next++;
        // A fresh sequence per request, as each rollout's prompt is (its JSON bytes cache cold).
        const r = await s.transport.generate({
          inputIds: s.seq.from(s.inputs[i % s.inputs.length]!),
          sampling: env.config.sampling,
          sessionId: `s${i}`,
          stopTokenIds: renderer.stopTokenIds,
          signal: new AbortController().signal,
        });
        if (r.outputIds.length === 0) throw new Error("empty reply");
      }
    };
    const e0 = procCpuMs(engine.pid);
    const c0 = process.cpuUsage();
    await Promise.all(Array.from({ length: 64 }, worker));
    const c = process.cpuUsage(c0);
    return [(c.user + c.system) / CHUNK, ((procCpuMs(engine.pid) - e0) * 1000) / CHUNK];
  };
  await alternate(sides, chunk, WARM, ROUNDS);
  for (const s of sides)
    note(
      `${s.name}: transport ${median(s.cpu).toFixed(1)} CPU us/request, engine ${median(s.engine).toFixed(1)}`,
    );
  const [a, b] = sides as [Side, Side];
  note(
    `paired B/A per round: transport ${paired(a, b, "cpu").toFixed(3)}, engine ${paired(a, b, "engine").toFixed(3)}`,
  );
  for (const s of sides) await s.transport.close();
  await env.close();
} finally {
  await stop(engine);
}
