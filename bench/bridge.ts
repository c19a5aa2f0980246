/**
 * Figure 3 — the cost of building turn k's prompt ids in a 32-turn tool episode: bridging from
 * the previous turn (`renderer.bridge(prevPrompt, prevCompletion, [toolMessage])`) against a
 * full re-render of the history (`renderer.render(allMessages)`). Bridging touches only the new
 * messages, so its cost should stay flat while re-rendering grows with the history.
 *
 * Each episode has fresh text (new salt), like a real rollout: the history a re-render sees was
 * rendered before (its pieces are cached), the tool result is new to both paths.
 * Figures: bridge_turn32_over_turn2 and rerender_turn32_over_turn2 (per-turn medians over the
 * episodes); the whole per-turn series goes to RESULTS.md.
 */
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import type { RenderMessage } from "../packages/core/src/renderers/renderer.ts";
import { TOOLS, toolTurn } from "./lib/corpus.ts";
import { type BenchOptions, type Figure, median } from "./lib/report.ts";

const TURNS = 32;

interface EpisodeTimes {
  bridge: number[];
  render: number[];
  /** Turns where the bridged ids differed from the full render (must stay 0). */
  mismatches: number;
}

function episode(salt: string): EpisodeTimes {
  const r = createRenderer("qwen3");
  const opts = { tools: TOOLS };
  const messages: RenderMessage[] = [
    { role: "system", content: "You are a careful research assistant." },
    { role: "user", content: `Find facts about topic ${salt}; cite every source you use.` },
  ];
  let prompt = r.render(messages, { ...opts, addGenerationPrompt: true }).tokenIds;
  const out: EpisodeTimes = { bridge: [], render: [], mismatches: 0 };
  for (let k = 1; k < TURNS; k++) {
    // Turn k's reply as the model sampled it, then its tool result: the input of turn k+1.
    const [assistant, tool] = toolTurn(k, salt) as [RenderMessage, RenderMessage];
    messages.push(assistant);
    const withReply = r.render(messages, opts);
    const replyIdx = messages.length - 1;
    const completion = withReply.tokenIds.filter(
      (_, i) => withReply.messageIndices[i] === replyIdx && withReply.sampledMask[i],
    );
    messages.push(tool);

    let t0 = performance.now();
    const bridged = r.bridge(prompt, completion, [tool], opts);
    out.bridge.push(performance.now() - t0);
    t0 = performance.now();
    const full = r.render(messages, { ...opts, addGenerationPrompt: true });
    out.render.push(performance.now() - t0);

    if (!bridged || !sameIds(bridged.tokenIds, full.tokenIds)) out.mismatches++;
    prompt = bridged?.tokenIds ?? full.tokenIds;
  }
  return out;
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export async function bridge(o: BenchOptions): Promise<Figure[]> {
  const episodes = o.quick ? 40 : 100;
  for (let i = 0; i < 5; i++) episode(`warm-${i}`);
  const bridgeRatio: number[] = [];
  const renderRatio: number[] = [];
  let mismatches = 0;
  let series: { turn: number; bridge_ms: number; rerender_ms: number }[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const runs = Array.from({ length: episodes }, (_, i) =>
      episode(`rep${rep}-ep${i}-${(i * 2654435761) >>> 0}`),
    );
    mismatches += runs.reduce((s, e) => s + e.mismatches, 0);
    // Index j holds turn j + 2 (turn 1 is the first prompt: always a full render).
    const perTurn = (pick: (e: EpisodeTimes) => number[]) =>
      Array.from({ length: TURNS - 1 }, (_, j) => median(runs.map((e) => pick(e)[j]!)));
    const b = perTurn((e) => e.bridge);
    const f = perTurn((e) => e.render);
    bridgeRatio.push(b.at(-1)! / b[0]!);
    renderRatio.push(f.at(-1)! / f[0]!);
    if (rep === 0 || o.reps === 1)
      series = b.map((x, j) => ({ turn: j + 2, bridge_ms: x, rerender_ms: f[j]! }));
  }
  const bRatio = median(bridgeRatio);
  const fRatio = median(renderRatio);
  const flat = bRatio <= 1.5;
  const grows = fRatio > 1.5;
  return [
    {
      name: "bridge_turn32_over_turn2",
      value: bRatio,
      unit: "ratio",
      target: "<= 1.5",
      met: flat,
      reps: bridgeRatio,
      episodes,
      turn2_ms: series[0]!.bridge_ms,
      turn32_ms: series.at(-1)!.bridge_ms,
      bridged_ids_differing_from_full_render: mismatches,
      series,
    },
    {
      name: "rerender_turn32_over_turn2",
      value: fRatio,
      unit: "ratio",
      target: "grows (> 1.5)",
      met: grows,
      reps: renderRatio,
      episodes,
      turn2_ms: series[0]!.rerender_ms,
      turn32_ms: series.at(-1)!.rerender_ms,
    },
  ];
}
