/**
 * Trace ids: a random (version 4) UUID as 32 lowercase hex digits, the form records have always
 * carried. Written straight from a pool of random bytes — `randomUUID()` then stripping its
 * dashes built three strings per rollout.
 */
import { randomFillSync } from "node:crypto";

const IDS_PER_FILL = 256;
const pool = Buffer.allocUnsafe(16 * IDS_PER_FILL);
let next = pool.length;

export function newTraceId(): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const at = next;
  next += 16;
  // RFC 9562: version 4 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
  pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x40;
  pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80;
  return pool.toString("hex", at, at + 16);
}
