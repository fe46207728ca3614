import { expect } from "chai";
import type { Hex } from "viem";
import { getAddress, keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RpcInterceptor } from "../../../testkit/chain/rpcProxy.ts";
import { serveRpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { postJson, startFacilitator } from "../../../testkit/facilitator/startFacilitator.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { signExactPayment } from "../../buyer/src/sdk/signPayment.ts";
import { cancelAuthorizationTypes, tokenDomain } from "../../protocol/typedData.ts";

const CAP = 50_000n;
const response = { status: 200, contentType: "application/json", body: { ok: true } };
/** A development account no other test here uses: the exact buyer. */
const EXACT_BUYER = 9;

/**
 * A node as the embedded chain of `npm start` was (EDR with `bailOnCallFailure` and `bailOnTransactionFailure` off):
 * `eth_call` answers a revert as a result holding the revert data, so every simulation passes, and
 * `eth_sendRawTransaction` mines a reverting transaction and answers its hash (the in-process chain here refuses it
 * with the revert after mining it).
 */
const revertsAsResults: Record<string, RpcInterceptor> = {
  async eth_call(call, next) {
    try {
      return await next(call);
    } catch (error) {
      const data = (error as { data?: unknown }).data;
      const revert = typeof data === "object" && data !== null ? (data as { data?: unknown }).data : data;
      if (typeof revert === "string" && revert.startsWith("0x")) return revert;
      throw error;
    }
  },
  async eth_sendRawTransaction(call, next) {
    try {
      return await next(call);
    } catch (error) {
      if (!/revert/i.test((error as Error).message)) throw error;
      return keccak256(call.params[0] as Hex);
    }
  },
};

/**
 * A settlement the chain refuses for good used to be treated as an unreachable chain: the settle answered 503, the
 * lease was reset and the background pass resent a reverting transaction every pass until the buyer-chosen
 * `validBefore` (ten years, if the buyer signed that), burning the relayer's gas and holding up the serial pass that
 * also sends strikes and expires reservations. The attacker (any exact buyer) gains a free griefing lever: one
 * verified payment whose funds he moves away afterwards.
 */
describe("a settlement the chain refuses for good", function () {
  let chain: LocalChain;
  let resourceId: Hex;
  const buyer = privateKeyToAccount(devKey(EXACT_BUYER));
  const relayer = privateKeyToAccount(devKey(ROLE.relayer)).address;
  const now = () => Math.floor(Date.now() / 1000);

  before(async function () {
    chain = await startLocalChain();
    resourceId = await chain.registerResource({ slug: "echo", cap: CAP });
  });

  after(async function () {
    await chain?.close();
  });

  async function verifiedExactPayment(facilitatorUrl: string) {
    await chain.contracts.token.write.mint([buyer.address, CAP]);
    const payload = await signExactPayment({
      account: buyer,
      token: chain.addresses.token,
      escrow: chain.addresses.escrow,
      value: CAP,
      validBefore: BigInt(now() + 3_000),
      resourceId,
    });
    const v = await postJson(`${facilitatorUrl}/verify`, {
      paymentPayload: payload,
      resourceId,
      maxTimeoutSeconds: 60,
    });
    expect(v.body).to.include({ isValid: true });
    return payload;
  }

  const sentByRelayer = () => chain.publicClient.getTransactionCount({ address: relayer, blockTag: "pending" });

  async function reservationOf(facilitator: Awaited<ReturnType<typeof startFacilitator>>, idemKey: Hex) {
    const [row] = await facilitator.ctx.store.query<{ status: string; failure: string | null }>(
      "SELECT status, failure FROM reservation WHERE idem_key = $1",
      [idemKey],
    );
    return row;
  }

  it("an exact buyer who moves his funds after verify gets settlement_failed at once; no reverting transaction is ever sent", async function () {
    const facilitator = await startFacilitator(chain, { backgroundIntervalMs: 50 });
    try {
      const payload = await verifiedExactPayment(facilitator.url);
      const balance = await chain.contracts.token.read.balanceOf([buyer.address]);
      const wallet = chain.wallets[EXACT_BUYER];
      if (!wallet) throw new Error("no wallet for the exact buyer");
      await chain.contracts.token.write.transfer([chain.address(ROLE.other), balance], { account: wallet.account });
      const sentBefore = await sentByRelayer();

      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: CAP.toString(),
        response,
      });
      expect(settled.status).to.equal(409);
      expect(settled.body.error.code).to.equal("settlement_failed");
      const row = await reservationOf(facilitator, payload.authorization.nonce);
      expect(row?.status).to.equal("released");
      // FiatToken refuses with a string, Error(string): a revert, told apart from an unreachable chain.
      expect(row?.failure).to.match(/ERC20: transfer amount exceeds balance/);

      // Several background passes later, still nothing was sent for it.
      await sleep(500);
      expect(await sentByRelayer()).to.equal(sentBefore);
    } finally {
      await facilitator.stop();
    }
  });

  it("behind a node that answers a reverting call as a result, an exact payment whose funds left after verify is sent once, failed once and never resent", async function () {
    this.timeout(120_000);
    const rpc = await serveRpcProxy(chain.connection.provider, revertsAsResults);
    const facilitator = await startFacilitator(chain, {
      backgroundIntervalMs: 50,
      env: { RPC_URL: rpc.url, LOG_LEVEL: "silent" },
    });
    try {
      const payload = await verifiedExactPayment(facilitator.url);
      const balance = await chain.contracts.token.read.balanceOf([buyer.address]);
      const wallet = chain.wallets[EXACT_BUYER];
      if (!wallet) throw new Error("no wallet for the exact buyer");
      await chain.contracts.token.write.transfer([chain.address(ROLE.other), balance], { account: wallet.account });
      const sentBefore = await sentByRelayer();

      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: CAP.toString(),
        response,
      });
      expect(settled.status, JSON.stringify(settled.body)).to.equal(409);
      expect(settled.body.error.code).to.equal("settlement_failed");
      const row = await reservationOf(facilitator, payload.authorization.nonce);
      expect(row?.status).to.equal("released");
      expect(row?.failure).to.match(/^reverted on chain in 0x[0-9a-f]{64}$/);
      // The simulation passed, so one transaction went out and reverted; the retrier's backoff (1, 2, 4 s) would
      // have sent it again twice in the next four seconds.
      await sleep(4_000);
      expect(await sentByRelayer(), "transactions sent for the payment").to.equal(sentBefore + 1);
      expect(rpc.calls("eth_call"), "the simulations went through the node").to.be.greaterThan(0);
    } finally {
      await facilitator.stop();
      await rpc.close();
    }
  });

  it("a cancelled exact authorization is refused at settle at once, with the escrow's reason recorded", async function () {
    const facilitator = await startFacilitator(chain, { backgroundIntervalMs: 50 });
    try {
      const payload = await verifiedExactPayment(facilitator.url);
      const signature = await buyer.signTypedData({
        domain: tokenDomain(chain.addresses.token),
        types: cancelAuthorizationTypes,
        primaryType: "CancelAuthorization",
        message: { authorizer: buyer.address, nonce: payload.authorization.nonce },
      });
      await chain.contracts.token.write.cancelAuthorization([
        getAddress(buyer.address),
        payload.authorization.nonce,
        signature,
      ]);
      const sentBefore = await sentByRelayer();
      const settled = await postJson(`${facilitator.url}/settle`, {
        idemKey: payload.authorization.nonce,
        resourceId,
        amount: CAP.toString(),
        response,
      });
      expect(settled.status).to.equal(409);
      const row = await reservationOf(facilitator, payload.authorization.nonce);
      expect(row?.status).to.equal("released");
      expect(row?.failure).to.match(/AuthorizationAlreadyUsed/);
      expect(await sentByRelayer()).to.equal(sentBefore);
    } finally {
      await facilitator.stop();
    }
  });

  it("verify refuses an authorization that stays valid ten years: retries could never end", async function () {
    const facilitator = await startFacilitator(chain);
    try {
      await chain.contracts.token.write.mint([buyer.address, CAP]);
      const payload = await signExactPayment({
        account: buyer,
        token: chain.addresses.token,
        escrow: chain.addresses.escrow,
        value: CAP,
        validBefore: BigInt(now() + 10 * 365 * 86_400),
        resourceId,
      });
      const v = await postJson(`${facilitator.url}/verify`, {
        paymentPayload: payload,
        resourceId,
        maxTimeoutSeconds: 60,
      });
      expect(v.body).to.include({ isValid: false, invalidReason: "invalid_payload" });
    } finally {
      await facilitator.stop();
    }
  });
});
