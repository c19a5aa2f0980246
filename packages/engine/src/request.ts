/**
 * Parsing a /generate body (`GenerateReqInput`) into one job per prompt.
 *
 * Single vs batch is decided by the shape of the input, as SGLang does: `input_ids: number[]`
 * or `text: string` is one prompt, `number[][]` / `string[]` is a batch answered with an array.
 */
import { randomUUID } from "node:crypto";
import { BadRequest, type EngineSampling, parseSampling } from "./sampling.ts";
import type { EngineTokenizer } from "./types.ts";

export interface GenerateJob {
  rid: string;
  promptIds: number[];
  sampling: EngineSampling;
  returnLogprob: boolean;
  /** -1 = output tokens only; k ≥ 0 = prompt logprobs from position k too. */
  logprobStartLen: number;
  topLogprobsNum: number;
  returnTextInLogprobs: boolean;
  loraPath: string | null;
}

export interface ParsedGenerate {
  batch: boolean;
  stream: boolean;
  jobs: GenerateJob[];
}

export function parseGenerate(body: unknown, tokenizer: EngineTokenizer): ParsedGenerate {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new BadRequest("request body must be a JSON object");
  const b = body as Record<string, unknown>;
  if (b.session_id != null && b.session_params != null) {
    throw new BadRequest("session_id and session_params are mutually exclusive.");
  }
  if (b.input_embeds != null) throw new BadRequest("input_embeds is not supported by the envroll engine.");

  if (b.input_ids != null && b.text != null)
    throw new BadRequest("Either text or input_ids should be provided, not both.");
  let prompts: number[][];
  let batch: boolean;
  if (b.input_ids != null) {
    const ids = b.input_ids;
    if (!Array.isArray(ids)) throw new BadRequest("input_ids must be a list of integers or a list of lists.");
    if (ids.length === 0) throw new BadRequest("input_ids cannot be empty.");
    batch = Array.isArray(ids[0]);
    prompts = batch ? (ids as unknown[][]).map(checkIds) : [checkIds(ids)];
  } else if (b.text != null) {
    const text = b.text;
    batch = Array.isArray(text);
    const texts = batch ? (text as unknown[]) : [text];
    if (batch && texts.length === 0) throw new BadRequest("text cannot be an empty list.");
    prompts = texts.map((t) => {
      if (typeof t !== "string") throw new BadRequest("text must be a string or a list of strings.");
      return tokenizer.encode(t);
    });
  } else {
    throw new BadRequest("Either text, input_ids or input_embeds should be provided.");
  }

  const size = prompts.length;
  const sampling = perItem(b.sampling_params, size, "sampling_params", batch).map(parseSampling);
  const nValues = new Set(sampling.map((s) => s.n));
  if (nValues.size > 1)
    throw new BadRequest("The n parameter should be the same for all samples in a batch.");
  if (sampling[0]!.n > 1)
    throw new BadRequest(
      "n > 1 is not supported by the envroll engine; send n requests with their own rids.",
    );
  const rids = resolveRids(b.rid, size, batch);
  const returnLogprob = perItem(b.return_logprob, size, "return_logprob", batch);
  const startLen = perItem(b.logprob_start_len, size, "logprob_start_len", batch);
  const topNum = perItem(b.top_logprobs_num, size, "top_logprobs_num", batch);
  const lora = perItem(b.lora_path, size, "lora_path", batch);

  const jobs = prompts.map(
    (promptIds, i): GenerateJob => ({
      rid: rids[i]!,
      promptIds,
      sampling: sampling[i]!,
      returnLogprob: returnLogprob[i] === true,
      logprobStartLen: typeof startLen[i] === "number" ? (startLen[i] as number) : -1,
      topLogprobsNum: typeof topNum[i] === "number" ? (topNum[i] as number) : 0,
      returnTextInLogprobs: b.return_text_in_logprobs === true,
      loraPath: typeof lora[i] === "string" ? (lora[i] as string) : null,
    }),
  );
  return { batch, stream: b.stream === true, jobs };
}

function checkIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) throw new BadRequest("input_ids must be a list of integers or a list of lists.");
  if (ids.length === 0) throw new BadRequest("input_ids cannot be empty.");
  for (const id of ids) {
    if (!Number.isInteger(id) || (id as number) < 0)
      throw new BadRequest(`input_ids must hold non-negative integers, got ${JSON.stringify(id)}.`);
  }
  return ids as number[];
}

/** A scalar applies to every item; a list must match the batch size. */
function perItem(value: unknown, size: number, name: string, batch: boolean): unknown[] {
  if (batch && Array.isArray(value)) {
    const list = value as unknown[];
    if (list.length !== size)
      throw new BadRequest(`The ${name} list has ${list.length} items but the batch has ${size}.`);
    return list;
  }
  return new Array(size).fill(value);
}

function resolveRids(rid: unknown, size: number, batch: boolean): string[] {
  if (rid == null) return Array.from({ length: size }, () => randomUUID().replaceAll("-", ""));
  if (typeof rid === "string") return batch ? Array.from({ length: size }, (_, i) => `${rid}_${i}`) : [rid];
  if (!Array.isArray(rid) || !rid.every((r) => typeof r === "string"))
    throw new BadRequest("rid must be a string or a list of strings.");
  if (!batch) throw new BadRequest("rid must be a string for a single request.");
  if (rid.length !== size)
    throw new BadRequest("The rid should be a list with the same length as the batch.");
  if (new Set(rid).size !== rid.length) throw new BadRequest("Duplicate request ids in the batch.");
  return rid as string[];
}
