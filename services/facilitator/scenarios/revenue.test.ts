import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { debitsOnChain } from "../../../testkit/chain/debitsOnChain.ts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { getJson, postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import type { Indexer } from "../../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../../testkit/indexer/startIndexer.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { createProjectionsClient, waitForIndexedBlock } from "../../projections/createProjectionsClient.ts";
import { errorBodySchema } from "../../protocol/schemas/errorBody.ts";
import { revenueSchema } from "../../protocol/schemas/revenue.ts";

const CAP = 50_000n;
const response = { status: 200, contentType: "application/json", body: { ok: true } };

describe("facilitator: GET /revenue/:resourceId (from the indexer's projections)", function () {
  let chain: LocalChain;
  let indexer: Indexer;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  let paid: Hex;
  let idle: Hex;
  const buyer = privateKeyToAccount(devKey(ROLE.buyer));

  before(async function () {
    chain = await startLocalChain();
    paid = await chain.registerResource({ slug: "paid", cap: CAP });
    idle = await chain.registerResource({ slug: "idle", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, 1_000_000n);
    indexer = await startIndexer(chain);
    facilitator = await startFacilitator(chain, { env: { INDEXER_URL: indexer.url } });
  });

  after(async function () {
    await facilitator?.stop();
    await indexer?.stop();
    await chain?.close();
  });

  async function payAndSettle(amount: bigint) {
    const payload = await signEscrowPayment({
      account: buyer,
      escrow: chain.addresses.escrow,
      resourceId: paid,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    });
    const verified = await postJson(`${facilitator.url}/verify`, {
      paymentPayload: payload,
      resourceId: paid,
      maxTimeoutSeconds: 60,
    });
    expect(verified.body.isValid, JSON.stringify(verified.body)).to.equal(true);
    const settled = await postJson(`${facilitator.url}/settle`, {
      idemKey: payload.authorization.nonce,
      resourceId: paid,
      amount: amount.toString(),
      response,
    });
    expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
  }

  it("equals the sums of the on-chain split after debits through the facilitator", async function () {
    for (const amount of [1_200n, 777n, 50_000n, 13n]) await payAndSettle(amount);
    await waitForIndexedBlock(createProjectionsClient(indexer.url), await chain.publicClient.getBlockNumber());
    const logs = await debitsOnChain(chain, { resourceId: paid });
    const sum = (pick: (debit: (typeof logs)[number]) => bigint) =>
      logs.reduce((total, debit) => total + pick(debit), 0n).toString();
    const last = await chain.publicClient.getBlock({ blockNumber: logs.at(-1)!.blockNumber! });

    const { status, body } = await getJson(`${facilitator.url}/revenue/${paid}`);
    expect(status).to.equal(200);
    expect(revenueSchema.parse(body)).to.deep.equal(body);
    expect(body).to.deep.equal({
      resourceId: paid,
      calls: 4,
      gross: sum((a) => a.amount),
      creator: sum((a) => a.amount - a.treasuryAmount),
      treasury: sum((a) => a.treasuryAmount),
      lastSettledAt: new Date(Number(last.timestamp) * 1000).toISOString(),
    });
    expect(body.gross).to.equal((1_200 + 777 + 50_000 + 13).toString());
  });

  it("answers zeros for a registered resource that was never paid", async function () {
    const { status, body } = await getJson(`${facilitator.url}/revenue/${idle.toUpperCase().replace("0X", "0x")}`);
    expect(status).to.equal(200);
    expect(body).to.deep.equal({
      resourceId: idle,
      calls: 0,
      gross: "0",
      creator: "0",
      treasury: "0",
      lastSettledAt: null,
    });
  });

  it("answers 404 for a resource never registered", async function () {
    const { status, body } = await getJson(`${facilitator.url}/revenue/0x${"42".repeat(32)}`);
    expect(status).to.equal(404);
    expect(errorBodySchema.parse(body).error.code).to.equal("not_found");
  });

  it("answers 400 for a malformed resource id", async function () {
    for (const id of ["0x1234", "weather", `0x${"zz".repeat(32)}`, `${"12".repeat(32)}`]) {
      const { status, body } = await getJson(`${facilitator.url}/revenue/${id}`);
      expect(status).to.equal(400);
      expect(errorBodySchema.parse(body).error.code).to.equal("invalid_request");
    }
  });

  it("answers 503 indexer_unavailable when no indexer is configured or it cannot be reached", async function () {
    const unconfigured = await startFacilitator(chain);
    try {
      const { status, body } = await getJson(`${unconfigured.url}/revenue/${paid}`);
      expect(status).to.equal(503);
      expect(body.error.code).to.equal("indexer_unavailable");
    } finally {
      await unconfigured.stop();
    }
    const unreachable = await startFacilitator(chain, { env: { INDEXER_URL: "http://127.0.0.1:9" } });
    try {
      const { status, body } = await getJson(`${unreachable.url}/revenue/${paid}`);
      expect(status).to.equal(503);
      expect(body.error.code).to.equal("indexer_unavailable");
    } finally {
      await unreachable.stop();
    }
  });
});
