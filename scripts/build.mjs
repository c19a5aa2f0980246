#!/usr/bin/env node
/**
 * `npm run build` (and `npm ci`, as `prepare`): the JavaScript that `envroll` and library users
 * run, in packages/{core,engine,cli}/dist.
 *
 * The libraries (core, engine): each src/**\/*.ts becomes one dist/**\/*.js (esbuild: types
 * stripped, nothing bundled) and every other src file is copied. Import specifiers are rewritten
 * to what exists in dist/: `./x.ts` → `./x.js`, and the sibling packages'
 * `envroll/internal/<p>.ts` (which resolve to src/ for development) → `envroll/dist/<p>.js`.
 *
 * The CLI: one bundle (scripts/bundle-cli.mjs): dist/main.cjs, run by dist/load.cjs, plus chunks
 * of packages an eval never loads, with the core, the engine and their dependencies inside,
 * because Node's module loader spends more on 335 separate files than on the code in them.
 *
 * Each package's dist/ refuses to run when its sources changed since the build (see
 * packages/core/build-stamp.mjs); the stamp is written last, from the sources as they were
 * before the build read them.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { STAMP_FILE, sourceStamp } from "../packages/core/build-stamp.mjs";
import { bundleCli } from "./bundle-cli.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** name → folder; the dist/index.js of those with `guard` checks its stamp when imported. */
const PACKAGES = [
  { name: "envroll", dir: "packages/core", guard: true },
  { name: "@envroll/engine", dir: "packages/engine", guard: true },
  { name: "@envroll/cli", dir: "packages/cli", guard: false, bundle: true },
];
const SIBLINGS = PACKAGES.map((p) => p.name).sort((a, b) => b.length - a.length);

function rewrite(path) {
  if (path.startsWith(".")) return path.replace(/\.ts$/, ".js");
  for (const name of SIBLINGS) {
    if (path === name) return `${name}/dist/index.js`;
    if (path.startsWith(`${name}/internal/`))
      return `${name}/dist/${path.slice(name.length + "/internal/".length).replace(/\.ts$/, ".js")}`;
  }
  return path;
}

/** Every import stays an import (no bundling); only its specifier changes. */
const externalImports = {
  name: "envroll-specifiers",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.kind === "entry-point" ? undefined : { path: rewrite(args.path), external: true },
    );
  },
};

const GUARD = `import { assertBuiltIsCurrent } from "envroll/build-stamp.mjs";\nassertBuiltIsCurrent(import.meta.url);\n`;

async function buildPackage({ dir, guard, bundle }) {
  const pkgDir = join(ROOT, dir);
  const src = join(pkgDir, "src");
  const out = join(pkgDir, "dist");
  const stamp = sourceStamp(pkgDir);
  rmSync(out, { recursive: true, force: true });
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
  if (bundle) {
    await bundleCli(ROOT, pkgDir);
    writeFileSync(join(pkgDir, STAMP_FILE), stamp);
    return files.length;
  }
  for (const file of files.filter((f) => !f.endsWith(".ts"))) {
    const target = join(out, relative(src, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  await esbuild.build({
    entryPoints: files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
    outdir: out,
    outbase: src,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    charset: "utf8",
    sourcemap: "linked",
    sourcesContent: false,
    tsconfig: join(ROOT, "tsconfig.json"),
    logLevel: "warning",
    plugins: [externalImports],
  });
  if (guard) {
    const entry = join(out, "index.js");
    writeFileSync(entry, GUARD + readFileSync(entry, "utf8"));
  }
  writeFileSync(join(pkgDir, STAMP_FILE), stamp);
  return files.length;
}

const t0 = performance.now();
let count = 0;
for (const pkg of PACKAGES) count += await buildPackage(pkg);
process.stderr.write(
  `built ${PACKAGES.map((p) => `${p.dir}/dist`).join(", ")} (${count} files, ${Math.round(performance.now() - t0)} ms)\n`,
);
