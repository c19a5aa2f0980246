/**
 * Imports a user's module (taskset, judge). Tasksets are usually TypeScript: under tsx
 * (development, tests) they load as they are; when envroll itself runs as built JavaScript,
 * tsx is registered the first time a TypeScript module is imported, and only then, so a
 * built-in taskset never pays for it.
 */
const BUILT = new URL(import.meta.url).pathname.endsWith(".js");
const TYPESCRIPT = /\.[cm]?tsx?$/;

let tsx: Promise<void> | undefined;

function resolvesToTypeScript(specifier: string): boolean {
  try {
    return TYPESCRIPT.test(new URL(import.meta.resolve(specifier)).pathname);
  } catch {
    // Not resolvable from here: the import below reports it.
    return false;
  }
}

export async function importUserModule(specifier: string): Promise<Record<string, unknown>> {
  if (BUILT && resolvesToTypeScript(specifier)) {
    tsx ??= import("tsx/esm/api").then((m) => {
      m.register();
    });
    await tsx;
  }
  return (await import(specifier)) as Record<string, unknown>;
}
