import { expect } from "chai";
import type { Hex } from "viem";
import { concat, getAddress, keccak256, numberToHex, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";

const buyer = privateKeyToAccount(keccak256(toHex("compact buyer")));

async function item(overrides: Partial<DebitItem["authorization"]> & { amount?: bigint } = {}): Promise<DebitItem> {
  const { amount = 1_200n, ...fields } = overrides;
  const authorization = {
    buyer: buyer.address,
    resourceId: keccak256(toHex("resource")),
    maxAmount: 50_000n,
    validAfter: 0n,
    validBefore: 1_800_000_000n,
    nonce: keccak256(toHex("nonce")),
    ...fields,
  };
  const signature = await buyer.sign({
    hash: keccak256(toHex(JSON.stringify(authorization, (_, v) => (typeof v === "bigint" ? `${v}` : v)))),
  });
  return { authorization, amount, signature };
}

/** Unpacks a compact item the way PaymentEscrow._loadCompact does. */
function unpack(c: NonNullable<ReturnType<typeof compactDebit>>): DebitItem {
  const low = (bits: bigint) => (1n << bits) - 1n;
  const vs = BigInt(c.vs);
  return {
    authorization: {
      buyer: getAddress(numberToHex(c.buyerWindow & low(160n), { size: 20 })),
      resourceId: c.resourceId,
      maxAmount: c.amounts >> 128n,
      validAfter: c.buyerWindow >> 208n,
      validBefore: (c.buyerWindow >> 160n) & low(48n),
      nonce: c.nonce,
    },
    amount: c.amounts & low(128n),
    signature: concat([
      c.r,
      numberToHex(vs & ((1n << 255n) - 1n), { size: 32 }),
      numberToHex(27n + (vs >> 255n), { size: 1 }),
    ]),
  };
}

describe("compactDebit", function () {
  it("packs an item so that the escrow's unpacking gives back every field and the 65 signature bytes", async function () {
    for (const fields of [
      {},
      { maxAmount: 2n ** 128n - 1n, amount: 2n ** 128n - 1n, validAfter: 2n ** 48n - 1n, validBefore: 2n ** 48n - 1n },
    ]) {
      const original = await item(fields);
      const compact = compactDebit(original);
      expect(compact).to.not.equal(null);
      expect(unpack(compact!)).to.deep.equal(original);
    }
  });

  it("has no encoding for a time of 2^48 or more, or an amount of 2^128 or more", async function () {
    for (const fields of [
      { maxAmount: 2n ** 128n },
      { validAfter: 2n ** 48n },
      { validBefore: 2n ** 48n },
      { amount: 2n ** 128n },
    ]) {
      expect(compactDebit(await item(fields)), JSON.stringify(Object.keys(fields))).to.equal(null);
    }
  });

  it("has no encoding for a signature that is not 65 bytes with v 27 or 28 and s below 2^255", async function () {
    const base = await item();
    const r = base.signature.slice(0, 66) as Hex;
    const s = `0x${base.signature.slice(66, 130)}` as Hex;
    const cases: Hex[] = [
      base.signature.slice(0, 130) as Hex, // 64 bytes
      concat([base.signature, "0x00"]), // 66 bytes: a contract wallet's own format
      concat([r, s, "0x00"]), // v = 0
      concat([r, s, "0x1d"]), // v = 29
      concat([r, numberToHex(BigInt(s) | (1n << 255n), { size: 32 }), "0x1b"]), // s with its top bit set
    ];
    for (const signature of cases) expect(compactDebit({ ...base, signature }), signature).to.equal(null);
  });
});
