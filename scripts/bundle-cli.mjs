/**
 * The CLI as one ESM bundle in packages/cli/dist (called by scripts/build.mjs): `main.js`, which
 * the bin runs, and under chunks/ a chunk per command and one per set of modules that commands
 * share, so `envroll eval` reads a handful of files instead of the 335 modules of the per-file
 * build (the core, the engine, zod, undici and the rest are inside). Node's module loader —
 * resolve, stat, read and compile per file — was the largest part of start-up.
 *
 * Two more entries hold what the bundle holds, for a user's module (a taskset, a judge) to
 * import instead of loading second copies: `envroll.js` (the library) and `zod.js`. main.js
 * records them in the core's `sharedModules` before the CLI starts (see user-module.ts).
 *
 * The bundle never locates data by its own file's place: the core and the CLI find their data
 * and templates from their package folders (package-root.ts, init.ts). tsx stays outside
 * (it registers loader hooks by its own file URLs and is loaded only for TypeScript tasksets).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

/** Packages the bundle holds and shares with user modules: name → entry file in dist/. */
export const SHARED = { envroll: "envroll.js", zod: "zod.js" };

const VIRTUAL = "envroll-bundle";

/** Entries made up here rather than read from src/. */
function virtualModules(root) {
  const core = join(root, "packages/core/src");
  const cli = join(root, "packages/cli/src");
  const share = `import { sharedModules } from ${JSON.stringify(join(core, "shared-modules.ts"))};
const cliRoot = new URL(".", import.meta.resolve("@envroll/cli/package.json"));
for (const [name, file] of Object.entries(${JSON.stringify(SHARED)}))
  sharedModules.set(import.meta.resolve(name), new URL("dist/" + file, cliRoot).href);
`;
  return {
    // Module evaluation follows import order: the table is filled before the CLI runs.
    main: {
      contents: `import "${VIRTUAL}:share";\nimport ${JSON.stringify(join(cli, "main.ts"))};\n`,
      dir: cli,
    },
    share: { contents: share, dir: core },
    // Re-exported from the core's folder, so "zod" resolves to the copy the core imports.
    zod: { contents: `export * from "zod";\nexport { default } from "zod";\n`, dir: core },
  };
}

const virtual = (root) => ({
  name: VIRTUAL,
  setup(build) {
    const modules = virtualModules(root);
    build.onResolve({ filter: new RegExp(`^${VIRTUAL}:`) }, (args) => ({
      path: args.path.slice(VIRTUAL.length + 1),
      namespace: VIRTUAL,
    }));
    build.onLoad({ filter: /.*/, namespace: VIRTUAL }, (args) => ({
      contents: modules[args.path].contents,
      resolveDir: modules[args.path].dir,
      loader: "js",
    }));
  },
});

/** `ENVROLL_BUNDLE_META=<file>` writes esbuild's metafile there (what each chunk holds). */
export async function bundleCli(root, pkgDir) {
  const result = await esbuild.build({
    entryPoints: {
      main: `${VIRTUAL}:main`,
      envroll: join(root, "packages/core/src/index.ts"),
      zod: `${VIRTUAL}:zod`,
    },
    outdir: join(pkgDir, "dist"),
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The packages' own entries resolve to src/ (as they do when the CLI runs from source).
    conditions: ["envroll-source"],
    external: ["tsx", "tsx/*", "esbuild"],
    // CommonJS dependencies (undici, commander) call require() for Node's built-ins.
    banner: {
      js: `import { createRequire as __envrollCreateRequire } from "node:module";\nconst require = __envrollCreateRequire(import.meta.url);`,
    },
    minifyWhitespace: true,
    minifySyntax: true,
    charset: "utf8",
    sourcemap: "linked",
    sourcesContent: false,
    tsconfig: join(root, "tsconfig.json"),
    logLevel: "warning",
    plugins: [virtual(root)],
    metafile: Boolean(process.env.ENVROLL_BUNDLE_META),
  });
  if (result.metafile) writeFileSync(process.env.ENVROLL_BUNDLE_META, JSON.stringify(result.metafile));
}
