/**
 * `report.html`: one self-contained page (inline CSS, inline SVG, one hashed inline script, no
 * network) built from the summary and the traces.
 *
 * Safety: every task/model string goes through `esc`, the one JSON island goes through
 * `jsonForScript`, and a Content-Security-Policy allows only the report's own script (by hash),
 * so even a reply containing `</script><script>…` can neither break out nor run.
 */
import { createHash } from "node:crypto";
import type { TraceRecord } from "../../trace/record.ts";
import { contentText } from "../../types.ts";
import type { Summary } from "../summary.ts";
import { effectiveTraces, groupByTask, hasError } from "../trace-set.ts";
import { REPORT_CSS, REPORT_JS } from "./assets.ts";
import { histogramSvg, keyBarsSvg, rewardBins } from "./charts.ts";
import { esc, jsonForScript, num } from "./html.ts";
import { traceAnchor, traceDetails } from "./trace-view.ts";

export interface ReportOptions {
  /** At most this many traces are embedded (the rest stay in traces.jsonl). */
  maxTraces?: number;
  /** Generation time shown in the header (fixed in tests). */
  generatedAt?: Date;
}

/** A one-line description of a task for the table. */
export function taskLabel(t: TraceRecord): string {
  const d = t.task.data;
  if (d.name) return String(d.name);
  const p = d.prompt;
  const text = typeof p === "string" ? p : Array.isArray(p) ? contentText(p[p.length - 1]?.content) : "";
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

function card(label: string, value: string): string {
  return `<div class="card"><div class="v">${value}</div><div class="l">${esc(label)}</div></div>`;
}

function chip(t: TraceRecord | undefined, r: number, threshold: number, linked: Set<string>): string {
  if (!t) return `<span class="chip c-missing" title="rollout ${r}: missing">–</span>`;
  const cls = hasError(t) ? "c-err" : t.reward >= threshold ? "c-ok" : "c-low";
  const title = `rollout ${r}: reward ${num(t.reward, 4)}${hasError(t) ? ` (${t.errors[t.errors.length - 1]!.type})` : ""}`;
  const text = hasError(t) ? "err" : num(t.reward, 2);
  const id = traceAnchor(t);
  return linked.has(id)
    ? `<a class="chip ${cls}" href="#${id}" title="${esc(title)}">${text}</a>`
    : `<span class="chip ${cls}" title="${esc(title)}">${text}</span>`;
}

function statsSection(s: Summary): string {
  const ks = Object.keys(s.pass_at_k);
  const passRows = ks
    .map(
      (k) =>
        `<tr><td>${esc(k)}</td><td class="num">${num(s.pass_at_k[k])}</td><td class="num">${num(s.pass_all_k[k])}</td></tr>`,
    )
    .join("");
  const pass = ks.length
    ? `<table class="pass"><tr><th>k</th><th class="num">pass@k</th><th class="num">pass^k</th></tr>${passRows}</table><p class="muted">correct = reward ≥ ${num(s.pass_threshold, 2)}; averaged over ${s.num_complete_tasks} task(s) with all ${s.num_rollouts} rollouts.</p>`
    : `<p class="muted">pass@k needs at least 2 rollouts per task.</p>`;
  const cards = [
    card("reward mean ± std", `${num(s.reward.mean)} <small>± ${num(s.reward.std)}</small>`),
    card("mean over non-errored", num(s.reward.mean_non_errored)),
    card("rollouts", `${s.num_traces}`),
    card("tasks × rollouts", `${s.num_tasks} × ${s.num_rollouts}`),
    card("error rate", `${num(s.error_rate * 100, 1)}%`),
    card("truncation rate", `${num(s.truncation_rate * 100, 1)}%`),
    card("tokens (prompt / completion)", `${s.tokens.prompt} <small>/ ${s.tokens.completion}</small>`),
    card(
      "rollout time total / mean (s)",
      `${num(s.time.rollout_seconds_total, 1)} <small>/ ${num(s.time.rollout_seconds_mean, 2)}</small>`,
    ),
  ].join("");
  return `<section><h2>Summary</h2><div class="cards">${cards}</div></section><section><h2>pass@k</h2>${pass}</section>`;
}

/** Failed tool-call attempts by family and parser status (only when there were any). */
function toolCallFailures(s: Summary): string {
  const f = s.tool_call_failures;
  if (!f || f.attempts === 0) return "";
  const rows = Object.entries(f.by_family)
    .flatMap(([family, reasons]) =>
      Object.entries(reasons).map(
        ([reason, n]) => `<tr><td>${esc(family)}</td><td>${esc(reason)}</td><td class="num">${n}</td></tr>`,
      ),
    )
    .join("");
  return (
    `<section><h2>Tool calls that did not parse</h2><p class="muted">${f.turns} sampled turn(s) looked like ` +
    `a tool call but did not parse (${f.attempts} attempt(s)).</p><table><tr><th>family</th><th>reason</th>` +
    `<th class="num">attempts</th></tr>${rows}</table></section>`
  );
}

function taskTable(traces: readonly TraceRecord[], s: Summary, linked: Set<string>): string {
  const rows = [...groupByTask(traces).entries()]
    .map(([taskIndex, group]) => {
      const byRollout = new Map(group.map((t) => [t.rollout_index, t]));
      const n = Math.max(s.num_rollouts, ...group.map((t) => t.rollout_index + 1));
      const chips = Array.from({ length: n }, (_, r) =>
        chip(byRollout.get(r), r, s.pass_threshold, linked),
      ).join("");
      const rewards = group.map((t) => t.reward);
      const correct = group.filter((t) => t.reward >= s.pass_threshold).length;
      const errors = group.filter(hasError).length;
      return (
        `<tr><td class="num">${taskIndex}</td><td class="prompt" title="${esc(taskLabel(group[0]!))}">${esc(taskLabel(group[0]!))}</td>` +
        `<td>${chips}</td><td class="num">${num(rewards.reduce((a, b) => a + b, 0) / rewards.length)}</td>` +
        `<td class="num">${correct}/${group.length}</td><td class="num">${errors ? `<span class="err">${errors}</span>` : 0}</td></tr>`
      );
    })
    .join("");
  return (
    `<section><h2>Tasks</h2><table><tr><th class="num">task</th><th>prompt</th><th>rollouts (click for the trace)</th>` +
    `<th class="num">mean</th><th class="num">correct</th><th class="num">errors</th></tr>${rows}</table></section>`
  );
}

function errorList(traces: readonly TraceRecord[], linked: Set<string>): string {
  const errored = traces.filter(hasError);
  if (errored.length === 0)
    return `<section><h2>Errors</h2><p class="muted">No errored rollouts.</p></section>`;
  const items = errored
    .map((t) => {
      const e = t.errors[t.errors.length - 1]!;
      const msg = e.message.length > 600 ? `${e.message.slice(0, 600)}…` : e.message;
      const where = `task ${t.task_index} · rollout ${t.rollout_index}`;
      const link = linked.has(traceAnchor(t)) ? `<a href="#${traceAnchor(t)}">${where}</a>` : where;
      return `<li>${link}: <b>${esc(e.type)}</b> — ${esc(msg)}</li>`;
    })
    .join("");
  return `<section><h2>Errors (${errored.length})</h2><ul>${items}</ul></section>`;
}

/**
 * Which traces the page embeds when there are more than `max`: errored ones first (they are what
 * a reader opens the report for), then the rest in task order; shown in task order.
 */
export function pickEmbedded(traces: readonly TraceRecord[], max: number): TraceRecord[] {
  if (traces.length <= max) return [...traces];
  const chosen = new Set(traces.filter(hasError).slice(0, max));
  for (const t of traces) {
    if (chosen.size >= max) break;
    chosen.add(t);
  }
  return traces.filter((t) => chosen.has(t));
}

export function renderReport(
  summary: Summary,
  allTraces: readonly TraceRecord[],
  opts: ReportOptions = {},
): string {
  const traces = effectiveTraces(allTraces);
  const superseded = allTraces.length - traces.length;
  const maxTraces = opts.maxTraces ?? 2000;
  const embedded = pickEmbedded(traces, maxTraces);
  const linked = new Set(embedded.map(traceAnchor));
  const scriptHash = createHash("sha256").update(REPORT_JS).digest("base64");
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${scriptHash}'`;
  const title = `${summary.taskset} · ${summary.model} · ${summary.harness}`;
  const generated = (opts.generatedAt ?? new Date()).toISOString();
  const omitted = traces.length - embedded.length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>envroll eval · ${esc(title)}</title>
<style>${REPORT_CSS}</style></head>
<body>
<header><h1>${esc(title)}</h1><div class="meta">run ${esc(summary.run_id)} · generated ${esc(generated)}${superseded > 0 ? ` · ${superseded} superseded attempt(s) hidden` : ""}</div></header>
<main>
${statsSection(summary)}
<div class="grid2"><section><h2>Reward distribution</h2>${histogramSvg(rewardBins(traces.map((t) => t.reward)))}</section>
<section><h2>Rewards by key (weighted means)</h2>${keyBarsSvg(summary.rewards)}<h2>Metrics (means)</h2>${keyBarsSvg(summary.metrics)}</section></div>
${toolCallFailures(summary)}
${taskTable(traces, summary, linked)}
${errorList(traces, linked)}
<section><h2>Traces</h2>${omitted > 0 ? `<p class="muted">${omitted} more trace(s) are in traces.jsonl only.</p>` : ""}${embedded.map(traceDetails).join("\n")}</section>
</main>
<script type="application/json" id="summary-data">${jsonForScript(summary)}</script>
<script>${REPORT_JS}</script>
</body></html>
`;
}
