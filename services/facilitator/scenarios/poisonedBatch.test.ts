import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { serveRpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { signEscrowPayment } from "../../buyer/src/sdk/signPayment.ts";
import { createBatchLink } from "../../gate/createBatchLink.ts";
import { createJsonClient, FRAMES_TYPE, JsonText } from "../../gate/createJsonClient.ts";

const CAP = 50_000n;
/** What one head read takes at the slow RPC: a refusal's catch-up of the escrow book takes at least as long. */
const SLOW_HEAD_MS = 4_000;
/** The longest an honest call may take here: half a head read, whatever the machine's load. */
const PROMPT_MS = SLOW_HEAD_MS / 2;

/**
 * A refused verify waits for the escrow book to catch up with the chain (it may owe the refusal to a deposit it has not
 * read yet), and `POST /batch` answered when all its calls were done: one payment signed by an unfunded key, which
 * costs nothing, slowed every honest call of its batch by the catch-up (8-52 ms alone, 173-464 ms beside it, 3.2 s
 * with a slow RPC), and with the gate's four batches all waiting, every endpoint of its host answered 503. Here the RPC
 * takes SLOW_HEAD_MS to answer a head, and honest verifies share a batch with a refused one.
 */
describe("a batch poisoned by a refused payment", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let rpc: RpcProxy;
  let resourceId: Hex;
  let facilitator: Awaited<ReturnType<typeof startFacilitator>>;
  const honest = privateKeyToAccount(devKey(ROLE.buyer));
  /** A key with nothing in the escrow: every payment it signs is refused. */
  const unfunded = privateKeyToAccount(devKey(15));
  const verifyBody = async (account: typeof honest) => ({
    paymentPayload: await signEscrowPayment({
      account,
      escrow: chain.addresses.escrow,
      resourceId,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
    }),
    resourceId,
    maxTimeoutSeconds: 60,
  });
  const slowHeads = () =>
    rpc.intercept("eth_blockNumber", async (call, next) => {
      await sleep(SLOW_HEAD_MS);
      return next(call);
    });

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "poisoned", cap: CAP });
    await chain.fundBuyer(ROLE.buyer, CAP * 100n);
    rpc = await serveRpcProxy(chain.connection.provider);
    facilitator = await startFacilitator(chain, { env: { RPC_URL: rpc.url, SETTLEMENT: "committed" } });
    // The book has read the deposit, and the resource's terms are read (they are cached for a while).
    expect((await postJson(`${facilitator.url}/verify`, await verifyBody(honest))).body.isValid).to.equal(true);
  });

  afterEach(function () {
    rpc.intercept("eth_blockNumber", undefined);
  });

  after(async function () {
    await facilitator?.stop();
    await rpc?.close();
    await chain?.close();
  });

  it("poisonedBatch: each call's frame is sent as soon as it is done, and the refused verify's says to send it alone, without waiting for the book", async function () {
    const calls = [
      { route: "verify", body: await verifyBody(unfunded) },
      { route: "verify", body: await verifyBody(honest) },
      { route: "verify", body: await verifyBody(honest) },
      { route: "verify", body: await verifyBody(honest) },
    ];
    const client = createJsonClient({ baseUrl: facilitator.url, timeoutMs: 30_000 });
    slowHeads();
    const started = performance.now();
    const frames: { at: number; frame: any }[] = [];
    const answer = await client.requestFrames(
      "POST",
      "/batch",
      new JsonText(JSON.stringify({ calls })),
      { accept: FRAMES_TYPE },
      (frame) => frames.push({ at: performance.now() - started, frame }),
    );
    const ended = performance.now() - started;
    client.close();
    expect(answer).to.include({ ok: true, status: 200 });
    expect(frames.map(({ frame }) => frame.index).sort()).to.deep.equal([0, 1, 2, 3]);
    const byIndex = new Map(frames.map(({ frame }) => [frame.index, frame]));
    expect(byIndex.get(0)).to.deep.equal({ index: 0, alone: true });
    for (const i of [1, 2, 3]) expect(byIndex.get(i), `honest call ${i}`).to.deep.include({ status: 200 });
    for (const i of [1, 2, 3]) expect(byIndex.get(i).body, `honest call ${i}`).to.include({ isValid: true });
    expect(ended, "ms until the batch's answer ended (a catch-up takes a head read or more)").to.be.below(PROMPT_MS);
  });

  it("poisonedBatchLink: through the gate's batch link, honest verifies are answered while the refused one is still waiting, alone, for the book", async function () {
    const link = createBatchLink(createJsonClient({ baseUrl: facilitator.url, timeoutMs: 30_000 }));
    const bodies = [await verifyBody(unfunded), await verifyBody(honest), await verifyBody(honest)];
    slowHeads();
    const started = performance.now();
    const timed = bodies.map((body) =>
      link.call("verify", body, undefined).then((answer) => ({ answer, at: performance.now() - started })),
    );
    const [refused, ...honestOnes] = await Promise.all(timed);
    link.close();
    for (const { answer, at } of honestOnes) {
      expect(answer.ok && (answer.body as any).isValid, "an honest verify reserved").to.equal(true);
      expect(at, "ms an honest verify waited").to.be.below(PROMPT_MS);
    }
    expect(refused?.answer.ok && refused.answer.body).to.include({
      isValid: false,
      invalidReason: "insufficient_balance",
    });
    expect(refused?.at, "ms the refused verify waited: the book's catch-up, on its own route").to.be.at.least(
      SLOW_HEAD_MS,
    );
  });
});
