/**
 * `traces.jsonl`: one TraceRecord per line, appended as each rollout completes.
 *
 * Every line goes out in one synchronous `write` on an append-mode descriptor, so lines from
 * concurrent rollouts never interleave and a finished trace is on disk before the next one
 * starts writing. A process killed mid-write can still leave a partial last line; the reader
 * skips it and `repairTail` cuts it off before a resumed run appends, so lines stay whole.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  truncateSync,
  writeSync,
} from "node:fs";
import type { TraceRecord } from "../trace/record.ts";
import { slimRecord } from "./trace-set.ts";

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

/** Cuts a trailing partial line (no final newline) left by a killed writer; reads only the tail. */
export function repairTail(path: string): void {
  if (!existsSync(path)) return;
  const fd = openSync(path, "r");
  let cut: number | null = null;
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      readSync(fd, buf, 0, end - start, start);
      const nl = buf.subarray(0, end - start).lastIndexOf(0x0a);
      if (end === size && nl === end - start - 1) return; // ends with a newline: intact
      if (nl >= 0) {
        cut = start + nl + 1;
        break;
      }
      end = start;
    }
    cut ??= 0;
  } finally {
    closeSync(fd);
  }
  if (cut !== null) truncateSync(path, cut);
}

export interface ReadResult {
  traces: TraceRecord[];
  /** 1-based line numbers that could not be parsed (a partial last line, hand edits). */
  badLines: number[];
}

export interface ReadOptions {
  /**
   * Drop token-level arrays as lines are read (see `slimRecord`): summaries and reports never
   * need them, and they are most of a trace's size.
   */
  slim?: boolean;
}

const CHUNK = 1 << 20;

/**
 * The file's lines, read in 1 MiB chunks: a long eval's traces.jsonl can exceed the largest
 * string V8 allows, so it is never read whole. Lines are split on the newline byte before
 * decoding, so multi-byte characters across chunk edges stay intact.
 */
export function* readLines(path: string): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      let data = Buffer.concat([carry, buf.subarray(0, n)]);
      let nl = data.indexOf(0x0a);
      while (nl >= 0) {
        yield data.subarray(0, nl).toString("utf8");
        data = data.subarray(nl + 1);
        nl = data.indexOf(0x0a);
      }
      carry = Buffer.from(data);
    }
    if (carry.length > 0) yield carry.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** Reads every whole, parseable line; never throws on a damaged line. */
export function readTraces(path: string, opts: ReadOptions = {}): ReadResult {
  const traces: TraceRecord[] = [];
  const badLines: number[] = [];
  let lineNo = 0;
  for (const line of readLines(path)) {
    lineNo += 1;
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line) as TraceRecord;
      if (typeof value?.task_index !== "number" || typeof value?.rollout_index !== "number") {
        badLines.push(lineNo);
        continue;
      }
      traces.push(opts.slim ? slimRecord(value) : value);
    } catch {
      badLines.push(lineNo);
    }
  }
  return { traces, badLines };
}
