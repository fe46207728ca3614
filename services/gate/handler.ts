/** What the gate hands a resource's handler: the validated request, and a signal that fires at the wall-time limit. */
export type HandlerCall = {
  /** The request body, parsed and validated against the resource's request schema. */
  body: Record<string, unknown>;
  /** The request body exactly as received. */
  rawBody: Buffer;
  /** Aborted when the gate stops waiting (wall-time limit). */
  signal: AbortSignal;
  /** The gate refuses anything larger; a handler may stop reading after `maxResponseBytes + 1` bytes. */
  maxResponseBytes: number;
};

/** What a handler answered. `truncated` says the body was cut at `maxResponseBytes + 1` bytes. */
export type HandlerResult = {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  truncated?: boolean;
};

/** Runs the creator's code for one call (in the host: a request to the resource's workerd isolate). */
export type Handler = (call: HandlerCall) => Promise<HandlerResult>;
