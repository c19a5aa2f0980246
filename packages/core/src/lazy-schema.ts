/**
 * Schemas built on first use. zod builds a whole object graph for every schema (an instance per
 * node, with its definition, checks and parse closures), so module top levels that built every
 * exported schema made each CLI start pay for all of them, though an eval uses a few (start-up
 * figure, issue #35). `lazySchema(build)` stands for the schema `build()` returns: the first
 * property read, method call, `instanceof`, `Object.keys` or `z.toJSONSchema` on it builds that
 * one schema, and every use after reaches the same instance. The name keeps its type, so
 * `z.infer<typeof X>`, `.extend`, `.shape`, `safeParse` and composition into other schemas work
 * as on the schema itself.
 *
 * Inside a schema, a part that a typical input leaves out is wrapped in `z.lazy` (see
 * config/schema.ts): composing the proxy directly (`X.optional()`) would build it with its parent.
 */

const BUILDERS = new WeakMap<object, () => object>();

export function lazySchema<T extends object>(build: () => T): T {
  let real: T | undefined;
  const get = (): T => {
    real ??= build();
    return real;
  };
  const proxy = new Proxy({} as T, {
    get: (_, key) => Reflect.get(get(), key),
    set: (_, key, value) => Reflect.set(get(), key, value),
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    // Reported configurable: a proxy may not report a non-configurable property its (empty)
    // target lacks, and zod defines `_zod` non-configurable.
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      if (d) d.configurable = true;
      return d;
    },
    defineProperty: (_, key, d) => Reflect.defineProperty(get(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
  });
  BUILDERS.set(proxy, () => real ?? proxy);
  return proxy;
}

/**
 * Whether `schema` is built: false only for a `lazySchema` nothing has used yet. For tests that
 * pin what a start-up path builds.
 */
export function isBuilt(schema: object): boolean {
  const current = BUILDERS.get(schema);
  return current === undefined || current() !== schema;
}

/** `build()`'s value, computed on the first call: schemas built together on first use. */
export function once<T>(build: () => T): () => T {
  let value: { v: T } | undefined;
  return () => {
    value ??= { v: build() };
    return value.v;
  };
}
