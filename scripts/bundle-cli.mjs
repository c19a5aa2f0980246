/**
 * The CLI as one bundle in packages/cli/dist (called by scripts/build.mjs). Node's module loader
 * — resolve, stat, read and compile per file — was the largest part of start-up with the 335
 * modules of the per-file build; the bundle holds the CLI, the core, the engine and their
 * dependencies in one CommonJS file, main.cjs, in which each module the code imports with
 * `import()` (a command, a harness, the engine, the interception server) is evaluated only when
 * first imported. main.cjs is written inside its module wrapper (a function expression, so
 * requiring it runs nothing): dist/load.cjs compiles it through V8's code cache and calls it
 * (scripts/cli-bundle-loader.cjs, bin/code-cache.cjs).
 *
 * A user's module (a taskset, a judge) that imports `envroll` or `zod` must get the bundle's
 * copies, not second ones: envroll.mjs and zod.mjs re-export them from the running bundle, and
 * the bundle tells the core how to list them (`fillSharedModules`, run when a user module is first
 * imported, as resolving them costs every start-up a little) before the CLI starts (user-module.ts
 * maps the imports). CommonJS has no import.meta: `import.meta.url` is the bundle's file URL and
 * `import.meta.resolve` resolves from dist/ through the loader and returns a promise (so the
 * sources await every call, which under tsx returns the string itself), and the core and the CLI find
 * their data and templates from their package folders (package-root.ts, init.ts). tsx stays
 * outside (it registers loader hooks by its own file URLs; it is loaded for TypeScript tasksets).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
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
  const main = `import { fillSharedModules } from ${JSON.stringify(join(core, "shared-modules.ts"))};
import { runCli } from ${JSON.stringify(join(cli, "program.ts"))};
fillSharedModules(async (map) => {
  const cliRoot = new URL(".", await import.meta.resolve("@envroll/cli/package.json"));
  for (const [name, file] of Object.entries(${JSON.stringify(SHARED)}))
    map.set(await import.meta.resolve(name), new URL("dist/" + file, cliRoot).href);
});
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
 * `import()` the bundle keeps (of tsx, or a computed specifier: a user's module) becomes
 * `__envrollImport()`, the loader's own `import()`: code run from a vm.Script may not import()
 * without an experimental flag. Literal imports of bundled modules stay (esbuild turns them into
 * lazy initializers), and so do those of Node's built-ins, which esbuild turns into require()
 * (an import() would start Node's ES-module loader for a module CommonJS can load). The build
 * fails if the bundle still calls import() itself.
 */
