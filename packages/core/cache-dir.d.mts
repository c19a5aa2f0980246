export function defaultCacheDir(): string | null;
