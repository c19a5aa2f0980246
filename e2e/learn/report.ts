/**
 * What the learning run writes: `learn.json` (the numbers) and `learn.html`, a self-contained
 * page (inline SVG, no script, no server) with reward per step and the logprob mismatch.
 */
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";

export interface StepRecord {
  step: number;
  reward_mean: number;
  logprob_max_abs_diff: number;
  /** The version this step's update pushed to the engine. */
  weight_version: string;
  /** Turns in the step's batch by the version that sampled them. */
  batch_turns_by_version: Record<string, number>;
  /** Episodes of the batch whose turns came from more than one version. */
  batch_spanning: number;
  /** Loss-masked tokens compared against the weights that sampled them. */
  compared_tokens: number;
  loss: number;
  wall_s: number;
}

export interface LearnReport {
  command: string;
  config: Record<string, unknown>;
  steps: StepRecord[];
  episodes_spanning_updates: number;
  /** Turns sampled partly before and partly after an update (pause mode `retract`). */
  split_turns: number;
  turns_by_version: Record<string, number>;
  version_policy: Record<string, number>;
  first5_reward_mean: number;
  last5_reward_mean: number;
  max_logprob_abs_diff: number;
  wall_s: number;
}

/** Versions of an episode's sampled turns, in order. */
export function turnVersions(trace: TraceRecord): string[] {
  return trace.nodes.filter((n) => n.sampled).map((n) => String(n.weight_version ?? "null"));
}

export function countTurns(
  traces: readonly TraceRecord[],
  into: Record<string, number> = {},
): Record<string, number> {
  for (const t of traces) for (const v of turnVersions(t)) into[v] = (into[v] ?? 0) + 1;
  return into;
}

/** Turns of the trace that a weight update split (their tokens carry two versions: `retract`). */
export function splitTurns(trace: TraceRecord): number {
  let n = 0;
  for (const b of trace.branches) {
    let run = new Set<string>();
    b.sampled_mask.forEach((m, i) => {
      if (m) run.add(String(b.weight_versions[i]));
      if ((!m || i === b.sampled_mask.length - 1) && run.size > 0) {
        if (run.size > 1) n++;
        run = new Set();
      }
    });
  }
  return n;
}

export function spansUpdate(trace: TraceRecord): boolean {
  return new Set(turnVersions(trace)).size > 1;
}

export const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;

const W = 720;
const H = 300;
const PAD = 48;

function polyline(values: readonly number[], lo: number, hi: number, color: string): string {
  const n = values.length;
  const pts = values.map((v, i) => {
    const x = PAD + (n <= 1 ? 0 : (i / (n - 1)) * (W - 2 * PAD));
    const y = H - PAD - ((v - lo) / (hi - lo || 1)) * (H - 2 * PAD);
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const dots = pts.map(
    (p) => `<circle cx="${p.split(",")[0]}" cy="${p.split(",")[1]}" r="2.5" fill="${color}"/>`,
  );
  return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(" ")}"/>${dots.join("")}`;
}

function chart(
  title: string,
  values: readonly number[],
  lo: number,
  hi: number,
  color: string,
  fmt: (v: number) => string,
): string {
  const ticks = [lo, (lo + hi) / 2, hi]
    .map((v) => {
      const y = H - PAD - ((v - lo) / (hi - lo || 1)) * (H - 2 * PAD);
      return `<line x1="${PAD}" x2="${W - PAD}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${PAD - 6}" y="${y + 4}" text-anchor="end" font-size="11">${fmt(v)}</text>`;
    })
    .join("");
  const n = values.length;
  const xl = `<text x="${PAD}" y="${H - PAD + 18}" font-size="11">step 1</text><text x="${W - PAD}" y="${H - PAD + 18}" font-size="11" text-anchor="end">step ${n}</text>`;
  return `<h2>${title}</h2><svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">${ticks}${xl}${polyline(values, lo, hi, color)}</svg>`;
}

/** The reward chart alone, as a standalone SVG file (what the README shows). */
export function rewardSvg(r: LearnReport): string {
  const rewards = r.steps.map((s) => s.reward_mean);
  const svg = chart("", rewards, Math.min(0, ...rewards), Math.max(1, ...rewards), "#1f77b4", (v) =>
    v.toFixed(2),
  );
  const title = `<text x="${PAD}" y="20" font-size="13" font-family="sans-serif">envroll npm run learn: mean reward per GRPO step (${r.steps.length} steps)</text>`;
  return `${svg.slice(svg.indexOf("<svg")).replace(/^(<svg[^>]*>)/, `$1<rect width="100%" height="100%" fill="white"/>${title}`)}\n`;
}

export function reportHtml(r: LearnReport): string {
  const rewards = r.steps.map((s) => s.reward_mean);
  const diffs = r.steps.map((s) => s.logprob_max_abs_diff);
  const lo = Math.min(0, ...rewards);
  const hi = Math.max(1, ...rewards);
  const rows = r.steps
    .map(
      (s) =>
        `<tr><td>${s.step}</td><td>${s.reward_mean.toFixed(3)}</td><td>${s.logprob_max_abs_diff.toExponential(2)}</td><td>${s.weight_version}</td><td>${JSON.stringify(s.batch_turns_by_version)}</td><td>${s.batch_spanning}</td></tr>`,
    )
    .join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>envroll learning run</title>
<style>body{font-family:sans-serif;max-width:780px;margin:2em auto}td,th{padding:2px 8px;text-align:right;font-size:12px}</style></head><body>
<h1>envroll learning run</h1>
<p>Reward: first five steps ${r.first5_reward_mean.toFixed(3)}, last five ${r.last5_reward_mean.toFixed(3)}.
Max |rollout − trainer logprob| over all steps ${r.max_logprob_abs_diff.toExponential(2)} (each turn against the version that sampled it).
Episodes spanning a weight update: ${r.episodes_spanning_updates}. Turns by version: ${JSON.stringify(r.turns_by_version)}.</p>
${chart("Mean reward per step", rewards, lo, hi, "#1f77b4", (v) => v.toFixed(2))}
${chart("Max |logprob diff| per step", diffs, 0, Math.max(1e-4, ...diffs), "#d62728", (v) => v.toExponential(0))}
<table><tr><th>step</th><th>reward</th><th>max diff</th><th>pushed</th><th>batch turns by version</th><th>spanning</th></tr>${rows}</table>
<p><code>${r.command}</code></p></body></html>
`;
}