const KEPT_IMPORT = /(?<![.\w$]|typeof\s+)import\((?!\s*["'`](?:node:|(?!tsx)))/g;
/**
 * Built-in modules a dependency requires when it loads but uses only on a path envroll never or
 * rarely takes: each becomes an object whose members require the module on first use.
 * commander requires node:child_process (and so node:dgram and node:net's handle passing) for
 * executable subcommands, which envroll has none of: ~7 ms of every CLI start. The build fails
 * when a pattern no longer matches (a new version must be looked at, not silently kept eager).
 */
const LAZY_BUILTINS = [
  {
    file: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/,
    eager: "const childProcess = require('node:child_process');",
    lazy: "const childProcess = { get spawn() { return require('node:child_process').spawn; } };",
  },
];

/**
 * main.cjs is minified, local and module-level names included: shorter source, smaller code
 * cache and heap (callgrind, instructions to an eval's first /generate: see the commit that
 * made it so). A class's `name` then becomes its minified binding's, so envroll's own sources
 * whose classes are named by it (errors: `this.name = new.target.name`, the type name that
 * traces, retry policies and reports match on) keep their names: those files go through
 * esbuild with keepNames first (one `__name` call per class, at load). The build fails when
 * another of envroll's sources reads a class's name.
 */
const NAMED_CLASSES = /[\\/]packages[\\/]core[\\/]src[\\/](?:errors|transport[\\/]errors)\.ts$/;
const READS_CLASS_NAME = /\b(?:new\.target|constructor)\.name\b/;
const OWN_SOURCE = /[\\/]packages[\\/][\w-]+[\\/]src[\\/]/;

const rewrites = {
  name: "envroll-rewrites",
  setup(build) {
    build.onLoad({ filter: /\.(m?[jt]s|cjs)$/ }, (args) => {
      let text = readFileSync(args.path, "utf8");
      let changed = false;
      if (OWN_SOURCE.test(args.path) && READS_CLASS_NAME.test(text) && !NAMED_CLASSES.test(args.path))
        throw new Error(
          `${args.path} reads a class's name, which main.cjs minifies: add it to NAMED_CLASSES (bundle-cli.mjs)`,
        );
      if (KEPT_IMPORT.test(text)) {
        KEPT_IMPORT.lastIndex = 0;
        text = text.replace(KEPT_IMPORT, "__envrollImport(");
        changed = true;
      }
      for (const l of LAZY_BUILTINS) {
        if (!l.file.test(args.path)) continue;
        if (!text.includes(l.eager))
          throw new Error(`${args.path}: no \`${l.eager}\` to make lazy (bundle-cli.mjs)`);
        text = text.replace(l.eager, l.lazy);
        changed = true;
      }
      if (NAMED_CLASSES.test(args.path)) {
        const { code } = esbuild.transformSync(text, {
          loader: "ts",
          format: "esm",
          target: "node20",
          keepNames: true,
        });
        return { contents: code, loader: "js" };
      }
      if (!changed) return undefined;
      return { contents: text, loader: extname(args.path).slice(1).replace(/^[mc]/, "") };
    });
  },
};

/**
 * Packages an eval of a built-in environment never loads, each in a file of its own next to
 * main.cjs, required when first used: main.cjs is read, its code cache deserialized and its top
 * level run (a closure per module wrapper) at every start, so each kilobyte in it costs every
 * command. `specifier`: the bare import the sources use, resolved from packages/core (the chunk
 * is built from it, and main.cjs requires `./<file>` in its place). Only packages that share no
 * module instances with the rest of the CLI belong here (a chunk bundles its own copies of its
 * dependencies); the MCP and ACP SDKs import zod, whose instances must be the CLI's, so they stay.
 */
export const CHUNKS = [
  // The generic (chat-template) renderer; models with a native renderer never load it.
  { specifier: "@huggingface/jinja", file: "jinja.cjs" },
  // `envroll export --format parquet` only.
  { specifier: "hyparquet-writer", file: "parquet-writer.cjs" },
];

/**
 * zod's error-message locales: zod itself loads only `en` (by its own path); the others are
 * reached only through `z.locales` (a taskset may set `z.config(z.locales.fr())`). The locale
 * index becomes a CommonJS module of getters that require the locales chunk on first access, so
 * `z.locales` keeps every name while main.cjs holds none of their ~300 KB. The build fails when
 * the index no longer has the form read here.
 */
const ZOD_LOCALES = {
  file: "zod-locales.cjs",
  index: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/,
};
const LAZY = "envroll-lazy";

function zodLocaleNames(indexPath) {
  const text = readFileSync(indexPath, "utf8");
  const names = [...text.matchAll(/^export \{ default as (\w+) \} from "\.\/[\w-]+\.js";$/gm)].map(
    (m) => m[1],
  );
  const lines = text.split("\n").filter((l) => l.trim()).length;
  if (names.length === 0 || names.length !== lines)
    throw new Error(
      `${indexPath}: not the list of \`export { default as xx } from "./xx.js"\` bundle-cli.mjs reads`,
    );
  return names;
}

/**
 * A CommonJS module standing for a chunk in main.cjs: one getter per export, the first of which
 * requires the chunk. The modules that import a chunk's package (the generic renderer's, which
 * the renderer index imports) are evaluated on every eval; with getters the chunk loads only
 * when one of its exports is first used.
 */
const lazyModule = (file, names) => `const names = ${JSON.stringify(names)};
let chunk;
for (const name of names)
  Object.defineProperty(exports, name, { enumerable: true, get: () => (chunk ??= require("./${file}"))[name] });
`;

/** `exportsOf`: chunk file → its export names (see buildChunks). */
const chunked = (exportsOf) => ({
  name: "envroll-chunks",
  setup(build) {
    const bySpecifier = new Map(CHUNKS.map((c) => [c.specifier, c.file]));
    build.onResolve({ filter: /^[@\w]/ }, (args) => {
      const file = bySpecifier.get(args.path);
      return file ? { path: file, namespace: LAZY } : undefined;
    });
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      const path = join(args.resolveDir, args.path);
      return ZOD_LOCALES.index.test(path) ? { path: ZOD_LOCALES.file, namespace: LAZY } : undefined;
    });
    build.onResolve({ filter: /^\.\/[\w-]+\.cjs$/, namespace: LAZY }, (args) => ({
      path: args.path,
      external: true,
    }));
    build.onLoad({ filter: /.*/, namespace: LAZY }, (args) => ({
      contents: lazyModule(args.path, exportsOf.get(args.path)),
      loader: "js",
    }));
  },
});

/**
 * Builds each chunk as a CommonJS bundle of its package (see CHUNKS, ZOD_LOCALES) and returns
 * each one's export names, read by requiring it (the packages chunked have no side effects).
 * The zod locales' names are checked against zod's own index.
 */
async function buildChunks(root, out) {
  const core = createRequire(join(root, "packages/core/package.json"));
  const localeIndex = core.resolve("zod/v4/locales/index.js");
  const entries = [
    ...CHUNKS.map((c) => ({ entry: c.specifier, file: c.file })),
    { entry: localeIndex, file: ZOD_LOCALES.file },
  ];
  await Promise.all(
    entries.map(({ entry, file }) =>
      esbuild.build({
        stdin: {
          contents: `module.exports = require(${JSON.stringify(entry)});\n`,
          resolveDir: join(root, "packages/core"),
          loader: "js",
        },
        outfile: join(out, file),
        bundle: true,
        platform: "node",
        target: "node20",
        format: "cjs",
        charset: "ascii",
        minifyWhitespace: true,
        minifySyntax: true,
        legalComments: "eof",
        logLevel: "warning",
      }),
    ),
  );
  const load = createRequire(join(out, "main.cjs"));
  const exportsOf = new Map(entries.map(({ file }) => [file, Object.keys(load(`./${file}`))]));
  const locales = zodLocaleNames(localeIndex).sort();
  if ([...exportsOf.get(ZOD_LOCALES.file)].sort().join() !== locales.join())
    throw new Error(`${ZOD_LOCALES.file} exports ${exportsOf.get(ZOD_LOCALES.file)}, zod's index ${locales}`);
  return exportsOf;
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

const common = (root, exportsOf) => ({
  bundle: true,
  platform: "node",
  target: "node20",
  // The packages' own entries resolve to src/ (as they do when the CLI runs from source).
  conditions: ["envroll-source"],
  external: ["tsx", "tsx/*", "esbuild"],
  charset: "ascii",
  tsconfig: join(root, "tsconfig.json"),
  logLevel: "warning",
  plugins: [virtual(root), chunked(exportsOf), rewrites],
});

/** An ES module re-exporting `name` from the running bundle (export names read from an ESM build). */
async function shim(root, name, exportsOf) {
  const r = await esbuild.build({
    ...common(root, exportsOf),
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

const RESOLVER = `// The CLI bundle's import.meta.resolve (scripts/bundle-cli.mjs): resolves from dist/, as the bundle would.
export const resolve = (specifier) => import.meta.resolve(specifier);
`;

/** How main.cjs starts: CommonJS's module wrapper (what Node's own require puts around a module). */
export const WRAPPER = "(function (exports, require, module, __filename, __dirname) {";

/**
 * esbuild wraps each lazily evaluated module as `__esm({"<path>"() {…}})` (`__commonJS` for a
 * CommonJS one) unless it minifies identifiers: an object literal whose one key is the module's
 * path, so each of the ~730 literals had a shape of its own, built at the top level as a new
 * transition from the plain object's map (~18 M instructions of the top level's ~41 M,
 * callgrind). Minified, a wrapper takes the module's function itself. The build fails if a
 * path-keyed wrapper is back.
 */
function checkWrappers(text) {
  const keyed = /\(\{"[^"]*\.(?:[cm]?[jt]sx?|json)"\(/.exec(text);
  if (keyed)
    throw new Error(
      `main.cjs: a module wrapper keyed by its path (\`${text.slice(keyed.index - 20, keyed.index + 60)}\`)`,
    );
}

/** `ENVROLL_BUNDLE_META=<file>` writes esbuild's metafile there (what the bundle holds). */
export async function bundleCli(root, pkgDir) {
  const out = join(pkgDir, "dist");
  const exportsOf = await buildChunks(root, out);
  const result = await esbuild.build({
    ...common(root, exportsOf),
    entryPoints: { main: `${VIRTUAL}:main` },
    outdir: out,
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    // import() of a built-in becomes require() (KEPT_IMPORT).
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__envrollModuleUrl", "import.meta.resolve": "__envrollResolve" },
    // The file is the module wrapper itself, a function expression that dist/load.cjs compiles
    // as it is: adding the wrapper at run time made a second 2.5 MB string when V8 flattened the
    // concatenation (~600 fresh pages, ~5% of an eval's page faults before its first rollout).
    banner: {
      js: `${WRAPPER}const __envrollModuleUrl = require("node:url").pathToFileURL(__filename).href;\nconst __envrollResolve = globalThis[Symbol.for(${JSON.stringify(RESOLVE_KEY)})] ?? ((s) => { throw new Error("the CLI bundle resolved " + s + " without its loader (dist/load.cjs)"); });\nconst __envrollImport = globalThis[Symbol.for(${JSON.stringify(IMPORT_KEY)})] ?? ((s) => import(s));`,
    },
    footer: { js: "\n})" },
    minifyWhitespace: true,
    minifySyntax: true,
    // Local and module-level names too (see NAMED_CLASSES): main.cjs 2.07 -> 1.47 MB, so fewer
    // pages for the read and the source string, a smaller code cache and heap. A stack trace
    // from the bundle names minified functions; ENVROLL_FROM_SOURCE=1 runs the sources.
    minifyIdentifiers: true,
    // Licence comments go to main.cjs.LEGAL.txt (one of them is not ASCII; see below).
    legalComments: "external",
    metafile: Boolean(process.env.ENVROLL_BUNDLE_META),
    sourcemap: process.env.ENVROLL_BUNDLE_META ? "external" : false,
  });
  if (result.metafile) writeFileSync(process.env.ENVROLL_BUNDLE_META, JSON.stringify(result.metafile));
  const bundle = readFileSync(join(out, "main.cjs"), "utf8");
  checkWrappers(bundle);
  // ASCII, so the loader reads it as Latin-1 (a copy, not a UTF-8 decode into a two-byte string
  // of twice the size). esbuild escapes non-ASCII in strings and templates but not in regex
  // literals or tagged templates' raw text; those must be written with escapes (or built from
  // strings) in the source.
  const wide = /[^\x00-\x7f]/.exec(bundle);
  if (wide)
    throw new Error(
      `main.cjs has a non-ASCII character in \`${bundle.slice(Math.max(0, wide.index - 60), wide.index + 20)}\`: write it as an escape in its source`,
    );
  const stray = [...bundle.matchAll(/(?<![.\w$])import\(/g)].length;
  // One is the banner's fallback (the bundle required without its loader may import()).
  if (stray !== 1) throw new Error(`main.cjs calls import() ${stray - 1} time(s) outside __envrollImport`);
  for (const name of Object.keys(SHARED))
    writeFileSync(join(out, SHARED[name]), await shim(root, name, exportsOf));
  copyFileSync(join(root, "scripts", "cli-bundle-loader.cjs"), join(out, "load.cjs"));
  // How the bundle resolves as an ES module would (the loader imports it on first use).
  writeFileSync(join(out, "resolve.mjs"), RESOLVER);
}
