#!/usr/bin/env node
/**
 * A TypeScript program that tests start many times, as one ESM file: prints the bundle's path.
 *
 *   node scripts/bundle-program.mjs test/service/fake-serve.ts
 *
 * The Python tests start test/service/fake-serve.ts ~65 times per `npm test`. Under the suite's
 * TypeScript loader each start spent ~0.5 s of CPU (10k page faults), most of it resolving and
 * loading its ~25 source modules through the loader thread; the bundle starts in ~0.28 s (5.6k
 * faults). The code is the same (esbuild joins the modules; packages such as zod stay imports),
 * so a program that finds files through import.meta.url must not be bundled this way.
 *
 * Written under node_modules/.cache/envroll-test-programs/ (so the bundle's package imports
 * resolve from the repository), to a temporary name and then renamed: two pytest workers that
 * bundle at once each leave a whole file. Each call bundles afresh (~0.1 s), so it is never stale.
 */
import { mkdirSync, renameSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { OPTIONS } from "./ts-loader/cache.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const [entry, ...rest] = process.argv.slice(2);
if (!entry || rest.length > 0 || !/\.m?ts$/.test(entry)) {
  console.error("usage: node scripts/bundle-program.mjs <program.ts>");
  process.exit(2);
}
const dir = join(ROOT, "node_modules", ".cache", "envroll-test-programs");
mkdirSync(dir, { recursive: true });
const out = join(dir, `${basename(entry).replace(/\.m?ts$/, "")}.mjs`);
const tmp = `${out}.${process.pid}.tmp`;
await esbuild.build({
  entryPoints: [resolve(entry)],
  outfile: tmp,
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  // The suite's loader's TypeScript settings (as tsconfig.json), so the bundle runs the same code.
  tsconfigRaw: OPTIONS.tsconfigRaw,
  logLevel: "error",
});
renameSync(tmp, out);
console.log(out);
