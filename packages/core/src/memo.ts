/**
 * Get-or-compute over a Map or WeakMap: the one spelling of "look it up, else compute it once
 * and keep it" that the tokenizer's class tables, the message hash and the template analyses use.
 */

/** What `getOrCompute` needs of its cache: Map and WeakMap both fit. */
export interface MemoCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/**
 * The value cached for `key`, computed and stored on the first ask. `undefined` means "absent",
 * so `compute` must not return it (null is a value like any other). Pass a function that exists
 * already (not a fresh closure) on hot paths: a hit then allocates nothing.
 */
export function getOrCompute<K, V>(cache: MemoCache<K, V>, key: K, compute: (key: K) => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute(key);
    cache.set(key, value);
  }
  return value;
}
