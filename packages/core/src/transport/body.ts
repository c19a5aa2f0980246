/**
 * The `/generate` request body. A prompt extended turn by turn (a TokenSequence) keeps the JSON
 * bytes of its ids cached on the storage it shares with earlier turns, so only the ids new this
 * turn are formatted and the history is copied once into the body bytes — no JSON.stringify of
 * the history, no string flattening or UTF-8 encoding of it. Other bodies are JSON text.
 */
import { TokenSequence } from "../token-sequence.ts";

const HEAD = Buffer.from('{"input_ids":[');

export function generatePayload(body: Record<string, unknown>): string | Buffer {
  const ids = body.input_ids;
  if (!(ids instanceof TokenSequence)) return JSON.stringify(body);
  const { input_ids: _ids, ...rest } = body;
  const others = JSON.stringify(rest);
  // `input_ids` first, as JSON.stringify(body) orders it.
  const tail = Buffer.from(others === "{}" ? "]}" : `],${others.slice(1)}`);
  return Buffer.concat([HEAD, ids.jsonIdBytes(), tail]);
}
