/**
 * The field rules the config's tables share (whole numbers, seconds, names, headers, URLs) and
 * the deferral helpers that keep a table's schema unbuilt until a config has its key (see
 * lazy-schema.ts and ARCHITECTURE.md, "Schemas are built on first use").
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

const wholeMsg = (min: number) => `expected a whole number ≥ ${min}`;
export const whole = (min: number) => z.int({ error: wholeMsg(min) }).min(min, { error: wholeMsg(min) });
export const optionalWhole = (min: number) => whole(min).nullable().default(null);
export const seconds = lazySchema(() =>
  z
    .number({ error: "expected a number of seconds > 0 or null" })
    .positive({ error: "expected a number of seconds > 0 or null" })
    .nullable()
    .default(null),
);
export const names = lazySchema(() =>
  z.array(z.string({ error: "expected a string" }), { error: "expected an array of strings" }),
);
export const headers = lazySchema(() =>
  z.record(z.string(), z.string({ error: "expected a string" }), {
    error: "expected a table of strings",
  }),
);

/**
 * A key's schema built only when a config has the key (`onUse(build).default(value)` gives the
 * default without building it): the schemas here are built on first use (lazy-schema.ts), and
 * a parent that composed a key's schema directly would build it with itself, so a config's
 * validation would build every table and rule it leaves out. The wrapper adds nothing to
 * validation: same output, issues and paths.
 */
export const onUse = <T extends z.ZodType>(build: () => T) => z.lazy(build);
/**
 * `onUse(build).optional()`. zod's optional asks its inner type whether it is "defaulted", which
 * would resolve the deferral when the parent object sorts its keys; every use here wraps a
 * schema with no default (a table, a refusal), so the answer is known without building it.
 */
export const optionalOnUse = <T extends z.ZodType>(build: () => T) => {
  const deferred = onUse(build);
  Object.defineProperty(deferred._zod, "optin", { value: undefined, configurable: true, writable: true });
  return deferred.optional();
};

/**
 * A Verifiers key envroll does not implement: accepted by name so the error says so, rather
 * than being a misspelling or, worse, silently ignored.
 */
export const refused = (why: string) =>
  optionalOnUse(() => z.never({ error: `not supported by envroll: ${why}` }));
/** A Verifiers switch envroll cannot turn on: false (its default) is fine, true is refused. */
export const refusedSwitch = (why: string) =>
  onUse(() => z.boolean().refine((on) => !on, { error: `not supported by envroll: ${why}` })).default(false);

/**
 * One option of a union keyed by `type`, built when a table picks it. The union finds options by
 * the values of their `type` (zod's `propValues`), which it would build every option to read;
 * the value is given here, the same constant the option's `z.literal` takes.
 */
export const optionOnUse = <T extends z.ZodType>(type: string, build: () => T) => {
  const deferred = onUse(build);
  const propValues = { type: new Set([type]) };
  Object.defineProperty(deferred._zod, "propValues", {
    value: propValues,
    configurable: true,
    writable: true,
  });
  return deferred;
};

/** An http(s) URL, checked at load so a typo names `client.base_url` instead of failing later as "Invalid URL". */
export const httpUrl = lazySchema(() => z.url({ protocol: /^https?$/ }));
