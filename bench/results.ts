/**
 * Writes the results file: the exact command, the machine (cores, load average: this machine
 * is shared and noisy, so the load is part of every number), the figures table, each figure's
 * details and per-turn/per-sample series. Hand-written analysis below the NOTES marker in an
 * existing file is carried over, so re-running the suite never loses the profiling notes.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/child.ts";
import { type BenchOptions, type Figure, round } from "./lib/report.ts";

const NOTES = "<!-- notes below this line are kept when the suite rewrites this file -->";

export interface ResultsInput {
  figures: Figure[];
  series: Record<string, unknown>;
  options: BenchOptions;
  argv: string[];
  out: string | null;
  wallS: number;
  loadBefore: number[];
  pressureBefore: string;
  /** Only some benchmarks ran (--only): like --quick, never written over bench/RESULTS.md. */
  partial: boolean;
}

function gitCommit(): string {
  try {
    const sha = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--", "packages", "bench"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    return dirty.trim() ? `${sha} (+ uncommitted changes in packages/ or bench/)` : sha;
  } catch {
    return "unknown";
  }
}

/** Linux pressure-stall information: % of time some runnable task waited for a CPU (avg10). */
export function cpuPressure(): string {
  try {
    const m = readFileSync("/proc/pressure/cpu", "utf8").match(/some avg10=([\d.]+) avg60=([\d.]+)/);
    return m ? `${m[1]}% (10 s) / ${m[2]}% (60 s)` : "n/a";
  } catch {
    return "n/a";
  }
}

function cell(v: unknown): string {
  if (v === undefined) return "";
  if (typeof v === "number") return String(round(v));
  if (Array.isArray(v)) return v.map(cell).join(", ");
  return String(v).replace(/\|/g, "\\|");
}

function seriesTable(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "";
  const keys = Object.keys(rows[0]!);
  return [
    `| ${keys.join(" | ")} |`,
    `|${keys.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${keys.map((k) => cell(r[k])).join(" | ")} |`),
  ].join("\n");
}

export async function writeResults(r: ResultsInput): Promise<string> {
  // A quick or partial run would replace the full table with a few smoke figures; it goes to a
  // temp file unless --out names one (a partial run's figures are pasted into the notes by hand).
  const kind = r.options.quick ? "quick" : r.partial ? "partial" : null;
  const path =
    r.out ?? (kind ? join(os.tmpdir(), `envroll-bench-RESULTS.${kind}.md`) : join(ROOT, "bench/RESULTS.md"));
  const cpus = os.cpus();
  const load = (l: number[]) => l.map((x) => x.toFixed(1)).join(" / ");
  const lines: string[] = [
    "# envroll benchmark results",
    "",
    `Command: \`npm run bench${r.argv.length ? ` -- ${r.argv.join(" ")}` : ""}\` (${r.options.quick ? "quick" : "full"} run, ` +
      `${r.options.reps} repetition${r.options.reps > 1 ? "s" : ""} per figure; each figure is the median of its repetitions).`,
    "",
    `- Date: ${new Date().toISOString()}; commit ${gitCommit()}; suite wall time ${r.wallS.toFixed(0)} s`,
    `- Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ` +
      `Node ${process.version}, ${os.type()} ${os.release()}`,
    `- Load average (1/5/15 min) at start: ${load(r.loadBefore)}; at end: ${load(os.loadavg())}. ` +
      `CPU pressure (time some task waited for a CPU) at start: ${r.pressureBefore}; at end: ${cpuPressure()}. The machine is shared ` +
      "with other engineers' builds and tests: wall-clock figures are noisy, ratios are measured side by side " +
      "(interleaved in one run) to cancel most of it, and CPU-time figures are the steadiest.",
    "",
    "| figure | value | unit | target | met | repetitions |",
    "|---|---|---|---|---|---|",
    ...r.figures.map(
      (f) =>
        `| \`${f.name}\` | ${cell(f.value)} | ${f.unit} | ${cell(f.target)} | ${f.met === undefined ? "" : f.met ? "yes" : "**no**"} | ${cell(f.reps)} |`,
    ),
    "",
    "## Details",
    "",
  ];
  for (const f of r.figures) {
    const shown = new Set(["name", "value", "unit", "target", "met", "reps"]);
    const extra = Object.fromEntries(Object.entries(f).filter(([k]) => !shown.has(k)));
    lines.push(
      `- \`${f.name}\`: ${Object.entries(extra)
        .map(([k, v]) => `${k} = ${cell(v)}`)
        .join("; ")}`,
    );
  }
  for (const [name, rows] of Object.entries(r.series)) {
    lines.push("", `## Series: \`${name}\``, "", seriesTable(rows as Record<string, unknown>[]));
  }
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const at = previous.indexOf(NOTES);
  const notes = at >= 0 ? previous.slice(at + NOTES.length).replace(/^\n+/, "") : "";
  lines.push("", NOTES, "", notes);
  writeFileSync(path, `${lines.join("\n").trimEnd()}\n`);
  return path;
}
