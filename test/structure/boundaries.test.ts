/**
 * The shape ARCHITECTURE.md promises, checked on every run: no import cycles, the package
 * boundaries (the core imports neither the engine nor the CLI; the engine never imports the CLI),
 * the core's public API does not leak the engine, and no source file over the size limit.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const PACKAGES: Record<string, string> = {
  envroll: join(ROOT, "packages/core/src"),
  "@envroll/engine": join(ROOT, "packages/engine/src"),
  "@envroll/cli": join(ROOT, "packages/cli/src"),
  "@envroll/agents": join(ROOT, "packages/agents/src"),
};
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "templates" ? [] : sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Resolves an import specifier to a source file of ours, or null for node: and third-party ones. */
function resolveImport(from: string, spec: string): string | null {
  if (spec.startsWith(".")) return resolve(dirname(from), spec);
  for (const [name, src] of Object.entries(PACKAGES)) {
    if (spec === name) return join(src, "index.ts");
    if (spec.startsWith(`${name}/internal/`)) return join(src, spec.slice(name.length + "/internal/".length));
  }
  if (spec === "@envroll/cli") return join(PACKAGES["@envroll/cli"]!, "main.ts");
  return null;
}

// Static imports and re-exports only: `import type` is erased, but a type-only cycle still
// couples two modules, so it counts too. Dynamic `import()` is a deliberate late binding.
const IMPORT_RE = /^\s*(?:import|export)\s(?:[^;]*?from\s*)?["']([^"']+)["']/gms;

function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const src of Object.values(PACKAGES)) {
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, "utf8");
      const deps: string[] = [];
      for (const m of text.matchAll(IMPORT_RE)) {
        const target = resolveImport(file, m[1]!);
        if (target) deps.push(target);
      }
      edges.set(file, deps);
    }
  }
  return edges;
}

const packageOf = (file: string) =>
  Object.entries(PACKAGES).find(([, src]) => file.startsWith(`${src}/`))?.[0] ?? "?";

test("no import cycles across the packages", () => {
  const edges = graph();
  const state = new Map<string, "open" | "done">();
  const cycles: string[] = [];
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of edges.get(file) ?? []) {
      const s = state.get(dep);
      if (s === "open") {
        const loop = stack.slice(stack.indexOf(dep)).concat(dep);
        cycles.push(loop.map((f) => relative(ROOT, f)).join(" → "));
      } else if (s === undefined && edges.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, [], `import cycles:\n${cycles.join("\n")}`);
});

test("package boundaries: core ↛ engine, cli; engine ↛ cli; agents ↛ any", () => {
  const allowed: Record<string, string[]> = {
    envroll: ["envroll"],
    "@envroll/engine": ["@envroll/engine", "envroll"],
    "@envroll/cli": ["@envroll/cli", "@envroll/engine", "envroll"],
    // Agent programs run as separate processes and speak only HTTP/MCP to envroll.
    "@envroll/agents": ["@envroll/agents"],
  };
  const bad: string[] = [];
  for (const [file, deps] of graph()) {
    const from = packageOf(file);
    for (const dep of deps) {
      const to = packageOf(dep);
      if (!allowed[from]?.includes(to)) bad.push(`${relative(ROOT, file)} imports ${relative(ROOT, dep)}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("every imported source file exists (the resolver above sees the real graph)", () => {
  const missing: string[] = [];
  for (const [file, deps] of graph())
    for (const dep of deps) {
      try {
        statSync(dep);
      } catch {
        missing.push(`${relative(ROOT, file)} → ${relative(ROOT, dep)}`);
      }
    }
  assert.deepEqual(missing, []);
});

test(`no source file over ${MAX_LINES} lines`, () => {
  const long = Object.values(PACKAGES)
    .flatMap(sourceFiles)
    .map((f) => [relative(ROOT, f), readFileSync(f, "utf8").split("\n").length] as const)
    .filter(([, n]) => n > MAX_LINES + 1)
    .map(([f, n]) => `${f} (${n} lines)`);
  assert.deepEqual(long, []);
});
