/**
 * Imports run down the layers of packages/core/src. The order is the `layers` block of
 * ARCHITECTURE.md (read from there, so the document and the check cannot drift): a module of one
 * layer may import its own layer and the layers below it, never one above. A unit is a top-level
 * folder or file of src/; every unit must be placed, so a new folder gets a deliberate place.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = join(ROOT, "packages/core/src");

/** Units by layer, lowest first, from the fenced `layers` block (written highest first). */
export function documentedLayers(): string[][] {
  const doc = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const block = /```layers\n([\s\S]*?)```/.exec(doc);
  assert.ok(block, "ARCHITECTURE.md has no ```layers block");
  return block[1]!
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => line !== "")
    .map((line) => line.split(/\s+/))
    .reverse();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "templates" ? [] : sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

const unitOf = (file: string) => relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");

// Static imports and re-exports, type-only ones included: a type import still couples two layers.
const IMPORT_RE = /^\s*(?:import|export)\s(?:[^;]*?from\s*)?["'](\.[^"']+)["']/gms;

/** Every import from one unit into another, as [from file, to file]. */
function crossImports(): [string, string][] {
  const out: [string, string][] = [];
  for (const file of sourceFiles(SRC))
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT_RE)) {
      const target = resolve(dirname(file), m[1]!);
      if (target.startsWith(`${SRC}/`) && unitOf(target) !== unitOf(file)) out.push([file, target]);
    }
  return out;
}

test("every unit of packages/core/src has a layer in ARCHITECTURE.md", () => {
  const placed = documentedLayers().flat();
  const dupes = placed.filter((u, i) => placed.indexOf(u) !== i);
  assert.deepEqual(dupes, [], "a unit is placed twice");
  const units = [...new Set(sourceFiles(SRC).map(unitOf))].sort();
  assert.deepEqual(
    units.filter((u) => !placed.includes(u)),
    [],
    "units missing from the layers block",
  );
  assert.deepEqual(
    placed.filter((u) => !units.includes(u)),
    [],
    "the layers block names units that do not exist",
  );
});

test("no import runs up the documented layers", () => {
  const layer = new Map<string, number>();
  documentedLayers().forEach((units, i) => {
    for (const u of units) layer.set(u, i);
  });
  const up = crossImports()
    .filter(([from, to]) => (layer.get(unitOf(to)) ?? -1) > (layer.get(unitOf(from)) ?? -1))
    .map(([from, to]) => `${relative(SRC, from)} → ${relative(SRC, to)}`);
  assert.deepEqual(up, [], `${up.length} imports run up the layers`);
});
