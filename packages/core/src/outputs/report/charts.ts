/**
 * Inline SVG charts for the report. Plain SVG strings (no chart library, no external fonts) so
 * the report opens offline and stays one file.
 */
import { esc, num } from "./html.ts";

export interface Bin {
  label: string;
  count: number;
}

/**
 * Reward bins: one bar per distinct value when there are few (rewards are often discrete, e.g.
 * {0, 0.5, 1, 1.5, 2} for code-golf), otherwise equal-width bins between min and max.
 */
export function rewardBins(rewards: readonly number[], maxDistinct = 12, numBins = 20): Bin[] {
  if (rewards.length === 0) return [];
  const distinct = [...new Set(rewards)].sort((a, b) => a - b);
  if (distinct.length <= maxDistinct) {
    return distinct.map((v) => ({ label: num(v, 2), count: rewards.filter((r) => r === v).length }));
  }
  const lo = distinct[0]!;
  const hi = distinct[distinct.length - 1]!;
  const width = (hi - lo) / numBins;
  const bins: Bin[] = Array.from({ length: numBins }, (_, i) => ({
    label: `${num(lo + i * width, 2)}–${num(lo + (i + 1) * width, 2)}`,
    count: 0,
  }));
  for (const r of rewards) bins[Math.min(numBins - 1, Math.floor((r - lo) / width))]!.count += 1;
  return bins;
}

/** A vertical bar histogram with count labels. */
export function histogramSvg(bins: readonly Bin[]): string {
  if (bins.length === 0) return `<p class="muted">No rollouts.</p>`;
  const w = 640;
  const h = 220;
  const pad = { l: 36, r: 8, t: 16, b: 44 };
  const max = Math.max(...bins.map((b) => b.count), 1);
  const bw = (w - pad.l - pad.r) / bins.length;
  const plotH = h - pad.t - pad.b;
  const bars = bins
    .map((b, i) => {
      const bh = (b.count / max) * plotH;
      const x = pad.l + i * bw;
      const y = pad.t + plotH - bh;
      const label = bins.length > 12 && i % 2 === 1 ? "" : esc(b.label);
      return (
        `<rect class="bar" x="${(x + 2).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, bw - 4).toFixed(1)}" height="${bh.toFixed(1)}"><title>${esc(b.label)}: ${b.count}</title></rect>` +
        `<text class="count" x="${(x + bw / 2).toFixed(1)}" y="${(y - 3).toFixed(1)}">${b.count || ""}</text>` +
        `<text class="tick" x="${(x + bw / 2).toFixed(1)}" y="${h - pad.b + 14}">${label}</text>`
      );
    })
    .join("");
  const axis = `<line class="axis" x1="${pad.l}" y1="${pad.t + plotH}" x2="${w - pad.r}" y2="${pad.t + plotH}"/>`;
  const title = `<text class="axis-label" x="${w / 2}" y="${h - 6}">reward</text>`;
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="Reward histogram">${axis}${bars}${title}</svg>`;
}

/** Horizontal bars for per-key means (rewards or metrics); the scale is the largest |value|. */
export function keyBarsSvg(values: Record<string, number>): string {
  const entries = Object.entries(values);
  if (entries.length === 0) return `<p class="muted">None recorded.</p>`;
  const w = 640;
  const row = 26;
  const labelW = 180;
  const valueW = 70;
  const h = entries.length * row + 8;
  const max = Math.max(...entries.map(([, v]) => Math.abs(v)), 1e-12);
  const span = w - labelW - valueW;
  const rows = entries
    .map(([k, v], i) => {
      const y = 4 + i * row;
      const bw = (Math.abs(v) / max) * span;
      return (
        `<text class="key" x="${labelW - 8}" y="${y + 17}">${esc(k)}</text>` +
        `<rect class="${v < 0 ? "bar neg" : "bar"}" x="${labelW}" y="${y + 4}" width="${Math.max(bw, 1).toFixed(1)}" height="${row - 8}"><title>${esc(k)}: ${num(v, 4)}</title></rect>` +
        `<text class="val" x="${(labelW + bw + 6).toFixed(1)}" y="${y + 17}">${num(v, 3)}</text>`
      );
    })
    .join("");
  return `<svg class="chart bars" viewBox="0 0 ${w} ${h}" role="img" aria-label="Per-key means">${rows}</svg>`;
}
