import { InvalidBase64Error, InvalidJsonError } from "./errors.ts";

const canonicalBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Serialises a value as UTF-8 JSON in standard padded base64, the form of every payment header.
 * @throws {InvalidJsonError} when the value has no JSON form (undefined, a function, a bigint, a cycle).
 * @example encodeBase64Json({ a: 1 }) // 'eyJhIjoxfQ=='
 */
export function encodeBase64Json(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidJsonError("value cannot be serialised", error);
  }
  if (json === undefined) throw new InvalidJsonError(`a ${typeof value} has no JSON form`);
  return Buffer.from(json, "utf8").toString("base64");
}

/**
 * Parses canonical padded base64 of UTF-8 JSON; anything else is refused with a typed error.
 * @throws {InvalidBase64Error | InvalidJsonError}
 * @example decodeBase64Json('eyJhIjoxfQ==') // { a: 1 }
 */
export function decodeBase64Json(text: string): unknown {
  if (typeof text !== "string") throw new InvalidBase64Error(`expected a string, got ${typeof text}`);
  if (!canonicalBase64.test(text)) throw new InvalidBase64Error("characters outside the alphabet or bad padding");
  const bytes = Buffer.from(text, "base64");
  if (bytes.toString("base64") !== text) throw new InvalidBase64Error("non-zero padding bits");
  let json: string;
  try {
    json = strictUtf8.decode(bytes);
  } catch (error) {
    throw new InvalidJsonError("bytes are not UTF-8", error);
  }
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new InvalidJsonError((error as Error).message, error);
  }
}
