/**
 * Module resolve hook for running envroll from source: adds the `envroll-source` export
 * condition, under which the packages' entries (`envroll`, `@envroll/engine`) are their
 * src/index.ts instead of the built dist/index.js.
 */
export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, "envroll-source"] });
}
