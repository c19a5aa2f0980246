/**
 * Graceful shutdown for long-running commands (`envroll serve`): the first SIGINT/SIGTERM starts
 * a drain (stop scheduling, abort in-flight engine requests, save state) and announces it; a
 * second signal, or a drain that outlives its grace period, exits at once. Either way the exit
 * status is the conventional 128 + signal number, so a supervisor can tell a stop from success.
 */
import { constants } from "node:os";

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

/** 130 for SIGINT, 143 for SIGTERM. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 15);
}

export interface ShutdownWatch {
  /** Resolves with the first signal received. */
  readonly signalled: Promise<NodeJS.Signals>;
  /** The first signal, once one arrived. */
  readonly signal: NodeJS.Signals | null;
  /** Removes the handlers (and the grace timer) once the drain is over. */
  dispose(): void;
}

/**
 * Installs the handlers. `graceMs` bounds the drain: a stuck shutdown (an engine that never
 * answers an abort) must not keep a port and a GPU lease forever.
 */
export function watchShutdown(name: string, graceMs = 60_000): ShutdownWatch {
  let first: NodeJS.Signals | null = null;
  let grace: NodeJS.Timeout | undefined;
  let resolveSignalled: (s: NodeJS.Signals) => void = () => {};
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    resolveSignalled = resolve;
  });
  const onSignal = (sig: NodeJS.Signals) => {
    if (first !== null) {
      process.stderr.write(`${name}: ${sig} again: exiting without finishing the shutdown\n`);
      process.exit(signalExitCode(first));
    }
    first = sig;
    process.stderr.write(`${name}: ${sig}: shutting down — aborting in-flight requests, saving state…\n`);
    grace = setTimeout(() => {
      process.stderr.write(`${name}: shutdown did not finish within ${graceMs / 1000} s: exiting\n`);
      process.exit(signalExitCode(sig));
    }, graceMs);
    grace.unref();
    resolveSignalled(sig);
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  return {
    signalled,
    get signal() {
      return first;
    },
    dispose() {
      clearTimeout(grace);
      for (const s of SIGNALS) process.off(s, onSignal);
    },
  };
}
