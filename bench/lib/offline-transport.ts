/**
 * The real SglangTransport minus the network, for benchmarks of the client-side cost of a turn:
 * `generate` builds the request exactly as the transport does (`buildRequest`, then the JSON
 * body text `generatePayload` produces, which is what goes on the wire) and answers with a
 * canned SGLang `/generate` reply, parsed by the transport's own reply parser. Only the HTTP
 * exchange and the engine are left out.
 */
import { generatePayload } from "../../packages/core/src/transport/body.ts";
import { parseGenerateBody } from "../../packages/core/src/transport/response.ts";
import { SglangTransport } from "../../packages/core/src/transport/sglang-transport.ts";
import type { GenerateRequest, GenerateResult } from "../../packages/core/src/transport/types.ts";

export class OfflineTransport extends SglangTransport {
  /** The reply body text of the next call, as the engine would send it. */
  nextReply = "";
  /** Request body bytes built so far. */
  bodyBytes = 0;

  constructor() {
    // Never contacted: `generate` below sends nothing.
    super({ baseUrl: "http://127.0.0.1:9", contextLength: 1 << 20 });
  }

  override async generate(req: GenerateRequest): Promise<GenerateResult> {
    const built = this.buildRequest(req, req.turn ?? 0);
    // What the HTTP client writes: the bytes (a string body is sized and encoded first).
    const payload = generatePayload(built.body);
    this.bodyBytes += typeof payload === "string" ? Buffer.byteLength(payload, "utf8") : payload.length;
    const parsed = parseGenerateBody(JSON.parse(this.nextReply), built.rid);
    return {
      ...parsed,
      clientLatency: 0,
      attempts: 1,
      maxNewTokens: built.maxNewTokens,
      cappedBy: built.cappedBy,
    };
  }
}

/** An SGLang `/generate` reply that sampled `ids` and stopped on the last one. */
export function sglangReply(ids: readonly number[], promptTokens: number): string {
  return JSON.stringify({
    text: "",
    meta_info: {
      id: "bench",
      prompt_tokens: promptTokens,
      completion_tokens: ids.length,
      cached_tokens: 0,
      finish_reason: { type: "stop", matched: ids.at(-1) ?? null },
      output_token_logprobs: ids.map((id) => [-0.5, id, null]),
      e2e_latency: 0,
    },
  });
}
