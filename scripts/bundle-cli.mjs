/**
 * The CLI as one bundle in packages/cli/dist (called by scripts/build.mjs). Node's module loader
 * — resolve, stat, read and compile per file — was the largest part of start-up with the 335
 * modules of the per-file build; the bundle holds the CLI, the core, the engine and their
 * dependencies in one CommonJS file, main.cjs, in which each module the code imports with
 * `import()` (a command, a harness, the engine, the interception server) is evaluated only when
 * first imported. dist/main.js runs it through V8's code cache (scripts/cli-bundle-loader.mjs).
 *
 * A user's module (a taskset, a judge) that imports `envroll` or `zod` must get the bundle's
 * copies, not second ones: envroll.mjs and zod.mjs re-export them from the running bundle, and
 * the bundle records them in the core's `sharedModules` before the CLI starts (user-module.ts
 * maps the imports). CommonJS has no import.meta: `import.meta.url` is the bundle's file URL and
 * `import.meta.resolve` resolves from dist/ (through the loader), and the core and the CLI find
 * their data and templates from their package folders (package-root.ts, init.ts). tsx stays
 * outside (it registers loader hooks by its own file URLs; it is loaded for TypeScript tasksets).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import * as esbuild from "esbuild";

/** Packages the bundle shares with user modules: name → re-exporting module in dist/. */
export const SHARED = { envroll: "envroll.mjs", zod: "zod.mjs" };

const VIRTUAL = "envroll-bundle";
/** Where the bundle leaves the loaders of the shared packages for envroll.mjs and zod.mjs. */
const LIBRARY_KEY = "envroll.cli.shared";
const RESOLVE_KEY = "envroll.cli.resolve";
const IMPORT_KEY = "envroll.cli.import";

function virtualModules(root) {
  const core = join(root, "packages/core/src");
  const cli = join(root, "packages/cli/src");
  const main = `import { sharedModules } from ${JSON.stringify(join(core, "shared-modules.ts"))};
import { runCli } from ${JSON.stringify(join(cli, "program.ts"))};
const cliRoot = new URL(".", import.meta.resolve("@envroll/cli/package.json"));
for (const [name, file] of Object.entries(${JSON.stringify(SHARED)}))
  sharedModules.set(import.meta.resolve(name), new URL("dist/" + file, cliRoot).href);
globalThis[Symbol.for(${JSON.stringify(LIBRARY_KEY)})] = {
  envroll: () => import(${JSON.stringify(join(core, "index.ts"))}),
  zod: () => import("zod"),
};
runCli(process.argv);
`;
  return {
    main: { contents: main, dir: cli },
    // The shared packages as ES modules, only to learn their export names (see shim()).
    envroll: { contents: `export * from ${JSON.stringify(join(core, "index.ts"))};\n`, dir: core },
    // Resolved from the core's folder, so "zod" is the copy the core imports.
    zod: { contents: `export * from "zod";\nexport { default } from "zod";\n`, dir: core },
  };
}

/**
 * `import()` the bundle keeps (of Node built-ins, tsx, or a computed specifier: a user's module)
 * becomes `__envrollImport()`, the loader's own `import()`: code run from a vm.Script may not
 * import() without an experimental flag. Literal imports of bundled modules stay (esbuild turns
 * them into lazy initializers). The build fails if the bundle still calls import() itself.
 */
const KEPT_IMPORT = /(?<![.\w$]|typeof\s+)import\((?!\s*["'`](?!node:|tsx))/g;
const routeImports = {
  name: "envroll-route-imports",
  setup(build) {
    build.onLoad({ filter: /\.(m?[jt]s|cjs)$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!KEPT_IMPORT.test(text)) return undefined;
      KEPT_IMPORT.lastIndex = 0;
      const loader = extname(args.path).slice(1).replace(/^[mc]/, "");
      return { contents: text.replace(KEPT_IMPORT, "__envrollImport("), loader };
    });
  },
};

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

const common = (root) => ({
  bundle: true,
  platform: "node",
  target: "node20",
  // The packages' own entries resolve to src/ (as they do when the CLI runs from source).
  conditions: ["envroll-source"],
  external: ["tsx", "tsx/*", "esbuild"],
  charset: "utf8",
  tsconfig: join(root, "tsconfig.json"),
  logLevel: "warning",
  plugins: [virtual(root), routeImports],
});

/** An ES module re-exporting `name` from the running bundle (export names read from an ESM build). */
async function shim(root, name) {
  const r = await esbuild.build({
    ...common(root),
    entryPoints: [`${VIRTUAL}:${name}`],
    format: "esm",
    write: false,
    outdir: "out",
    metafile: true,
  });
  const exports = Object.values(r.metafile.outputs).find((o) => o.entryPoint)?.exports ?? [];
  // Bound to numbered locals: zod exports names such as `catch` that cannot be variables.
  const named = exports.filter((e) => e !== "default");
  return `// The running CLI bundle's ${name} (scripts/bundle-cli.mjs): what a taskset's import "${name}" gets.
const __shared = globalThis[Symbol.for(${JSON.stringify(LIBRARY_KEY)})];
if (!__shared) throw new Error("${SHARED[name]} is the envroll CLI bundle's copy of ${name}; import ${name} itself");
const __m = await __shared[${JSON.stringify(name)}]();
const { ${named.map((e, i) => `${JSON.stringify(e)}: __${i}`).join(", ")} } = __m;
export { ${named.map((e, i) => `__${i} as ${e}`).join(", ")} };
${exports.includes("default") ? "export default __m.default;\n" : ""}`;
}

/** `ENVROLL_BUNDLE_META=<file>` writes esbuild's metafile there (what the bundle holds). */
export async function bundleCli(root, pkgDir) {
  const out = join(pkgDir, "dist");
  const result = await esbuild.build({
    ...common(root),
    entryPoints: { main: `${VIRTUAL}:main` },
    outdir: out,
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    define: { "import.meta.url": "__envrollModuleUrl", "import.meta.resolve": "__envrollResolve" },
    banner: {
      js: `const __envrollModuleUrl = require("node:url").pathToFileURL(__filename).href;\nconst __envrollResolve = globalThis[Symbol.for(${JSON.stringify(RESOLVE_KEY)})] ?? ((s) => { throw new Error("the CLI bundle resolved " + s + " without its loader (dist/main.js)"); });\nconst __envrollImport = globalThis[Symbol.for(${JSON.stringify(IMPORT_KEY)})] ?? ((s) => import(s));`,
    },
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: Boolean(process.env.ENVROLL_BUNDLE_META),
    sourcemap: process.env.ENVROLL_BUNDLE_META ? "external" : false,
  });
  if (result.metafile) writeFileSync(process.env.ENVROLL_BUNDLE_META, JSON.stringify(result.metafile));
  const bundle = readFileSync(join(out, "main.cjs"), "utf8");
  const stray = [...bundle.matchAll(/(?<![.\w$])import\(/g)].length;
  // One is the banner's fallback (the bundle required without its loader may import()).
  if (stray !== 1) throw new Error(`main.cjs calls import() ${stray - 1} time(s) outside __envrollImport`);
  for (const name of Object.keys(SHARED)) writeFileSync(join(out, SHARED[name]), await shim(root, name));
  copyFileSync(join(root, "scripts", "cli-bundle-loader.mjs"), join(out, "main.js"));
}
