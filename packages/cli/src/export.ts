/**
 * `envroll export <traces.jsonl> --format jsonl|parquet [-o file]`: an eval's traces as Miles
 * training samples (one per branch, grouped per task), e.g. for offline SFT/RL datasets.
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Command, Option } from "commander";
import { samplesToJsonl, samplesToParquet } from "envroll/internal/outputs/export/parquet.ts";
import { tracesToSamples } from "envroll/internal/outputs/export/samples.ts";
import { readTraces } from "envroll/internal/outputs/traces-file.ts";
import { UsageError } from "./args.ts";

export interface ExportArgs {
  format: "jsonl" | "parquet";
  output?: string;
  rewardKey?: string;
  skipErrored?: boolean;
}

/** Nothing to write: the command did nothing useful, so it exits 1 (not a usage error). */
export class NothingExportedError extends Error {
  override name = "NothingExportedError";
}

/** "1, 2, 3, … (12 in all)": a file of garbage would otherwise print every line number. */
function lineList(lines: readonly number[]): string {
  const shown = lines.slice(0, 10).join(", ");
  return lines.length > 10 ? `${shown}, … (${lines.length} in all)` : shown;
}

export function runExport(
  tracesPath: string,
  args: ExportArgs,
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): { path: string; samples: number; skippedLines: number } {
  let read: ReturnType<typeof readTraces>;
  try {
    read = readTraces(tracesPath);
  } catch (e) {
    throw new UsageError(`cannot read ${tracesPath}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const skipped = read.badLines.length;
  if (skipped > 0)
    warn(
      `envroll export: skipped ${skipped} line(s) of ${tracesPath} that are not trace records: ${lineList(read.badLines)}`,
    );
  const samples = tracesToSamples(read.traces, {
    rewardKey: args.rewardKey ?? null,
    skipErrored: args.skipErrored,
  });
  if (samples.length === 0) {
    const why =
      read.traces.length === 0
        ? `${tracesPath} holds no trace record (${skipped > 0 ? `${skipped} unreadable line(s)` : "it is empty"})`
        : `all ${read.traces.length} trace(s) of ${tracesPath} errored and --skip-errored leaves them out`;
    throw new NothingExportedError(`nothing exported, no file written: ${why}`);
  }
  const path = args.output ?? join(dirname(tracesPath), `samples.${args.format}`);
  if (args.format === "parquet") writeFileSync(path, new Uint8Array(samplesToParquet(samples)));
  else writeFileSync(path, samplesToJsonl(samples));
  return { path, samples: samples.length, skippedLines: skipped };
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description("Convert traces.jsonl to training samples (Miles Sample rows) as JSONL or Parquet")
    .argument("<traces>", "a traces.jsonl written by `envroll eval`")
    .addOption(
      new Option("-f, --format <format>", "output format").choices(["jsonl", "parquet"]).default("jsonl"),
    )
    .option("-o, --output <file>", "output file (default: samples.<format> next to the traces)")
    .option("--reward-key <key>", "store the per-key rewards as a dict with `reward` (Miles --reward-key)")
    .option("--skip-errored", "leave out samples of errored rollouts")
    .action((traces: string, opts: ExportArgs) => {
      try {
        const { path, samples, skippedLines } = runExport(traces, opts);
        const skipped = skippedLines > 0 ? ` (${skippedLines} unreadable line(s) skipped)` : "";
        process.stdout.write(`wrote ${samples} sample(s) to ${path}${skipped}\n`);
      } catch (e) {
        if (!(e instanceof NothingExportedError)) throw e;
        process.stderr.write(`envroll export: ${e.message}\n`);
        process.exitCode = 1;
      }
    });
}
