/**
 * Module hooks of scripts/ts-loader/register.mjs (they run on Node's loader thread).
 *
 * load: a .ts/.mts file becomes ESM JavaScript by esbuild's transform, cached on disk under
 * node_modules/.cache/envroll-ts/ by a hash of the path, the source and the transform options, so
 * each file is compiled once per clone and every later process only reads the result. Entries
 * are written to a temporary name and renamed, so processes that compile the same file at once
 * never read a half-written one.
 *
 * resolve: Node's own resolution first; only when it fails for a relative specifier does it try
 * the TypeScript spellings (`./x.js` → `./x.ts`, `./x` → `./x.ts`, `./dir` → `./dir/index.ts`).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CACHE = join(ROOT, "node_modules", ".cache", "envroll-ts");
const TS = /\.m?ts$/;

let esbuild;
let optionsKey;
const OPTIONS = {
  loader: "ts",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  // As tsconfig.json: ES2022 class fields, imports kept exactly as written.
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
};

function cacheKey(path, source) {
  // The esbuild version is part of the key; read from its package.json without loading esbuild.
  optionsKey ??= `${JSON.stringify(OPTIONS)} ${JSON.parse(readFileSync(join(ROOT, "node_modules/esbuild/package.json"), "utf8")).version}`;
  return createHash("sha256")
    .update(optionsKey)
    .update("\0")
    .update(path)
    .update("\0")
    .update(source)
    .digest("hex");
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !TS.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = readFileSync(path, "utf8");
  const file = join(CACHE, `${cacheKey(path, source)}.js`);
  let code;
  try {
    code = readFileSync(file, "utf8");
  } catch {
    esbuild ??= await import("esbuild");
    code = esbuild.transformSync(source, { ...OPTIONS, sourcefile: path }).code;
    mkdirSync(CACHE, { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return { format: "module", source: code, shortCircuit: true };
}

const NOT_FOUND = new Set(["ERR_MODULE_NOT_FOUND", "ERR_UNSUPPORTED_DIR_IMPORT"]);

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    const relative = specifier.startsWith("./") || specifier.startsWith("../");
    if (!relative || !NOT_FOUND.has(err?.code) || !context.parentURL?.startsWith("file:")) throw err;
    const parentIsTs = TS.test(new URL(context.parentURL).pathname);
    const tries = [];
    if (parentIsTs && /\.m?js$/.test(specifier)) tries.push(specifier.replace(/js$/, "ts"));
    if (!/\.[a-z]+$/i.test(specifier)) tries.push(`${specifier}.ts`, `${specifier}/index.ts`);
    for (const candidate of tries) {
      try {
        return await nextResolve(candidate, context);
      } catch {
        // the next spelling, or the original error below
      }
    }
    throw err;
  }
}
