/**
 * Eval progress: rollouts done/total, mean reward so far, errors, rate and ETA.
 *
 * On a TTY it is one bar redrawn in place (cli-progress); otherwise (CI logs, pipes) a plain
 * line every `intervalMs`, because carriage-return redraws turn into thousands of lines there.
 * It writes to stderr so stdout carries only the final summary. cli-progress (and node:readline
 * behind it) is loaded only for a TTY.
 */
import type { SingleBar } from "cli-progress";

export interface ProgressOptions {
  total: number;
  /** Rollouts already done before this process (resume): counted in done, not in the rate. */
  initial?: number;
  stream?: NodeJS.WriteStream;
  tty?: boolean;
  intervalMs?: number;
  now?: () => number;
}

export interface ProgressState {
  done: number;
  total: number;
  meanReward: number | null;
  errors: number;
  ratePerSec: number;
  etaSec: number | null;
}

export function formatDuration(sec: number | null): string {
  if (sec === null || !Number.isFinite(sec)) return "?";
  const s = Math.round(sec);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export function formatLine(p: ProgressState): string {
  const reward = p.meanReward === null ? "–" : p.meanReward.toFixed(3);
  return (
    `${p.done}/${p.total} rollouts | reward ${reward} | errors ${p.errors} | ` +
    `${p.ratePerSec.toFixed(2)}/s | ETA ${formatDuration(p.etaSec)}`
  );
}

export class Progress {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly now: () => number;
  private readonly started: number;
  private readonly initial: number;
  private done: number;
  private rewardSum = 0;
  private rewardCount = 0;
  private errors = 0;
  private bar: SingleBar | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ProgressOptions) {
    this.stream = opts.stream ?? process.stderr;
    this.tty = opts.tty ?? Boolean(this.stream.isTTY);
    this.now = opts.now ?? Date.now;
    this.started = this.now();
    this.initial = opts.initial ?? 0;
    this.done = this.initial;
  }

  async start(): Promise<void> {
    if (this.tty) {
      const { SingleBar } = await import("cli-progress");
      this.bar = new SingleBar({
        stream: this.stream,
        hideCursor: true,
        clearOnComplete: false,
        barsize: 28,
        format: "{bar} {line}",
      });
      this.bar.start(this.opts.total, this.done, { line: formatLine(this.state()) });
    } else {
      this.timer = setInterval(
        () => this.stream.write(`${formatLine(this.state())}\n`),
        this.opts.intervalMs ?? 5000,
      );
      this.timer.unref();
    }
  }

  /** Records one finished rollout. */
  add(reward: number, errored: boolean): void {
    this.done += 1;
    this.rewardSum += reward;
    this.rewardCount += 1;
    if (errored) this.errors += 1;
    this.bar?.update(this.done, { line: formatLine(this.state()) });
  }

  state(): ProgressState {
    const elapsed = (this.now() - this.started) / 1000;
    const fresh = this.done - this.initial;
    const rate = elapsed > 0 ? fresh / elapsed : 0;
    const left = this.opts.total - this.done;
    return {
      done: this.done,
      total: this.opts.total,
      meanReward: this.rewardCount ? this.rewardSum / this.rewardCount : null,
      errors: this.errors,
      ratePerSec: rate,
      etaSec: left <= 0 ? 0 : rate > 0 ? left / rate : null,
    };
  }

  /** Stops redrawing and prints the final line (both modes). */
  stop(): void {
    if (this.bar) {
      this.bar.update(this.done, { line: formatLine(this.state()) });
      this.bar.stop();
      this.bar = null;
    }
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.stream.write(`${formatLine(this.state())}\n`);
    }
  }
}
