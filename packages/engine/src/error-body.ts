/** The engine's error bodies, in the shapes SGLang's HTTP server answers with. */

/** SGLang's ValueError shape. */
export function errorBody(message: string): { error: { message: string } } {
  return { error: { message } };
}

/** FastAPI/pydantic validation shape (body not parseable as the request model). */
export function validationBody(message: string): Record<string, unknown> {
  return { object: "error", message, type: "Bad Request", param: null, code: 400 };
}
