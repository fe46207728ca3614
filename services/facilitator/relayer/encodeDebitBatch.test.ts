import { expect } from "chai";
import type { Hex } from "viem";
import { decodeFunctionData, getAddress } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import { bitmapNonce } from "../../protocol/bitmapNonce.ts";
import type { DebitItem } from "./debitItem.ts";
import { encodeDebitBatch } from "./encodeDebitBatch.ts";

const signature = `0x${"11".repeat(32)}${"22".repeat(32)}1b` as Hex;
const item = (resource: string, buyer: string, index: number): DebitItem => ({
  authorization: {
    buyer: getAddress(`0x${buyer.repeat(40)}`),
    resourceId: `0x${resource.repeat(64)}`,
    maxAmount: 5_000n,
    validAfter: 0n,
    validBefore: 4_102_444_800n,
    nonce: bitmapNonce(index),
  },
  amount: 1_000n,
  signature,
});

describe("encodeDebitBatch", function () {
  it("sends the items in runs: by resource, then buyer, then nonce, whatever order they were queued in", function () {
    const queued = [item("b", "2", 1), item("a", "2", 0), item("b", "1", 5), item("a", "1", 3), item("b", "2", 0)];
    const { functionName, args } = decodeFunctionData({ abi: abiOf("PaymentEscrow"), data: encodeDebitBatch(queued) });
    expect(functionName).to.equal("debitBatchCompact");
    const sent = (args[0] as unknown as Array<{ resourceId: Hex; nonce: Hex; buyerWindow: bigint }>).map((c) => [
      c.resourceId.slice(2, 3),
      (c.buyerWindow & ((1n << 160n) - 1n)).toString(16).slice(0, 1),
      c.nonce,
    ]);
    expect(sent).to.deep.equal([
      ["a", "1", bitmapNonce(3)],
      ["a", "2", bitmapNonce(0)],
      ["b", "1", bitmapNonce(5)],
      ["b", "2", bitmapNonce(0)],
      ["b", "2", bitmapNonce(1)],
    ]);
  });
});
