/**
 * Python answers as envroll errors: a V1 error type name becomes the class of the same name
 * (TaskError, UserError, ToolsetError…), its stack the Python traceback, so the trace records
 * where in the environment's code the failure happened. A taskset config is refused before
 * this (the config validator asks the host's `check_config`), so a refusal here is no config
 * error but the boundary's failure, its message naming the key.
 */
import {
  HarnessError,
  InterceptionError,
  ProviderError,
  type RolloutError,
  SandboxError,
  TaskError,
  ToolsetError,
  UserError,
} from "../errors.ts";
import { PythonError } from "./host.ts";

const CLASSES: Record<string, new (message: string, options?: { cause?: unknown }) => RolloutError> = {
  TaskError,
  UserError,
  ToolsetError,
  SandboxError,
  HarnessError,
  InterceptionError,
};

/** The typed error for a failure crossing a Python hook (`fallback` names the boundary). */
export function fromPython(e: unknown, fallback: keyof typeof CLASSES): Error {
  if (!(e instanceof PythonError)) return e instanceof Error ? e : new TaskError(String(e));
  const r = e.record;
  if (r.type === "ProviderError" || r.type === "OverlongPromptError")
    return withTraceback(new ProviderError(r.message), r.traceback);
  const cls = CLASSES[r.type] ?? CLASSES[fallback]!;
  const err = new cls(CLASSES[r.type] ? r.message : `${r.type}: ${r.message}`, { cause: e });
  return withTraceback(err, r.traceback);
}

function withTraceback<E extends Error>(err: E, traceback: string | undefined): E {
  // captureError stores `stack` as the trace's traceback: the Python one is the useful one.
  if (traceback) err.stack = `${err.name}: ${err.message}\n${traceback}`;
  return err;
}
