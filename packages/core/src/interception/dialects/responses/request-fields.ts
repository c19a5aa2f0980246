/**
 * Every top-level Responses field, and what envroll does with it. A field not listed is a 400
 * naming it: a silent drop could change what the model saw without anyone knowing.
 *
 * Used: model, input, instructions, tools, tool_choice (see ../tool-choice.ts), stream, store (false is the only behaviour: nothing
 * is kept), previous_response_id / conversation / background (refused: nothing is stored).
 * Ignored on purpose, because the environment's config owns sampling and the trace owns
 * bookkeeping: temperature, top_p, max_output_tokens (config sampling decides),
 * parallel_tool_calls (the model decides, as the chat template lets it), reasoning and include
 * (reasoning is what the model samples; encrypted reasoning is always sent back), text
 * (formats are not enforced on sampling), prompt_cache_key, client_metadata, metadata, user,
 * safety_identifier, service_tier, truncation, top_logprobs, stream_options, max_tool_calls,
 * prompt (a stored prompt template is refused if set).
 */
import { checkFields, type FieldPolicy } from "../fields.ts";

export const RESPONSES_FIELDS: Record<string, FieldPolicy> = {
  model: "used",
  input: "used",
  instructions: "used",
  tools: "used",
  stream: "used",
  store: "used",
  previous_response_id: "used",
  conversation: "used",
  background: "used",
  temperature: "ignored",
  top_p: "ignored",
  max_output_tokens: "ignored",
  tool_choice: "used",
  parallel_tool_calls: "ignored",
  reasoning: "ignored",
  include: "ignored",
  text: "ignored",
  prompt_cache_key: "ignored",
  prompt_cache_retention: "ignored",
  client_metadata: "ignored",
  metadata: "ignored",
  user: "ignored",
  safety_identifier: "ignored",
  service_tier: "ignored",
  truncation: "ignored",
  top_logprobs: "ignored",
  stream_options: "ignored",
  max_tool_calls: "ignored",
  prompt: "refused",
};

export function checkResponsesFields(body: Record<string, unknown>): void {
  checkFields(body, RESPONSES_FIELDS, "a stored prompt template cannot be expanded here");
}
