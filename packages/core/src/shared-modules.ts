/**
 * Modules a user's module (taskset, judge) must share with the running envroll rather than load
 * copies of its own: the URL its import resolves to → the URL of the module in use. Empty
 * unless envroll runs from a bundle (the CLI's, scripts/bundle-cli.mjs), whose `envroll` and
 * `zod` are not the files a taskset's `import "envroll"` resolves to. Without the mapping a
 * taskset would get a second envroll: its TaskError would not be this envroll's TaskError, and
 * its registerRuntime would fill a registry nothing reads.
 */
const sharedModules = new Map<string, string>();
let fill: ((map: Map<string, string>) => Promise<void>) | null = null;
let filled: Promise<void> | undefined;

/**
 * How the bundle fills the map, run when it is first read: resolving the names costs each
 * start-up ~2% (the ESM resolver's package lookups), and most runs import no user module.
 * Asynchronous: the bundle resolves as an ES module would only through its loader's import().
 */
export function fillSharedModules(f: (map: Map<string, string>) => Promise<void>): void {
  fill = f;
}

export async function sharedModuleMap(): Promise<ReadonlyMap<string, string>> {
  if (fill !== null) {
    const f = fill;
    fill = null;
    filled = f(sharedModules);
  }
  await filled;
  return sharedModules;
}
