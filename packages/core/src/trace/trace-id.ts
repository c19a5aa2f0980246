/**
 * Trace ids: a random (version 4) UUID as 32 lowercase hex digits, the form records have always
 * carried. Written straight from a pool of random bytes — `randomUUID()` then stripping its
 * dashes built three strings per rollout.
 */
import { takeRandomBytes } from "../random.ts";

export function newTraceId(): string {
  const { pool, at } = takeRandomBytes(16);
  // RFC 9562: version 4 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
  pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x40;
  pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80;
  return pool.toString("hex", at, at + 16);
}
