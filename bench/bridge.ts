/**
 * Figure 3 — the cost of building turn k's prompt ids in a 32-turn tool episode.
 *
 * `bridge_turn32_over_turn2`: the renderer call alone, bridging from the previous turn
 * (`renderer.bridge(prevPrompt, prevCompletion, [toolMessage])`), against a full re-render of
 * the history (`renderer.render(allMessages)`, `rerender_turn32_over_turn2`). The previous prompt
 * is kept as the TrainClient keeps it (a TokenSequence). Each bridge follows the same small
 * render (the reply's sampled ids, from the opening plus that reply) and the re-renders run
 * after the episode's bridges: until session 4 each bridge followed two renders of the whole
 * history by the bench itself (the reply's ids and the comparison), whose cache and GC wake
 * made a flat bridge look 1.3-1.7x slower at turn 32 than at turn 2.
 *
 * `bridge_train_turn32_over_turn2`: what production does per turn on the client side, timed
 * from before `graph.prepareTurn(messages)` to after `graph.commit(plan, response)` around
 * `TrainClient.getResponse` — bridge plan, renderer bridge, request body build and its JSON
 * text (the transport's `generatePayload`), the transport's reply parsing of a canned SGLang
 * reply, completion parsing into a message, session bookkeeping and the trace graph commit.
 * Only the HTTP exchange and the engine are left out (bench/lib/offline-transport.ts). Messages
 * are the same objects turn after turn, as an in-process harness passes them.
 *
 * Each episode has fresh text (new salt), like a real rollout. Ratios are per-turn medians over
 * the episodes; the per-turn series goes to RESULTS.md. Every bridged prompt is compared with a
 * full render of the same messages (untimed; for the TrainClient path after the episode, as
 * nothing re-renders per turn in production); the count of differing ones must stay 0.
 */
import { TrainClient } from "../packages/core/src/clients/train.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import type { RenderMessage } from "../packages/core/src/renderers/renderer.ts";
import { TokenSequence } from "../packages/core/src/token-sequence.ts";
import { MessageGraph } from "../packages/core/src/trace/graph.ts";
import type { Message, Tool } from "../packages/core/src/types.ts";
import { TOOLS, toolTurn } from "./lib/corpus.ts";
import { OfflineTransport, sglangReply } from "./lib/offline-transport.ts";
import { type BenchOptions, type Figure, median } from "./lib/report.ts";

const TURNS = 32;

interface EpisodeTimes {
  /** Index j holds turn j + 2 (turn 1 is the first prompt: always a full render). */
  bridge: number[];
  render: number[];
  /** Turns where the bridged ids differed from the full render, or were not bridged (must stay 0). */
  mismatches: number;
}

function opening(salt: string): RenderMessage[] {
  return [
    { role: "system", content: "You are a careful research assistant." },
    { role: "user", content: `Find facts about topic ${salt}; cite every source you use.` },
  ];
}

function episode(salt: string): EpisodeTimes {
  const r = createRenderer("qwen3");
  const opts = { tools: TOOLS };
  const history = opening(salt);
  const turns = Array.from(
    { length: TURNS - 1 },
    (_, j) => toolTurn(j + 1, salt) as [RenderMessage, RenderMessage],
  );
  // As the TrainClient keeps it: the first prompt (a full render) becomes a TokenSequence once.
  let prompt = TokenSequence.from(r.render(history, { ...opts, addGenerationPrompt: true }).tokenIds);
  const out: EpisodeTimes = { bridge: [], render: [], mismatches: 0 };
  const prompts: TokenSequence[] = [];
  turns.forEach(([assistant, tool], j) => {
    // Turn k's reply as the model sampled it, then its tool result: the input of turn k+1. The
    // same small render precedes every bridge, so each turn is timed after the same work.
    const completion = sampledReply(r, salt, j + 1);
    history.push(assistant, tool);
    const t0 = performance.now();
    const bridged = r.bridge(prompt, completion, [tool], opts);
    out.bridge.push(performance.now() - t0);
    prompt =
      bridged?.tokenIds ??
      TokenSequence.from(r.render(history, { ...opts, addGenerationPrompt: true }).tokenIds);
    if (!bridged) out.mismatches++;
    prompts.push(prompt);
  });
  // The full re-render of each turn's history, timed apart (no O(history) work of the bench's
  // own between two bridges, as in production), and compared with the bridged prompt.
  const messages = opening(salt);
  turns.forEach(([assistant, tool], j) => {
    messages.push(assistant, tool);
    const t0 = performance.now();
    const full = r.render(messages, { ...opts, addGenerationPrompt: true });
    out.render.push(performance.now() - t0);
    if (!prompts[j]!.equals(full.tokenIds)) out.mismatches++;
  });
  return out;
}

/**
 * The sampled ids of turn k's reply: its tokens in a render of the opening plus that reply (a
 * reply after the last user message renders the same wherever it stands; the comparison with
 * the full render checks it).
 */
function sampledReply(r: ReturnType<typeof createRenderer>, salt: string, k: number): number[] {
  const msgs = [...opening(salt), toolTurn(k, salt)[0]!];
  const out = r.render(msgs, { tools: TOOLS });
  return out.tokenIds.filter((_, i) => out.messageIndices[i] === 2 && out.sampledMask[i]);
}

