/**
 * GPT-2 style byte-level alphabet: every byte maps to one printable code point so BPE vocabularies
 * can be stored as strings. Printable Latin-1 bytes map to themselves; the rest are shifted above
 * U+0100 in byte order (the mapping HF `ByteLevel` uses).
 */

function buildByteToChar(): string[] {
  const keep: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const table: string[] = new Array(256);
  const kept = new Set(keep);
  for (const b of keep) table[b] = String.fromCharCode(b);
  let shift = 0;
  for (let b = 0; b < 256; b++) {
    if (!kept.has(b)) table[b] = String.fromCharCode(256 + shift++);
  }
  return table;
}

/** byte (0..255) → its alphabet character. */
export const BYTE_TO_CHAR: readonly string[] = buildByteToChar();

/** alphabet character code → byte; -1 for characters outside the alphabet. */
export const CHAR_TO_BYTE: Int16Array = (() => {
  const table = new Int16Array(512).fill(-1);
  BYTE_TO_CHAR.forEach((ch, b) => {
    table[ch.charCodeAt(0)] = b;
  });
  return table;
})();

/** Bytes of a vocabulary token string (alphabet characters); unknown characters are skipped. */
export function tokenStringToBytes(token: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    const b = code < 512 ? CHAR_TO_BYTE[code] : -1;
    if (b! >= 0) out.push(b!);
  }
  return out;
}
