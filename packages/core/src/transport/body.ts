/**
 * The `/generate` request body. A prompt extended turn by turn (a TokenSequence) keeps the JSON
 * bytes of its ids cached on the storage it shares with earlier turns, so only the ids new this
 * turn are formatted and the history is copied once into the body bytes — no JSON.stringify of
 * the history, no string flattening or UTF-8 encoding of it; a first turn's ids are formatted
 * straight into the body. Other bodies are JSON text.
 */
import { TokenSequence } from "../token-sequence.ts";

const HEAD = Buffer.from('{"input_ids":[');

export function generatePayload(body: Record<string, unknown>): string | Buffer {
  const ids = body.input_ids;
  if (!(ids instanceof TokenSequence)) return JSON.stringify(body);
  const { input_ids: _ids, ...rest } = body;
  const others = JSON.stringify(rest);
  // `input_ids` first, as JSON.stringify(body) orders it.
  const tail = others === "{}" ? "]}" : `],${others.slice(1)}`;
  // One buffer of the exact size, each part written into it once.
  const out = Buffer.allocUnsafe(HEAD.length + ids.jsonIdsLength() + Buffer.byteLength(tail));
  out.set(HEAD, 0);
  const at = ids.writeJsonIds(out, HEAD.length);
  out.write(tail, at);
  return out;
}
