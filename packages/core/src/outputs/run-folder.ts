/**
 * The eval output folder: `outputs/<taskset>--<model>--<harness>/<run id>/` holding
 * `config.toml`, `traces.jsonl`, `summary.json` and `report.html`.
 *
 * The summary and report are derived files: `writeDerived` regenerates both from the whole of
 * `traces.jsonl`, which is how a resumed run reports over the union of its attempts. They are
 * written to a temporary name and renamed, so a reader never sees half a file.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderReport } from "./report/report.ts";
import { type RunMeta, type Summary, summarize } from "./summary.ts";
import { readTraces } from "./traces-file.ts";

export const FILES = {
  config: "config.toml",
  traces: "traces.jsonl",
  summary: "summary.json",
  report: "report.html",
} as const;

/** A path-safe name part: `/` becomes `-` (as Verifiers does for models), other oddities `_`. */
export function safePart(s: string): string {
  const cleaned = s
    .replace(/\//g, "-")
    .replace(/[^A-Za-z0-9._@+-]/g, "_")
    .replace(/^\.+/, "_");
  return cleaned || "_";
}

/** A short sortable id: UTC timestamp plus 8 random hex digits. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  return `${stamp}-${randomUUID().slice(0, 8)}`;
}

export function runFolder(
  base: string,
  taskset: string,
  model: string,
  harness: string,
  runId: string,
): string {
  return join(base, `${safePart(taskset)}--${safePart(model)}--${safePart(harness)}`, runId);
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export interface Derived {
  summary: Summary;
  badLines: number[];
}

/** Re-reads `traces.jsonl` and rewrites `summary.json` and `report.html`. */
export function writeDerived(dir: string, meta: RunMeta): Derived {
  mkdirSync(dir, { recursive: true });
  const { traces, badLines } = readTraces(join(dir, FILES.traces), { slim: true });
  const summary = summarize(traces, meta);
  writeAtomic(join(dir, FILES.summary), `${JSON.stringify(summary, null, 2)}\n`);
  writeAtomic(join(dir, FILES.report), renderReport(summary, traces));
  return { summary, badLines };
}
