/**
 * How deep a request body's arrays and objects may nest (the gate's step 3, and the APIs with a shape of their own):
 * far past any API's shape, far below every limit of the parts that walk it.
 */
export const MAX_BODY_DEPTH = 512;

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`, read in one pass without parsing (brackets inside
 * strings do not count), so that a body too deep for the parts behind the gate (the handler's isolate, the response's
 * re-serialisation) is refused before anything is reserved.
 * @example nestedDeeperThan('{"a":[[1]]}', 2) // true
 */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
