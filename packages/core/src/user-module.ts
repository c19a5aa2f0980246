/**
 * Imports a user's module (taskset, judge). Tasksets are usually TypeScript: under tsx
 * (development, tests) they load as they are; when envroll itself runs as built JavaScript,
 * tsx is registered the first time a TypeScript module is imported, and only then, so a
 * built-in taskset never pays for it. Running from a bundle, a resolve hook first maps the
 * user module's imports of the bundled packages to the bundle's own copies (shared-modules.ts).
 */
import { register } from "node:module";
import { isAbsolute } from "node:path";
import { sharedModuleMap } from "./shared-modules.ts";

const BUILT = /\.[cm]?js$/.test(new URL(import.meta.url).pathname);
const TYPESCRIPT = /\.[cm]?tsx?$/;

/** Resolves as Node would, then swaps a URL listed in `data` for the module it maps to. */
const SHARE_HOOK = `let urls = {};
export function initialize(data) { urls = data; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const url = Object.hasOwn(urls, r.url) ? urls[r.url] : undefined;
  return url === undefined ? r : { ...r, url, shortCircuit: true };
}
`;

/** A module path (relative, absolute, or a .ts/.js file name) rather than a registered id. */
export const looksLikePath = (id: string) => id.startsWith(".") || isAbsolute(id) || /\.(m?[jt]s)$/.test(id);

/** A plugin a module exports (a taskset, a judge): an object with a string `id` and the method `method`. */
export function isPlugin<T>(v: unknown, method: string): v is T {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { id?: unknown }).id === "string" &&
    typeof (v as Record<string, unknown>)[method] === "function"
  );
}

let tsx: Promise<void> | undefined;
let shared = false;

// import.meta.resolve is awaited: in the CLI's bundle (CommonJS) it resolves through the
// loader's import() and returns a promise (scripts/bundle-cli.mjs).
async function resolvesToTypeScript(specifier: string): Promise<boolean> {
  try {
    return TYPESCRIPT.test(new URL(await import.meta.resolve(specifier)).pathname);
  } catch {
    // Not resolvable from here: the import below reports it.
    return false;
  }
}

async function shareModules(): Promise<void> {
  const sharedModules = await sharedModuleMap();
  if (shared || sharedModules.size === 0) return;
  shared = true;
  register(`data:text/javascript,${encodeURIComponent(SHARE_HOOK)}`, {
    data: Object.fromEntries(sharedModules),
  });
}

export async function importUserModule(specifier: string): Promise<Record<string, unknown>> {
  await shareModules();
  if (BUILT && (await resolvesToTypeScript(specifier))) {
    tsx ??= import("tsx/esm/api").then((m) => {
      m.register();
    });
    await tsx;
  }
  return (await import(specifier)) as Record<string, unknown>;
}
