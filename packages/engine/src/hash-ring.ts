/**
 * Consistent-hash ring of worker indices, as the gateway's `consistent_hashing` policy does with
 * `X-SMG-Routing-Key`: a key always lands on the same worker, and removing a worker moves only
 * the keys that were on it. (The gateway hashes with blake3; any well-mixed hash gives the same
 * properties, which is what tests rely on.)
 */
import { hashString } from "envroll/internal/random.ts";

const VNODES = 160;

export class HashRing {
  private readonly points: Uint32Array;
  private readonly owners: Uint16Array;

  constructor(workerKeys: readonly string[]) {
    const entries: [number, number][] = [];
    workerKeys.forEach((key, w) => {
      for (let v = 0; v < VNODES; v++) entries.push([mix(hashString(`${key}#${v}`)), w]);
    });
    entries.sort((a, b) => a[0] - b[0]);
    this.points = Uint32Array.from(entries, (e) => e[0]);
    this.owners = Uint16Array.from(entries, (e) => e[1]);
  }

  /** The worker for `key`: first ring point clockwise from the key's hash. */
  lookup(key: string): number {
    const h = mix(hashString(key));
    let lo = 0;
    let hi = this.points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.points[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === this.points.length ? 0 : lo]!;
  }
}

/** murmur3 finalizer: spreads FNV's weak low bits over the ring. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
