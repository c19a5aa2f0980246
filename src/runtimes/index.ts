/**
 * The runtime registry: `harness.runtime = { type = "…" }` names a factory here. Built-ins are
 * imported lazily so that a run which never uses the sandbox never loads it. Other modules add
 * types with `registerRuntime` (e.g. a docker or remote runtime).
 */
import { ConfigError } from "../errors.ts";
import type { Runtime, RuntimeSpec } from "./runtime.ts";

export interface RuntimeContext {
  /** Host environment variables the harness config forwards by name. */
  forwardEnv?: readonly string[];
}

export type RuntimeFactory = (spec: RuntimeSpec, ctx: RuntimeContext) => Runtime;

const factories = new Map<string, RuntimeFactory>();

/**
 * Lazy built-ins. The sandbox module is written separately and may export either
 * `createSandboxRuntime(spec, ctx)` or a `SandboxRuntime` class taking `(spec, ctx)`.
 */
const builtins: Record<string, () => Promise<RuntimeFactory>> = {
  subprocess: async () => (await import("./subprocess.ts")).createSubprocessRuntime,
  sandbox: async () => {
    // A non-literal specifier keeps the type checker from requiring the module to exist yet.
    const path = "./sandbox.ts";
    const mod = (await import(path)) as Record<string, any>;
    if (typeof mod["createSandboxRuntime"] === "function") return mod["createSandboxRuntime"];
    if (typeof mod["SandboxRuntime"] === "function")
      return (spec: RuntimeSpec, ctx: RuntimeContext) => new mod["SandboxRuntime"](spec, ctx);
    throw new Error("src/runtimes/sandbox.ts exports neither createSandboxRuntime nor SandboxRuntime");
  },
};

export function registerRuntime(type: string, factory: RuntimeFactory): void {
  factories.set(type, factory);
}

export function runtimeTypes(): string[] {
  return [...new Set([...factories.keys(), ...Object.keys(builtins)])].sort();
}

/** Resolves a runtime type to its factory once (loading the module if needed). */
export async function runtimeFactory(type: string): Promise<RuntimeFactory> {
  let f = factories.get(type);
  if (f) return f;
  const load = builtins[type];
  if (!load)
    throw new ConfigError(
      `harness.runtime.type: unknown runtime "${type}" (known: ${runtimeTypes().join(", ")})`,
      { path: "harness.runtime.type" },
    );
  try {
    f = await load();
  } catch (e) {
    throw new ConfigError(
      `harness.runtime.type: runtime "${type}" is not available: ${e instanceof Error ? e.message : String(e)}`,
      {
        path: "harness.runtime.type",
      },
    );
  }
  factories.set(type, f);
  return f;
}

export async function createRuntime(spec: RuntimeSpec, ctx: RuntimeContext = {}): Promise<Runtime> {
  return (await runtimeFactory(spec.type))(spec, ctx);
}

export type { ProgramResult, RunOptions, Runtime, RuntimeSpec } from "./runtime.ts";