const ENVROLL_TOOLS: Tool[] = TOOLS.map((t) => {
  const f = t.function as { name: string; description: string; parameters: Record<string, unknown> };
  return { name: f.name, description: f.description, parameters: f.parameters };
});

async function trainEpisode(salt: string): Promise<EpisodeTimes> {
  const renderer = createRenderer("qwen3");
  const transport = new OfflineTransport();
  const client = new TrainClient({ renderer, transport });
  const graph = new MessageGraph();
  const messages = opening(salt) as Message[];
  const out: EpisodeTimes = { bridge: [], render: [], mismatches: 0 };
  const replies = Array.from({ length: TURNS }, (_, k) =>
    sglangReply(sampledReply(renderer, salt, k + 1), 0),
  );
  const prompts: { ids: TokenSequence; messages: number; bridged: boolean }[] = [];
  for (let k = 1; k <= TURNS; k++) {
    transport.nextReply = replies[k - 1]!;
    const bridgedBefore = client.counts.bridged;
    const t0 = performance.now();
    const plan = graph.prepareTurn(messages);
    const response = await client.getResponse({
      messages,
      tools: ENVROLL_TOOLS,
      sampling: { max_tokens: 512 },
      sessionId: `bench-${salt}`,
      turn: k - 1,
    });
    graph.commit(plan, response);
    const ms = performance.now() - t0;
    if (k > 1) {
      out.bridge.push(ms);
      const bridged = client.counts.bridged > bridgedBefore;
      prompts.push({ ids: response.tokens!.promptIds, messages: messages.length, bridged });
    }
    const call = response.message.tool_calls?.[0];
    messages.push(response.message, {
      role: "tool",
      tool_call_id: call?.id ?? `c${k}`,
      content: toolTurn(k, salt)[1]!.content as string,
    } as Message);
  }
  // Checked after the episode, so the full renders' garbage does not land in the timed turns.
  for (const p of prompts) {
    const full = renderer.render(messages.slice(0, p.messages) as RenderMessage[], {
      tools: TOOLS,
      addGenerationPrompt: true,
    });
    if (!p.bridged || !p.ids.equals(full.tokenIds)) out.mismatches++;
  }
  await client.close();
  return out;
}

function ratio(
  runs: EpisodeTimes[],
  pick: (e: EpisodeTimes) => number[],
): { ratio: number; series: number[] } {
  const series = Array.from({ length: TURNS - 1 }, (_, j) => median(runs.map((e) => pick(e)[j]!)));
  return { ratio: series.at(-1)! / series[0]!, series };
}

export async function bridge(o: BenchOptions): Promise<Figure[]> {
  const episodes = o.quick ? 40 : 100;
  for (let i = 0; i < 5; i++) {
    episode(`warm-${i}`);
    await trainEpisode(`warm-${i}`);
  }
  const bridgeRatio: number[] = [];
  const renderRatio: number[] = [];
  const trainRatio: number[] = [];
  let mismatches = 0;
  let trainMismatches = 0;
  let series: { turn: number; bridge_ms: number; rerender_ms: number; train_turn_ms: number }[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const salts = Array.from({ length: episodes }, (_, i) => `rep${rep}-ep${i}-${(i * 2654435761) >>> 0}`);
    const runs = salts.map((s) => episode(s));
    const trainRuns: EpisodeTimes[] = [];
    for (const s of salts) trainRuns.push(await trainEpisode(s));
    mismatches += runs.reduce((s, e) => s + e.mismatches, 0);
    trainMismatches += trainRuns.reduce((s, e) => s + e.mismatches, 0);
    const b = ratio(runs, (e) => e.bridge);
    const f = ratio(runs, (e) => e.render);
    const t = ratio(trainRuns, (e) => e.bridge);
    bridgeRatio.push(b.ratio);
    renderRatio.push(f.ratio);
    trainRatio.push(t.ratio);
    if (rep === 0 || o.reps === 1)
      series = b.series.map((x, j) => ({
        turn: j + 2,
        bridge_ms: x,
        rerender_ms: f.series[j]!,
        train_turn_ms: t.series[j]!,
      }));
  }
  type Column = "bridge_ms" | "rerender_ms" | "train_turn_ms";
  const figure = (
    name: string,
    reps: number[],
    column: Column,
    target: string,
    met: (v: number) => boolean,
    extra: Record<string, unknown> = {},
  ): Figure => {
    const value = median(reps);
    return {
      name,
      value,
      unit: "ratio",
      target,
      met: met(value),
      reps,
      episodes,
      turn2_ms: series[0]![column],
      turn32_ms: series.at(-1)![column],
      ...extra,
    };
  };
  return [
    figure(
      "bridge_turn32_over_turn2",
      bridgeRatio,
      "bridge_ms",
      "<= 1.5",
      (v) => v <= 1.5 && mismatches === 0,
      {
        bridged_ids_differing_from_full_render: mismatches,
        series,
      },
    ),
    figure(
      "bridge_train_turn32_over_turn2",
      trainRatio,
      "train_turn_ms",
      "<= 1.5",
      (v) => v <= 1.5 && trainMismatches === 0,
      { bridged_ids_differing_from_full_render: trainMismatches },
    ),
    figure("rerender_turn32_over_turn2", renderRatio, "rerender_ms", "grows (> 1.5)", (v) => v > 1.5),
  ];
}
