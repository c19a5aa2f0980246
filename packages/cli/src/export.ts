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

export function runExport(tracesPath: string, args: ExportArgs): { path: string; samples: number } {
  let read: ReturnType<typeof readTraces>;
  try {
    read = readTraces(tracesPath);
  } catch (e) {
    throw new UsageError(`cannot read ${tracesPath}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (read.badLines.length > 0) {
    process.stderr.write(
      `envroll export: skipped unreadable line(s) ${read.badLines.join(", ")} of ${tracesPath}\n`,
    );
  }
  const samples = tracesToSamples(read.traces, {
    rewardKey: args.rewardKey ?? null,
    skipErrored: args.skipErrored,
  });
  const path = args.output ?? join(dirname(tracesPath), `samples.${args.format}`);
  if (args.format === "parquet") writeFileSync(path, new Uint8Array(samplesToParquet(samples)));
  else writeFileSync(path, samplesToJsonl(samples));
  return { path, samples: samples.length };
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
      const { path, samples } = runExport(traces, opts);
      process.stdout.write(`wrote ${samples} sample(s) to ${path}\n`);
    });
}
