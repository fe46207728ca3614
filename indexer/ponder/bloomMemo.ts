import { replaceOnce } from "./replaceOnce.ts";

type Hex = `0x${string}`;

/** Inputs (addresses and topics) whose bloom bits are remembered; unique ones such as nonces come and go. */
const REMEMBERED_INPUTS = 4_096;

/**
 * Ponder's `isInBloom` (sync-realtime/bloom.js), the same answers for less work. In realtime Ponder checks each log's
 * address and topics against its block's `logsBloom`, and each check decoded the whole 256-byte bloom from hex
 * again and hashed its input with a JavaScript keccak: five hashes and five decodes per `Debited`, a quarter of
 * Ponder's CPU in realtime (perf with --perf-basic-prof-only-functions, docs/benchmarks.md). This decodes a block's
 * bloom once and remembers each input's three bit positions (a Debited's address, topic0, resource and buyer repeat;
 * only its nonce is new).
 * @example const isInBloom = createIsInBloom({ hexToBytes, keccak256 })
 */
export function createIsInBloom({
  hexToBytes,
  keccak256,
}: {
  hexToBytes: (hex: Hex) => Uint8Array;
  keccak256: (input: Hex) => Hex;
}): (bloom: Hex, input: Hex) => boolean {
  let lastBloom: Hex | undefined;
  let lastBytes: Uint8Array = new Uint8Array(0);
  const bitsOf = new Map<Hex, readonly number[]>();
  return (bloom, input) => {
    if (bloom !== lastBloom) {
      lastBytes = hexToBytes(bloom);
      lastBloom = bloom;
    }
    let bits = bitsOf.get(input);
    if (bits === undefined) {
      const hash = hexToBytes(keccak256(input));
      bits = [0, 2, 4].map((i) => ((hash[i + 1] ?? 0) + ((hash[i] ?? 0) << 8)) & 0x7ff);
      if (bitsOf.size >= REMEMBERED_INPUTS) bitsOf.clear();
      bitsOf.set(input, bits);
    }
    for (const bit of bits) if (((lastBytes[255 - Math.floor(bit / 8)] ?? 0) & (1 << (bit % 8))) === 0) return false;
    return true;
  };
}

/** Ponder 0.16's `isInBloom`, which the patch replaces (it must be exactly this). */
export const PONDER_IS_IN_BLOOM = `export const isInBloom = (_bloom, input) => {
    const bloom = hexToBytes(_bloom);
    const hash = hexToBytes(keccak256(input));
    for (const i of [0, 2, 4]) {
        const bit = (hash[i + 1] + (hash[i] << 8)) & 0x7ff;
        if ((bloom[BLOOM_SIZE_BYTES - 1 - Math.floor(bit / 8)] &
            (1 << (bit % 8))) ===
            0)
            return false;
    }
    return true;
};`;

const MEMOIZED = `export const isInBloom = createIsInBloom({ hexToBytes, keccak256 });`;

/** Ponder's bloom module with `isInBloom` replaced by createIsInBloom; throws when it is not the code it replaces. */
export function memoizeBloom(source: string): string {
  return replaceOnce(source, {
    patch: "bloomMemo.ts",
    what: "isInBloom",
    original: PONDER_IS_IN_BLOOM,
    replacement: MEMOIZED,
    prefix: `import { createIsInBloom } from ${JSON.stringify(import.meta.url)};\n`,
  });
}
