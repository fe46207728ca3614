import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BudgetStack } from "../../../testkit/buyer/budgetStack.ts";
import { CALL_PRICE, startBudgetStack } from "../../../testkit/buyer/budgetStack.ts";
import { debitsOnChain } from "../../../testkit/chain/debitsOnChain.ts";
import { until } from "../../../testkit/until.ts";
import { bitmapNonce, bitmapNonceIndex, NONCES_PER_WORD } from "../../protocol/bitmapNonce.ts";
import { payForCall } from "../src/sdk/payForCall.ts";
import { createProcessNonces, PROCESS_WORDS } from "../src/sdk/processNonces.ts";

/** The first index of the process word at `offset`. */
const at = (offset: number) => (PROCESS_WORDS.first + offset) * NONCES_PER_WORD;

/** `payForCall` without a spend ledger, on a real chain, facilitator and gate: the nonces it signs and what they cost. */
describe("payForCall's own bitmap nonces", function () {
  this.timeout(300_000);
  let s: BudgetStack;

  before(async function () {
    s = await startBudgetStack();
  });

  after(async function () {
    await s?.close();
  });

  const chainOf = () => s.buyerChain();
  const debitedNonces = async (buyer: Hex, count: number) =>
    until(
      async () => {
        const debits = await debitsOnChain(s.chain, { buyer });
        return debits.length >= count ? debits : undefined;
      },
      30_000,
      `${count} debits on chain`,
    );
  /**
   * Pays the resource whose creator settles the payment and then answers 402 nonce_used, asking to be paid again
   * under a new nonce (from `word` on): the call must end payment_unknown, signed once, run once, debited once.
   */
  const paidOnceUnderTheLie = async (chain: ReturnType<typeof chainOf>, word: number) => {
    const { relay, gate } = await s.resource("nonce-used-after-settle");
    const buyer = await s.buyer();
    let words = 0;
    const failure = await payForCall({
      chain,
      account: privateKeyToAccount(buyer.key),
      callUrl: relay.callUrl,
      body: {},
      nonces: createProcessNonces(() => word + words++),
    }).catch((error: Error) => error);
    expect(failure).to.include({ code: "payment_unknown", idemKey: bitmapNonce(at(word)) });
    expect(relay.payments.size, "one signature sent, never a second").to.equal(1);
    expect(gate.runs()).to.equal(1);
    expect(await s.debits(buyer.address)).to.deep.equal([CALL_PRICE]);
  };

  it("a process's calls from one key take consecutive nonces of one word, each debited once on chain", async function () {
    const { relay } = await s.resource();
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const nonces = createProcessNonces(() => 1_234);
    const idemKeys: Hex[] = [];
    for (let n = 0; n < 3; n++)
      idemKeys.push(
        (await payForCall({ chain: chainOf(), account, callUrl: relay.callUrl, body: { n }, nonces })).idemKey,
      );
    const first = at(1_234);
    expect(idemKeys.map(bitmapNonceIndex)).to.deep.equal([first, first + 1, first + 2]);
    const debits = await debitedNonces(buyer.address, 3);
    expect(debits.map((d) => d.nonce.toLowerCase()).sort()).to.deep.equal([...idemKeys].sort());
    expect(debits.map((d) => d.amount)).to.deep.equal([CALL_PRICE, CALL_PRICE, CALL_PRICE]);
  });

  it("another process of the key on the same word: refused nonce_used before its handler runs, it signs again from a new word and is charged once", async function () {
    const [one, two] = [await s.resource(), await s.resource()];
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const word = 77;
    const firstProcess = createProcessNonces(() => word);
    const words = [word, word + 5];
    const secondProcess = createProcessNonces(() => words.shift() ?? 0);

    const paid = await payForCall({
      chain: chainOf(),
      account,
      callUrl: one.relay.callUrl,
      body: {},
      nonces: firstProcess,
    });
    expect(paid.idemKey).to.equal(bitmapNonce(at(word)));

    const signed: Hex[] = [];
    const again = await payForCall({
      chain: chainOf(),
      account,
      callUrl: two.relay.callUrl,
      body: {},
      nonces: secondProcess,
      onSigned: (idemKey) => signed.push(idemKey),
    });
    expect(signed, "signed with the taken nonce, then from the new word").to.deep.equal([
      bitmapNonce(at(word)),
      bitmapNonce(at(word + 5)),
    ]);
    expect(again.idemKey).to.equal(bitmapNonce(at(word + 5)));
    expect(again.receipt.payer.toLowerCase()).to.equal(buyer.address.toLowerCase());
    expect(two.gate.runs(), "the refused payment ran nothing").to.equal(1);

    const debits = await debitedNonces(buyer.address, 2);
    expect(debits.map((d) => [bitmapNonceIndex(d.nonce), d.resourceId])).to.have.deep.members([
      [at(word), one.resourceId],
      [at(word + 5), two.resourceId],
    ]);
  });

  it("a taken nonce the chain has not spent (the other payment was released) stays payment_unknown, nothing run or charged", async function () {
    // The echo's answer breaks this resource's response schema: the call fails and its reservation is released.
    const failing = await s.resource("forward", { responseSchema: { type: "object", required: ["never"] } });
    const { relay, gate } = await s.resource();
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const word = 300;
    const first = await payForCall({
      chain: chainOf(),
      account,
      callUrl: failing.relay.callUrl,
      body: {},
      nonces: createProcessNonces(() => word),
    }).catch((error: Error) => error);
    expect(first, "the handler failed: released, not debited").to.include({ code: "payment_unknown" });
    const second = await payForCall({
      chain: chainOf(),
      account,
      callUrl: relay.callUrl,
      body: {},
      nonces: createProcessNonces(() => word),
    }).catch((error: Error) => error);
    expect(second).to.include({ code: "payment_unknown", idemKey: bitmapNonce(at(word)) });
    expect((second as Error).message).to.match(/nonce_used, and the chain shows no other payment spent that nonce/);
    expect(gate.runs()).to.equal(0);
    expect(await s.debits(buyer.address)).to.deep.equal([]);
  });

  it("attack: a creator settles the payment, then answers 402 nonce_used to be paid again under a new nonce: payment_unknown, charged once", async function () {
    await paidOnceUnderTheLie(chainOf(), 500);
  });

  it("attack: the same lie while the chain's logs cannot be read: payment_unknown, never a plain error, charged once", async function () {
    const chain = chainOf();
    // The node answers everything but eth_getLogs, so the debit that would show the lie cannot be looked for.
    const publicClient = new Proxy(chain.publicClient, {
      get: (client, key) =>
        key === "getLogs" ? () => Promise.reject(new Error("eth_getLogs refused")) : Reflect.get(client, key),
    });
    await paidOnceUnderTheLie({ ...chain, publicClient }, 600);
  });

  it("a nonce given by beforeSign (a spend ledger's) is never replaced: the same refusal is payment_unknown", async function () {
    const { relay } = await s.resource();
    const buyer = await s.buyer();
    const account = privateKeyToAccount(buyer.key);
    const taken = bitmapNonce(9);
    await payForCall({ chain: chainOf(), account, callUrl: relay.callUrl, body: {}, beforeSign: () => taken });
    const failure = await payForCall({
      chain: chainOf(),
      account,
      callUrl: (await s.resource()).relay.callUrl,
      body: {},
      beforeSign: () => taken,
    }).catch((error: Error) => error);
    expect(failure).to.include({ code: "payment_unknown", idemKey: taken });
  });
});
