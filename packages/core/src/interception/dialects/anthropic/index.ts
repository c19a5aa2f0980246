/**
 * The Anthropic Messages dialect (`POST /v1/messages`, and `POST /v1/messages/count_tokens`,
 * which is never recorded on the trace). The secret is `x-api-key`, or the bearer token
 * (`ANTHROPIC_AUTH_TOKEN`); errors use Anthropic's `{type: "error", error: {type, message}}`.
 */

import type { IncomingMessage } from "node:http";
import { errorMessage } from "../../../errors.ts";
import { bearerToken, HttpError, headerValue, sendJson } from "../../../http/index.ts";
import type { InterceptionRoute } from "../../route.ts";
import type { Dialect } from "../dialect.ts";
import { AnthropicLive, anthropicAnswer, echoedArguments } from "./answer.ts";
import { parseAnthropicConversation, parseAnthropicRequest } from "./parse.ts";

function secret(req: IncomingMessage): string | null {
  return headerValue(req, "x-api-key") ?? bearerToken(req);
}

/** Anthropic's error types for the generic ones the server uses. */
function errorType(type: string): string {
  return type === "provider_error" ? "api_error" : type;
}

export function anthropicErrorBody(message: string, type: string): unknown {
  return { type: "error", error: { type: errorType(type), message } };
}

export const anthropicDialect: Dialect = {
  name: "anthropic",
  historyKey: "messages",
  path: "/v1/messages",
  secret,
  errorBody: anthropicErrorBody,
  parse: parseAnthropicRequest,
  respond: (response, _request, model) => anthropicAnswer(response, model),
  live: (_request, model) => new AnthropicLive(model),
  errorEvent: (message, type) => [
    { event: "error", data: JSON.stringify(anthropicErrorBody(message, type)) },
  ],
  echoArguments: echoedArguments,
};

/** `count_tokens`: the prompt the model would see, counted by the client (never a turn). */
export const countTokensRoute: InterceptionRoute = {
  method: "POST",
  path: "/v1/messages/count_tokens",
  secret,
  errorBody: anthropicErrorBody,
  async handle({ session, json, res }) {
    let parsed: ReturnType<typeof parseAnthropicConversation>;
    try {
      parsed = parseAnthropicConversation(await json());
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, errorMessage(e));
    }
    sendJson(res, 200, { input_tokens: await session.countTokens(parsed.messages, parsed.tools) });
  },
};
