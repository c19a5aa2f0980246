/**
 * Module hooks of scripts/ts-loader/register.mjs (they run on Node's loader thread).
 *
 * load: a .ts/.mts file becomes ESM JavaScript by esbuild's transform, cached on disk
 * (cache.mjs) by a hash of the path, the source and the transform options, so each file is
 * compiled once per clone and every later process only reads the result.
 *
 * resolve: Node's own resolution first; only when it fails for a relative specifier does it try
 * the TypeScript spellings (`./x.js` → `./x.ts`, `./x` → `./x.ts`, `./dir` → `./dir/index.ts`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cacheFile, OPTIONS, writeEntry } from "./cache.mjs";

const TS = /\.m?ts$/;

let esbuild;

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !TS.test(new URL(url).pathname)) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const source = readFileSync(path, "utf8");
  const file = cacheFile(path, source);
  let code;
  try {
    code = readFileSync(file, "utf8");
  } catch {
    esbuild ??= await import("esbuild");
    code = esbuild.transformSync(source, { ...OPTIONS, sourcefile: path }).code;
    writeEntry(file, code);
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
