/**
 * Decoders from tokenizer.json: token strings back to text, as HF does it. Added tokens go
 * through the decoder too (HF passes every id's token string to it).
 * - `ByteLevel`: each token's characters are bytes of the GPT-2 alphabet (a token with a
 *   character outside it is its own UTF-8), and the byte stream is decoded lossily — invalid
 *   sequences become U+FFFD exactly as Rust's `from_utf8_lossy` does, and a leading U+FEFF is
 *   kept (`TextDecoder` would drop it as a byte-order mark).
 * - `Sequence` of `Replace` (literal), `ByteFallback` (runs of `<0xNN>` tokens become their
 *   bytes; a run that is not valid UTF-8 becomes one U+FFFD per byte token), `Fuse` and `Strip`.
 */
import { CHAR_TO_BYTE } from "./byte-level.ts";

const lossy = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export type Decoder = (tokens: readonly string[]) => string;

/** Bytes a token stands for under the byte-level alphabet (its own UTF-8 when it is not alphabet text). */
export function byteLevelBytes(token: string): Uint8Array {
  const out = new Uint8Array(token.length);
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    const b = code < 512 ? CHAR_TO_BYTE[code] : -1;
    if (b! < 0) return Buffer.from(token, "utf8");
    out[i] = b!;
  }
  return out;
}

export function decodeUtf8Lossy(bytes: Uint8Array): string {
  return lossy.decode(bytes);
}

type Step = (tokens: string[]) => string[];

const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;

function byteFallback(tokens: string[]): string[] {
  const out: string[] = [];
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length === 0) return;
    try {
      out.push(strict.decode(Uint8Array.from(bytes)));
    } catch {
      for (let i = 0; i < bytes.length; i++) out.push("\uFFFD");
    }
    bytes = [];
  };
  for (const t of tokens) {
    const m = t.length === 6 ? BYTE_TOKEN.exec(t) : null;
    if (m) bytes.push(Number.parseInt(m[1]!, 16));
    else {
      flush();
      out.push(t);
    }
  }
  flush();
  return out;
}

function step(node: Record<string, unknown>): Step {
  switch (node.type) {
    case "Replace": {
      const pattern = (node.pattern as { String?: string })?.String;
      if (typeof pattern !== "string")
        throw new Error("decoder Replace: only literal String patterns are supported");
      const content = String(node.content ?? "");
      return (ts) => ts.map((t) => t.replaceAll(pattern, content));
    }
    case "ByteFallback":
      return byteFallback;
    case "Fuse":
      return (ts) => [ts.join("")];
    case "Strip": {
      const content = String(node.content ?? " ");
      const start = Number(node.start ?? 0);
      const stop = Number(node.stop ?? 0);
      return (ts) =>
        ts.map((t) => {
          let s = t;
          for (let i = 0; i < start && s.startsWith(content); i++) s = s.slice(content.length);
          for (let i = 0; i < stop && s.endsWith(content); i++) s = s.slice(0, s.length - content.length);
          return s;
        });
    }
    default:
      throw new Error(`unsupported decoder ${String(node.type)}`);
  }
}

/** The decoder tokenizer.json describes (null → the byte-level one when the model is byte-level). */
export function buildDecoder(json: unknown, byteLevel: boolean): Decoder {
  const node = json as Record<string, unknown> | null;
  if (node === null || node === undefined || node.type === "ByteLevel") {
    if (!byteLevel && node) throw new Error("ByteLevel decoder on a character-level model");
    return (tokens) => {
      const parts = tokens.map(byteLevelBytes);
      const total = parts.reduce((n, p) => n + p.length, 0);
      const all = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return decodeUtf8Lossy(all);
    };
  }
  const steps: Step[] =
    node.type === "Sequence" ? (node.decoders as Record<string, unknown>[]).map(step) : [step(node)];
  return (tokens) => {
    let ts = tokens.slice();
    for (const s of steps) ts = s(ts);
    return ts.join("");
  };
}
