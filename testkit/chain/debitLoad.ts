import type { Hex, LocalAccount } from "viem";
import { numberToHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment } from "../../services/buyer/src/sdk/signPayment.ts";
import type { CompactDebit } from "../../services/facilitator/relayer/compactDebit.ts";
import { compactDebit } from "../../services/facilitator/relayer/compactDebit.ts";
import { byDebitRun } from "../../services/facilitator/relayer/encodeDebitBatch.ts";
import { defined } from "../../services/protocol/defined.ts";
import { debitAuthorization } from "../../services/protocol/typedData.ts";
import { sleep } from "../sleep.ts";
import type { LocalChain } from "./localChain.ts";
import { ROLE } from "./localChain.ts";

/** The cap every debit of a load signs for. */
const CAP = 10_000n;

/** Buyers funded in the escrow and resources registered on a local chain, for debits in bulk. */
export type DebitLoad = { chain: LocalChain; buyers: LocalAccount[]; resources: Hex[] };

/**
 * Registers `resources` resources and funds `buyers` fresh buyers in the escrow with enough for `debits` debits.
 * @example const load = await prepareDebitLoad(chain, { buyers: 16, resources: 8, debits: 10_000 })
 */
export async function prepareDebitLoad(
  chain: LocalChain,
  { buyers: buyerCount, resources: resourceCount, debits }: { buyers: number; resources: number; debits: number },
): Promise<DebitLoad> {
  const resources: Hex[] = [];
  for (let i = 0; i < resourceCount; i++) resources.push(await chain.registerResource({ slug: `load-${i}`, cap: CAP }));
  const buyers = Array.from({ length: buyerCount }, () => privateKeyToAccount(generatePrivateKey()));
  const perBuyer = CAP * BigInt(Math.ceil(debits / buyerCount) + 1);
  const { token, escrow } = chain.contracts;
  await token.write.mint([chain.address(ROLE.admin), perBuyer * BigInt(buyerCount)]);
  await token.write.approve([chain.addresses.escrow, perBuyer * BigInt(buyerCount)]);
  for (const buyer of buyers) await escrow.write.depositFor([buyer.address, perBuyer]);
  return { chain, buyers, resources };
}

/**
 * `total` debits signed by the load's buyers, round robin over its resources, in the escrow's compact form, valid for a
 * day by the chain's clock (which a test may have moved ahead of the wall clock).
 */
export async function signDebits(load: DebitLoad, total: number): Promise<CompactDebit[]> {
  const { timestamp } = await load.chain.publicClient.getBlock({ blockTag: "latest" });
  const validBefore = timestamp + 24n * 3600n;
  const escrow = load.chain.addresses.escrow;
  const signed = await Promise.all(
    Array.from({ length: total }, (_, i) =>
      signEscrowPayment({
        account: defined(load.buyers[i % load.buyers.length], "a buyer"),
        escrow,
        resourceId: defined(load.resources[i % load.resources.length], "a resource"),
        maxAmount: CAP,
        validBefore,
      }),
    ),
  );
  return signed.map((p, i) =>
    defined(
      compactDebit({
        authorization: debitAuthorization(p.authorization),
        amount: 1_000n + BigInt(i % 1000),
        signature: p.signature,
      }),
      "the compact encoding of a debit",
    ),
  );
}

/** The fields of a compact debit that order it in a batch (its buyer is the low 160 bits of `buyerWindow`). */
const runFields = (d: CompactDebit) => ({
  resourceId: d.resourceId,
  buyer: numberToHex(d.buyerWindow & ((1n << 160n) - 1n), { size: 20 }),
  nonce: d.nonce,
});

/**
 * Sends `debits` as the relayer does, in `debitBatchCompact` transactions of `batch` items (one block each under
 * automine) ordered in runs by resource (byDebitRun: one `BatchDebited` log per resource), starting one every `gapMs`
 * at most.
 */
export async function sendDebitBatches(
  load: DebitLoad,
  debits: readonly CompactDebit[],
  { batch, gapMs = 0 }: { batch: number; gapMs?: number },
): Promise<void> {
  const account = defined(load.chain.wallets[ROLE.relayer], "the relayer's wallet").account;
  for (let i = 0; i < debits.length; i += batch) {
    const started = performance.now();
    const items = debits.slice(i, i + batch).sort((x, y) => byDebitRun(runFields(x), runFields(y)));
    await load.chain.contracts.escrow.write.debitBatchCompact([items], {
      account,
      gas: BigInt(Math.min(30_000_000, 60_000 * batch)),
    });
    const rest = gapMs - (performance.now() - started);
    if (rest > 0) await sleep(rest);
  }
}
