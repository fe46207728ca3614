/** Whether hit `a` ranks after hit `b`: a lower score, or the same score and a later position. */
function worse(scores: Float64Array, positions: Int32Array, a: number, b: number): boolean {
  const sa = scores[a]!;
  const sb = scores[b]!;
  return sa < sb || (sa === sb && positions[a]! > positions[b]!);
}

/**
 * The positions of the `k` best of `count` scored hits, best first: highest score, ties broken by the lower position.
 * Keeps a heap of the best `k` seen (its worst at the root), so ranking 100k hits for a page of 1,000 compares each hit
 * with the root once, rather than sorting them all.
 * @example bestFirst(new Float64Array([1, 3, 3]), new Int32Array([0, 9, 4]), 3, 2) // Int32Array [4, 9]
 */
export function bestFirst(scores: Float64Array, positions: Int32Array, count: number, k: number): Int32Array {
  const size = Math.max(0, Math.min(k, count));
  const heap = new Int32Array(size);
  const down = (from: number, length: number) => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) return;
      const right = left + 1;
      const child = right < length && worse(scores, positions, heap[right]!, heap[left]!) ? right : left;
      if (!worse(scores, positions, heap[child]!, heap[i]!)) return;
      const swap = heap[i]!;
      heap[i] = heap[child]!;
      heap[child] = swap;
      i = child;
    }
  };
  for (let i = 0; i < size; i++) heap[i] = i;
  for (let i = (size >>> 1) - 1; i >= 0; i--) down(i, size);
  for (let i = size; i < count; i++) {
    if (size === 0 || !worse(scores, positions, heap[0]!, i)) continue;
    heap[0] = i;
    down(0, size);
  }
  const best = new Int32Array(size);
  for (let end = size - 1; end >= 0; end--) {
    best[end] = positions[heap[0]!]!;
    heap[0] = heap[end]!;
    down(0, end);
  }
  return best;
}
