/**
 * `["--import", TS_LOADER]` runs a TypeScript child process under the suite's own loader
 * (scripts/ts-loader, what scripts/test.mjs runs the test files under): the same esbuild type
 * stripping as tsx at about half its start-up CPU per process.
 */
export const TS_LOADER = new URL("../scripts/ts-loader/register.mjs", import.meta.url).href;
