/**
 * The loader's disk cache of transformed TypeScript (scripts/ts-loader/hooks.mjs reads and fills
 * it; scripts/test.mjs fills it ahead of the suite, see warm()): under
 * node_modules/.cache/envroll-ts/, one file per (options, path, source), written to a temporary
 * name and renamed, so processes that write the same entry at once never read a half-written one.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "envroll-ts");

export const OPTIONS = {
  loader: "ts",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  // As tsconfig.json: ES2022 class fields, imports kept exactly as written.
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
};

let optionsKey;

/** The cache file of `path` with content `source`. */
export function cacheFile(path, source) {
  // The esbuild version is part of the key; read from its package.json without loading esbuild.
  optionsKey ??= `${JSON.stringify(OPTIONS)} ${JSON.parse(readFileSync(join(ROOT, "node_modules/esbuild/package.json"), "utf8")).version}`;
  const key = createHash("sha256")
    .update(optionsKey)
    .update("\0")
    .update(path)
    .update("\0")
    .update(source)
    .digest("hex");
  return join(CACHE, `${key}.js`);
}

export function writeEntry(file, code) {
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, code);
  renameSync(tmp, file);
}

/**
 * Transforms every file of `paths` that has no cache entry yet, in this one process. On a fresh
 * clone the cache is empty, and the suite's first test processes all start at once: each
 * started its own esbuild service and transformed the same few hundred sources (14 esbuild
 * processes, ~8 s of CPU, in one fresh-clone `npm test`). Returns how many it transformed.
 */
export async function warm(paths) {
  const missing = [];
  for (const path of paths) {
    const source = readFileSync(path, "utf8");
    const file = cacheFile(path, source);
    if (!existsSync(file)) missing.push({ path, source, file });
  }
  if (missing.length === 0) return 0;
  const esbuild = await import("esbuild");
  await Promise.all(
    missing.map(async ({ path, source, file }) => {
      const { code } = await esbuild.transform(source, { ...OPTIONS, sourcefile: path });
      writeEntry(file, code);
    }),
  );
  await esbuild.stop?.();
  return missing.length;
}
