export function defaultCacheDir(): string | null;
/** The bytes of `file` read by one request on libuv's threads; undefined when it cannot be read. */
export function readWhole(file: string): Promise<Buffer | undefined>;
