/**
 * The `/generate` request body as JSON text. A prompt extended turn by turn (a TokenSequence)
 * keeps the JSON text of its ids cached on the storage it shares with earlier turns, so only
 * the ids new this turn are formatted; the rest of the body is small and serialised as usual.
 */
import { TokenSequence } from "../token-sequence.ts";

export function generatePayload(body: Record<string, unknown>): string {
  const ids = body.input_ids;
  if (!(ids instanceof TokenSequence)) return JSON.stringify(body);
  const { input_ids: _ids, ...rest } = body;
  const others = JSON.stringify(rest);
  // `input_ids` first, as JSON.stringify(body) orders it.
  return others === "{}"
    ? `{"input_ids":${ids.jsonText()}}`
    : `{"input_ids":${ids.jsonText()},${others.slice(1)}`;
}
