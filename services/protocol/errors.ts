/** Options every {@link BaseError} accepts. */
export type BaseErrorParameters = { details?: string | undefined; cause?: unknown };

/**
 * Root of every error this package throws: a short message, optional details and the underlying cause.
 * @example new BaseError('Price input is invalid.', { details: 'responseBytes is -1' })
 */
export class BaseError extends Error {
  override name = "BaseError";
  shortMessage: string;
  details: string | undefined;

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    const message = parameters.details ? `${shortMessage}\n\nDetails: ${parameters.details}` : shortMessage;
    super(message, parameters.cause === undefined ? undefined : { cause: parameters.cause });
    this.shortMessage = shortMessage;
    this.details = parameters.details;
  }
}

/** A string is not canonical RFC 4648 §4 base64 with padding. */
export class InvalidBase64Error extends BaseError {
  override name = "InvalidBase64Error";

  constructor(details: string) {
    super("Value is not canonical base64.", { details });
  }
}

/** Bytes are not UTF-8 JSON, or a value cannot be serialised as JSON. */
export class InvalidJsonError extends BaseError {
  override name = "InvalidJsonError";

  constructor(details: string, cause?: unknown) {
    super("Value is not valid JSON.", { details, cause });
  }
}

/** An argument of a pricing or split computation is out of range or malformed. */
export class InvalidPriceInputError extends BaseError {
  override name = "InvalidPriceInputError";
  parameter: string;
  value: unknown;

  constructor(parameter: string, value: unknown, expected: string) {
    super(`Invalid ${parameter}: expected ${expected}.`, { details: `${parameter} = ${String(value)}` });
    this.parameter = parameter;
    this.value = value;
  }
}

/** A value built by this package failed its own schema: a bug or bad configuration in the caller. */
export class SchemaValidationError extends BaseError {
  override name = "SchemaValidationError";
  schema: string;

  constructor(schema: string, details: string, cause?: unknown) {
    super(`Value does not match the ${schema} schema.`, { details, cause });
    this.schema = schema;
  }
}
