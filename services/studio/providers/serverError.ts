/** The error a model server put in its answer, whatever its shape: message, type, code and the request field named. */
export type ServerError = { message?: string; type?: string; code?: string; param?: string };

/** Longest server message the studio repeats. */
export const SERVER_MESSAGE_LIMIT = 400;

const text = (value: unknown) =>
  typeof value === "string" && value.trim() !== "" ? value : typeof value === "number" ? String(value) : undefined;

/**
 * The error in a model server's answer: OpenAI, Ollama, llama.cpp and recent vLLM (`{ error: { message, type,
 * code, param } }`), Anthropic (`{ type: "error", error: { type, message } }`), older vLLM (`{ object: "error",
 * message, type, code }`), `{ error: "Unauthorized" }`, FastAPI's `{ detail }`, or the body as text.
 * @example readServerError(undefined, "404 page not found") // { message: "404 page not found" }
 */
export function readServerError(json: unknown, body: string): ServerError {
  const root = (json ?? {}) as Record<string, unknown>;
  const nested = typeof root.error === "object" && root.error !== null ? (root.error as Record<string, unknown>) : root;
  const found = {
    message:
      text(nested.message) ?? text(root.error) ?? text(root.detail) ?? (json === undefined ? text(body) : undefined),
    type: text(nested.type),
    code: text(nested.code),
    param: text(nested.param),
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v !== undefined)) as ServerError;
}

/**
 * A server error as one bounded line for a user to read, with every secret replaced by `***`.
 * @example describeServerError({ type: "invalid_request_error", message: "Incorrect API key provided: sk-1" }, ["sk-1"])
 */
export function describeServerError(error: ServerError, secrets: readonly (string | undefined)[] = []): string {
  const label = [error.type, error.code].filter((v) => v && !/^\d+$/.test(v)).join("/");
  let line = `${label ? `${label}: ` : ""}${error.message ?? "(no message)"}`.replace(/\s+/g, " ").trim();
  for (const secret of secrets) if (secret && secret.length >= 4) line = line.split(secret).join("***");
  return line.length > SERVER_MESSAGE_LIMIT ? `${line.slice(0, SERVER_MESSAGE_LIMIT)}…` : line;
}
