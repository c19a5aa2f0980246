/**
 * The TypeScript loader the test suite runs under (`node --import ./scripts/ts-loader/register.mjs
 * --test …`, see scripts/test.mjs): the same esbuild type stripping as tsx, at a third of tsx's
 * start-up cost per process. The suite starts ~150 test processes, each importing a few hundred
 * .ts modules; under tsx each paid ~1 s of CPU in loader work (measured: importing core's index
 * 1.55 s CPU under tsx, 0.8 s here, 0.5 s for the built dist/). The saving comes from doing less
 * per module: no tsconfig-paths or extension probing on the happy path, a content-hash cache
 * read instead of tsx's, nothing for CommonJS.
 *
 * It handles what this repository writes: ESM .ts/.mts with explicit extensions (tsc's NodeNext
 * rules enforce them in packages/, test/, bench/ and e2e/). For the few TypeScript-style
 * specifiers a user module might use (`./x.js` naming x.ts, extensionless, a folder's index.ts)
 * resolution falls back to them only after Node's own resolution failed. Single files can still
 * run under tsx (`node --import tsx --test file`); both strip types with esbuild.
 */
import { register } from "node:module";

// Stack traces name the .ts line (the transform carries an inline source map), as under tsx.
process.setSourceMapsEnabled(true);
register("./hooks.mjs", import.meta.url);
