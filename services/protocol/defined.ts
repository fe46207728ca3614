/**
 * Returns `value`, or throws when it is missing: for values an earlier step guarantees, so that a broken guarantee
 * fails loudly at the place it is used instead of as an `undefined` further on.
 * @example const buyer = defined(stack.buyers[0], "the stack's first demo buyer");
 */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
