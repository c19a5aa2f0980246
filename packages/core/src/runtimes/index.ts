/**
 * The runtime registry: `harness.runtime = { type = "…" }` names a factory here. Built-ins are
 * imported lazily so that a run which never uses the sandbox never loads it. Other modules add
 * types with `registerRuntime` (e.g. a docker or remote runtime). Whether a config names a
 * known, loadable type is the validator's to report (loaders/checks.ts); here an unknown type is
 * only "not found".
 */
import type { Runtime, RuntimeSpec } from "./runtime.ts";

export interface RuntimeContext {
  /** Host environment variables the harness config forwards by name. */
  forwardEnv?: readonly string[];
  /**
   * Host files the rollout's programs are started from (absolute paths): a runtime that hides
   * the host's filesystem shows these read-only at the same path.
   */
  readOnlyPaths?: readonly string[];
}

export type RuntimeFactory = (spec: RuntimeSpec, ctx: RuntimeContext) => Runtime;

/** Validates a runtime table's own keys (so config errors name them before anything runs). */
export interface RuntimeSchema {
  safeParse(v: unknown): { success: true } | { success: false; error: { issues: any[] } };
}

export interface RuntimeEntry {
  factory: RuntimeFactory;
  schema: RuntimeSchema | null;
}

const entries = new Map<string, RuntimeEntry>();

/**
 * Lazy built-ins. The sandbox module is written separately; it exports `createSandboxRuntime(spec,
 * ctx)` (or a `SandboxRuntime` class taking the same) and may export `SandboxSpecSchema`.
 */
const builtins: Record<string, () => Promise<RuntimeEntry>> = {
  subprocess: async () => ({
    factory: (await import("./subprocess.ts")).createSubprocessRuntime,
    schema: null,
  }),
  sandbox: async () => {
    const mod = (await import("./sandbox.ts")) as Record<string, any>;
    const schema = (mod["SandboxSpecSchema"] as RuntimeSchema | undefined) ?? null;
    if (typeof mod["createSandboxRuntime"] === "function")
      return { factory: mod["createSandboxRuntime"], schema };
    if (typeof mod["SandboxRuntime"] === "function")
      return {
        factory: (spec: RuntimeSpec, ctx: RuntimeContext) => new mod["SandboxRuntime"](spec, ctx),
        schema,
      };
    throw new Error("src/runtimes/sandbox.ts exports neither createSandboxRuntime nor SandboxRuntime");
  },
};

export function registerRuntime(
  type: string,
  factory: RuntimeFactory,
  schema: RuntimeSchema | null = null,
): void {
  entries.set(type, { factory, schema });
}

export function runtimeTypes(): string[] {
  return [...new Set([...entries.keys(), ...Object.keys(builtins)])].sort();
}

/** The registered or built-in type (loading its module now); null for an unknown type. */
export async function findRuntime(type: string): Promise<RuntimeEntry | null> {
  let e = entries.get(type);
  if (e) return e;
  const load = Object.hasOwn(builtins, type) ? builtins[type] : undefined; // not Object.prototype members
  if (!load) return null;
  e = await load();
  entries.set(type, e);
  return e;
}

/** Resolves a runtime type to its factory once (loading the module if needed). */
export async function runtimeFactory(type: string): Promise<RuntimeFactory> {
  const e = await findRuntime(type);
  if (!e) throw new Error(`unknown runtime "${type}" (known: ${runtimeTypes().join(", ")})`);
  return e.factory;
}

export async function createRuntime(spec: RuntimeSpec, ctx: RuntimeContext = {}): Promise<Runtime> {
  return (await runtimeFactory(spec.type))(spec, ctx);
}

export type { ProgramResult, RunOptions, Runtime, RuntimeSpec } from "./runtime.ts";
