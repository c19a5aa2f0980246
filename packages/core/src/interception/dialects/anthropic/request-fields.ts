/**
 * Every top-level Messages field, and what envroll does with it; any other is a 400 naming it.
 *
 * Used: model, messages, system, tools, tool_choice, stream, max_tokens, top_k, stop_sequences (under the
 * config's sampling, which wins). Ignored on purpose: temperature and top_p (the config owns
 * them, as in Verifiers), metadata, thinking and output_config (the model samples what its
 * template lets it; reasoning comes back as thinking blocks), context_management (its edits
 * apply to Anthropic's server-side context; the client already sends what the model should
 * see), service_tier, cache_control. tool_choice: see ../tool-choice.ts. Refused when set: container and mcp_servers
 * (server-side execution and MCP connectors need Anthropic's servers).
 */
import type { FieldPolicy } from "../fields.ts";

export const ANTHROPIC_FIELDS: Record<string, FieldPolicy> = {
  model: "used",
  messages: "used",
  system: "used",
  tools: "used",
  stream: "used",
  max_tokens: "used",
  top_k: "used",
  stop_sequences: "used",
  temperature: "ignored",
  top_p: "ignored",
  metadata: "ignored",
  thinking: "ignored",
  output_config: "ignored",
  context_management: "ignored",
  tool_choice: "used",
  service_tier: "ignored",
  cache_control: "ignored",
  inference_geo: "ignored",
  container: "refused",
  mcp_servers: "refused",
};
