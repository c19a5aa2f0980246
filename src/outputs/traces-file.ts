/**
 * `traces.jsonl`: one TraceRecord per line, appended as each rollout completes.
 *
 * Every line goes out in one synchronous `write` on an append-mode descriptor, so lines from
 * concurrent rollouts never interleave and a finished trace is on disk before the next one
 * starts writing. A process killed mid-write can still leave a partial last line; the reader
 * skips it and `repairTail` cuts it off before a resumed run appends, so lines stay whole.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import type { TraceRecord } from "../trace/record.ts";

export class TracesWriter {
  private fd: number | null;
  count = 0;

  constructor(readonly path: string) {
    repairTail(path);
    this.fd = openSync(path, "a");
  }

  append(trace: TraceRecord): void {
    if (this.fd === null) throw new Error(`traces writer for ${this.path} is closed`);
    writeSync(this.fd, `${JSON.stringify(trace)}\n`);
    this.count += 1;
  }

  /** Flushes to stable storage and closes; safe to call twice. */
  close(): void {
    if (this.fd === null) return;
    try {
      fsyncSync(this.fd);
    } catch {
      // fsync is best effort (some filesystems refuse it); the data is already written.
    }
    closeSync(this.fd);
    this.fd = null;
  }
}

/** Cuts a trailing partial line (no final newline) left by a killed writer. */
export function repairTail(path: string): void {
  if (!existsSync(path)) return;
  const buf = readFileSync(path);
  if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return;
  const lastNewline = buf.lastIndexOf(0x0a);
  truncateSync(path, lastNewline + 1);
}

export interface ReadResult {
  traces: TraceRecord[];
  /** 1-based line numbers that could not be parsed (a partial last line, hand edits). */
  badLines: number[];
}

/** Reads every whole, parseable line; never throws on a damaged line. */
export function readTraces(path: string): ReadResult {
  const text = readFileSync(path, "utf8");
  const traces: TraceRecord[] = [];
  const badLines: number[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      const value = JSON.parse(line) as TraceRecord;
      if (typeof value?.task_index !== "number" || typeof value?.rollout_index !== "number") {
        badLines.push(i + 1);
        return;
      }
      traces.push(value);
    } catch {
      badLines.push(i + 1);
    }
  });
  return { traces, badLines };
}
