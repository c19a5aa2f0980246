/** The OpenAI Responses dialect (`POST /v1/responses`): bearer secret, OpenAI error bodies. */
import { bearerToken } from "../../../http/index.ts";
import { openAiErrorBody } from "../chat.ts";
import type { Dialect } from "../dialect.ts";
import { ResponsesLive, responsesAnswer } from "./answer.ts";
import { parseResponsesRequest } from "./parse.ts";

export const responsesDialect: Dialect = {
  name: "responses",
  historyKey: "input",
  path: "/v1/responses",
  secret: bearerToken,
  errorBody: openAiErrorBody,
  parse: parseResponsesRequest,
  respond: responsesAnswer,
  live: (request, model) => new ResponsesLive(request, model),
  // The API's `error` event; the `error` member is what the SDKs' SSE readers raise on.
  errorEvent: (message, type) => [
    {
      event: "error",
      data: JSON.stringify({
        type: "error",
        code: type,
        message,
        param: null,
        sequence_number: 0,
        error: { type, message },
      }),
    },
  ],
};
