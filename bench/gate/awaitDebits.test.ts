import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import { bitmapNonce } from "../../services/protocol/bitmapNonce.ts";
import { debitAuthorization } from "../../services/protocol/typedData.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../testkit/chain/localChain.ts";
import type { DebitKey } from "./awaitDebits.ts";
import { awaitDebits, DebitMismatchError } from "./awaitDebits.ts";

/** The bench's on-chain check: one debit per 200, none without, waiting for debits mined after the answers. */
describe("awaitDebits", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "await-debits", cap: 50_000n });
    await chain.fundBuyer(ROLE.buyer, 10_000_000n);
    await chain.fundBuyer(ROLE.other, 10_000_000n);
  });
  after(async function () {
    await chain?.close();
  });

  const sign = (nonce?: Hex, account = buyer) =>
    signEscrowPayment({
      account,
      nonce,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: 50_000n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    });
  async function debit(payload: Awaited<ReturnType<typeof sign>>) {
    await chain.contracts.escrow.write.debit(
      [
        {
          authorization: debitAuthorization(payload.authorization),
          amount: 1_200n,
          signature: payload.signature,
        },
      ],
      { account: chain.wallets[ROLE.relayer]!.account },
    );
  }
  const key = (payload: Awaited<ReturnType<typeof sign>>): DebitKey => ({
    buyer: payload.authorization.buyer,
    nonce: payload.authorization.nonce,
  });
  const fromBlock = async () => (await chain.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
  const check = async (first: bigint, sent: DebitKey[], paid: DebitKey[], timeoutMs = 5_000) =>
    awaitDebits({
      rpcUrl: chain.rpcUrl,
      escrow: chain.addresses.escrow,
      resourceId,
      fromBlock: first,
      sent,
      paid,
      timeoutMs,
    });

  it("counts one debit per 200, and waits for a debit mined after the answer", async function () {
    const first = await fromBlock();
    const payloads = await Promise.all([sign(), sign(), sign()]);
    for (const p of payloads.slice(0, 2)) await debit(p);
    const keys = payloads.map(key);
    const late = setTimeout(() => void debit(payloads[2]!), 800);
    const onChain = await check(first, keys, keys);
    clearTimeout(late);
    expect(onChain.debits).to.equal(3);
    expect(onChain.amount).to.equal(3_600n);
  });

  it("tells apart two buyers' debits that carry the same bitmap nonce", async function () {
    const first = await fromBlock();
    const other = privateKeyToAccount(devKey(ROLE.other));
    const nonce = bitmapNonce(0);
    const payloads = await Promise.all([sign(nonce), sign(nonce, other)]);
    for (const p of payloads) await debit(p);
    const keys = payloads.map(key);
    const onChain = await check(first, keys, keys);
    expect(onChain.debits).to.equal(2);
    const error = await check(first, keys, keys.slice(0, 1), 1_000).catch((e: unknown) => e);
    expect((error as Error).message).to.match(/^1 debits without a 200 \(0 of them for payments this load never sent/);
  });

  it("fails when a call answered 200 has no debit", async function () {
    const first = await fromBlock();
    const payload = await sign();
    const error = await check(first, [key(payload)], [key(payload)], 1_000).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DebitMismatchError);
    expect((error as Error).message).to.match(/1 of 1 calls answered 200 have no debit logged/);
  });

  it("fails when a payment that got no 200 was debited", async function () {
    const first = await fromBlock();
    const [paid, unpaid] = await Promise.all([sign(), sign()]);
    await debit(paid!);
    await debit(unpaid!);
    const error = await check(first, [key(paid!), key(unpaid!)], [key(paid!)]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DebitMismatchError);
    expect((error as Error).message).to.match(/1 debits without a 200 \(0 of them for payments this load never sent/);
  });
});
