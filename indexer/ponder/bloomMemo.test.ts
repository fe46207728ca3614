import { readFileSync } from "node:fs";
import { expect } from "chai";
import fc from "fast-check";
import type { Hex } from "viem";
import { bytesToHex, hexToBytes, keccak256 } from "viem";
import { createIsInBloom, memoizeBloom } from "./bloomMemo.ts";

const bloomModule = new URL("../../node_modules/ponder/dist/esm/sync-realtime/bloom.js", import.meta.url);
const ponder = (await import(bloomModule.href)) as { isInBloom: (bloom: Hex, input: Hex) => boolean };

/** A logs bloom with `inputs` added, as a block's is (three bits per input, from its keccak). */
function bloomOf(inputs: Hex[]): Hex {
  const bytes = new Uint8Array(256);
  for (const input of inputs) {
    const hash = hexToBytes(keccak256(input));
    for (const i of [0, 2, 4]) {
      const bit = ((hash[i + 1] ?? 0) + ((hash[i] ?? 0) << 8)) & 0x7ff;
      const at = 255 - Math.floor(bit / 8);
      bytes[at] = (bytes[at] ?? 0) | (1 << (bit % 8));
    }
  }
  return bytesToHex(bytes);
}

const word = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => bytesToHex(b));
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => bytesToHex(b));

describe("Ponder's logs-bloom check, memoized (bloomMemo.ts)", () => {
  it("answers exactly as Ponder's isInBloom, block after block, for inputs in the bloom and not", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(fc.oneof(word, address), { maxLength: 12 }), fc.array(fc.oneof(word, address))), {
          minLength: 1,
          maxLength: 6,
        }),
        (blocks) => {
          const memoized = createIsInBloom({ hexToBytes, keccak256 });
          for (const [logged, others] of blocks) {
            const bloom = bloomOf(logged);
            for (const input of [...logged, ...others, ...logged])
              expect(memoized(bloom, input)).to.equal(ponder.isInBloom(bloom, input));
          }
        },
      ),
    );
  });

  it("replaces the installed Ponder's isInBloom exactly once, and is idempotent", () => {
    const source = readFileSync(bloomModule, "utf8");
    const patched = memoizeBloom(source);
    expect(patched).to.not.equal(source);
    expect(patched.match(/export const isInBloom = /g)).to.have.length(1);
    expect(patched).to.include("createIsInBloom({ hexToBytes, keccak256 })");
    expect(memoizeBloom(patched)).to.equal(patched);
  });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => memoizeBloom("export const isInBloom = () => true;")).to.throw(/not the 0.16 code/);
  });
});
