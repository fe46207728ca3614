import { expect } from "chai";
import fc from "fast-check";
import { encodeErrorResult, getAddress, maxUint256, parseEventLogs } from "viem";
import { DEFAULTS } from "../../../ignition/modules/parts.ts";
import { compactDebit } from "../../../services/facilitator/relayer/compactDebit.ts";
import type { Debit } from "../fixtures.ts";
import {
  buildDebitAuthorization,
  debitLogs,
  deployFundedEscrow,
  escrowHoldings,
  fundBuyer,
  mined,
  mintTokens,
  networkHelpers,
  nonceOf,
  registerResource,
  signDebit,
  signExactPayment,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/** Properties of PaymentEscrow checked over random inputs with fast-check. */
describe("PaymentEscrow properties", function () {
  describe("the split", function () {
    it("creator + treasury == amount, treasury == floor(amount * feeBps / 10000) < creator, for any fee and amount on every path", async function () {
      const base = await networkHelpers.loadFixture(deployFundedEscrow);
      const { admin, relayer, treasury, buyer, payout } = base.accounts;
      const snapshot = await networkHelpers.takeSnapshot();
      let run = 0;

      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 4_999 }),
          // Balances (and so amounts) are below 2^128; the funded buyer already holds 100 USDC.
          fc.bigInt({ min: 1n, max: 2n ** 128n - 1n - 100n * USDC }),
          fc.constantFrom("debit", "debitBatch", "debitBatchCompact", "settleExact"),
          async (feeBps, amount, path) => {
            // The compact encoding carries amounts below 2^128 only (the relayer sends others in full).
            fc.pre(path !== "debitBatchCompact" || amount < 2n ** 128n);
            try {
              run += 1;
              const escrow = await viem.deployContract("PaymentEscrow", [
                base.token.address,
                base.registry.address,
                treasury.account.address,
                feeBps,
                admin.account.address,
                DEFAULTS.adminDelay,
              ]);
              await mined(
                base,
                escrow.write.grantRole([await escrow.read.RELAYER_ROLE(), relayer.account.address], {
                  account: admin.account,
                }),
              );
              const stack = { ...base, escrow };
              const nonce = nonceOf(`split ${run}`);
              let receipt: Awaited<ReturnType<typeof mined>>;
              if (path === "settleExact") {
                await mintTokens(stack, buyer.account.address, amount);
                const payment = await signExactPayment(stack, buyer, {
                  resourceId: base.resourceId,
                  value: amount,
                  nonce,
                });
                receipt = await mined(stack, escrow.write.settleExact([payment], { account: relayer.account }));
              } else {
                await fundBuyer(stack, buyer, amount);
                const maxAmount = path === "debitBatchCompact" ? amount : maxUint256;
                const authorization = await buildDebitAuthorization(stack, {
                  resourceId: base.resourceId,
                  maxAmount,
                  nonce,
                });
                const item = {
                  authorization,
                  amount,
                  signature: await signDebit(escrow.address, buyer, authorization),
                };
                const from = { account: relayer.account };
                receipt = await mined(
                  stack,
                  path === "debit"
                    ? escrow.write.debit([item], from)
                    : path === "debitBatch"
                      ? escrow.write.debitBatch([[item]], from)
                      : escrow.write.debitBatchCompact([[compactDebit(item)!]], from),
                );
              }
              const [debited, ...more] = debitLogs(escrow, receipt.logs);
              expect(more).to.have.length(0);
              const { treasuryAmount } = debited!.args;
              // The creator's share is what the payout was credited (it starts at zero with each new escrow).
              const creatorAmount = await escrow.read.earningsOf([payout.account.address]);
              expect(debited!.args.amount).to.equal(amount);
              expect(creatorAmount + treasuryAmount).to.equal(amount);
              expect(treasuryAmount).to.equal((amount * BigInt(feeBps)) / 10_000n);
              expect(creatorAmount > treasuryAmount).to.equal(true);
              expect(await escrow.read.earningsOf([treasury.account.address])).to.equal(treasuryAmount);
              const { held, owed } = await escrowHoldings(stack);
              expect(held).to.equal(owed);
            } finally {
              await snapshot.restore();
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });

  describe("a nonce", function () {
    const attempt = fc.record({
      nonce: fc.integer({ min: 0, max: 3 }),
      amount: fc.bigInt({ min: 1n, max: 5_000n }),
      resource: fc.integer({ min: 0, max: 1 }),
    });
    const submission = fc.oneof(
      fc.record({ via: fc.constant("debit" as const), items: fc.tuple(attempt) }),
      fc.record({ via: fc.constant("debitBatch" as const), items: fc.array(attempt, { minLength: 1, maxLength: 3 }) }),
    );

    it("debits once, whatever sequence of debits and batches reuses it", async function () {
      const base = await networkHelpers.loadFixture(deployFundedEscrow);
      const { relayer, buyer } = base.accounts;
      const { resourceId: second } = await registerResource(base, {
        slug: "second",
        payout: base.accounts.other.account.address,
      });
      const resources = [base.resourceId, second] as const;
      const snapshot = await networkHelpers.takeSnapshot();
      let run = 0;

      await fc.assert(
        fc.asyncProperty(fc.array(submission, { minLength: 1, maxLength: 8 }), async (submissions) => {
          try {
            run += 1;
            const startBalance = await base.escrow.read.balanceOf([buyer.account.address]);
            const used = new Set<number>();
            let debitedTotal = 0n;
            for (const { via, items } of submissions) {
              const signed: Debit[] = [];
              for (const { nonce, amount, resource } of items) {
                signed.push(
                  await signedDebit(base, {
                    resourceId: resources[resource]!,
                    nonce: nonceOf(`run ${run} nonce ${nonce}`),
                    amount,
                  }),
                );
              }
              if (via === "debit") {
                const item = signed[0]!;
                const index = items[0]!.nonce;
                if (used.has(index)) {
                  await viem.assertions.revertWithCustomErrorWithArgs(
                    base.escrow.write.debit([item], { account: relayer.account }),
                    base.escrow,
                    "NonceAlreadyUsed",
                    [buyer.account.address, item.authorization.nonce],
                  );
                } else {
                  await mined(base, base.escrow.write.debit([item], { account: relayer.account }));
                  used.add(index);
                  debitedTotal += item.amount;
                }
                continue;
              }
              const receipt = await mined(base, base.escrow.write.debitBatch([signed], { account: relayer.account }));
              const debited = debitLogs(base.escrow, receipt.logs).map((log) => log.args.nonce);
              const skipped = parseEventLogs({
                abi: base.escrow.abi,
                eventName: "DebitSkipped",
                logs: receipt.logs,
              }).map((log) => log.args);
              const expectedDebited = [];
              const expectedSkipped = [];
              for (const [i, { nonce }] of items.entries()) {
                const item = signed[i]!;
                if (used.has(nonce)) {
                  expectedSkipped.push({
                    resourceId: item.authorization.resourceId,
                    buyer: getAddress(buyer.account.address),
                    nonce: item.authorization.nonce,
                    reason: encodeErrorResult({
                      abi: base.escrow.abi,
                      errorName: "NonceAlreadyUsed",
                      args: [getAddress(buyer.account.address), item.authorization.nonce],
                    }),
                  });
                } else {
                  used.add(nonce);
                  debitedTotal += item.amount;
                  expectedDebited.push(item.authorization.nonce);
                }
              }
              expect(debited).to.deep.equal(expectedDebited);
              expect(skipped).to.deep.equal(expectedSkipped);
            }
            expect(await base.escrow.read.balanceOf([buyer.account.address])).to.equal(startBalance - debitedTotal);
            for (const index of [0, 1, 2, 3]) {
              expect(
                await base.escrow.read.nonceUsed([buyer.account.address, nonceOf(`run ${run} nonce ${index}`)]),
              ).to.equal(used.has(index));
            }
          } finally {
            await snapshot.restore();
          }
        }),
        { numRuns: 25 },
      );
    });
  });
});
