/**
 * An error that already knows its HTTP status. Each server shapes the body itself (SGLang's,
 * OpenAI's, Anthropic's or the service's own), so the error carries only the status, the
 * message and a machine-readable `code` a shaper can switch on.
 */
export type HttpErrorCode = "body_too_large" | "invalid_json" | "not_an_object" | "no_route" | "bad_method";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { code?: HttpErrorCode | string; cause?: unknown; allowed?: string[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "HttpError";
  }

  get code(): string | undefined {
    return this.options.code;
  }
}
