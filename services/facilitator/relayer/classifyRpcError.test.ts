import { expect } from "chai";
import type { Hex, PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { httpRateLimit, jsonRpcRateLimit, serveRpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { CHAIN_ID } from "../../protocol/constants.ts";
import { classifyRpcError, rpcErrorReason } from "./classifyRpcError.ts";

/** Each error is the real one viem throws for the node's (or the proxy's) real answer. */
describe("classifyRpcError", function () {
  let chain: LocalChain;
  let rpc: RpcProxy;
  let publicClient: PublicClient;
  const sender = privateKeyToAccount(devKey(ROLE.relayer2));

  before(async function () {
    chain = await startLocalChain();
    rpc = await serveRpcProxy(chain.connection.provider);
    const transport = http(rpc.url, { retryCount: 0 });
    publicClient = createPublicClient({ chain: serviceChain(rpc.url), transport }) as PublicClient;
  });

  after(async function () {
    await rpc?.close();
    await chain?.close();
  });

  async function sendError(
    overrides: { key?: Hex; nonce?: number; maxFeePerGas?: bigint; value?: bigint } = {},
  ): Promise<unknown> {
    const account = overrides.key ? privateKeyToAccount(overrides.key) : sender;
    const fees =
      overrides.maxFeePerGas === undefined
        ? await publicClient.estimateFeesPerGas()
        : { maxFeePerGas: overrides.maxFeePerGas, maxPriorityFeePerGas: 0n };
    const serializedTransaction = await account.signTransaction({
      type: "eip1559",
      chainId: CHAIN_ID,
      to: chain.address(ROLE.other),
      value: overrides.value ?? 0n,
      gas: 21_000n,
      nonce:
        overrides.nonce ?? (await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" })),
      ...fees,
    });
    try {
      await publicClient.sendRawTransaction({ serializedTransaction });
    } catch (error) {
      return error;
    }
    throw new Error("the send was accepted");
  }

  it("a JSON-RPC -32005 inside an HTTP 200 is a rate limit", async function () {
    rpc.failNext("eth_sendRawTransaction", jsonRpcRateLimit());
    expect(classifyRpcError(await sendError())).to.equal("rate_limited");
  });

  it("an HTTP 429 is a rate limit, not a transport failure", async function () {
    rpc.failNext("eth_sendRawTransaction", httpRateLimit());
    expect(classifyRpcError(await sendError())).to.equal("rate_limited");
  });

  it("a nonce already used is nonce_too_low", async function () {
    await publicClient.sendRawTransaction({
      serializedTransaction: await sender.signTransaction({
        type: "eip1559",
        chainId: CHAIN_ID,
        to: chain.address(ROLE.other),
        gas: 21_000n,
        nonce: await publicClient.getTransactionCount({ address: sender.address, blockTag: "pending" }),
        ...(await publicClient.estimateFeesPerGas()),
      }),
    });
    expect(classifyRpcError(await sendError({ nonce: 0 }))).to.equal("nonce_too_low");
  });

  it("a fee below the block's base fee is underpriced", async function () {
    const error = await sendError({ maxFeePerGas: 1n });
    expect(classifyRpcError(error), rpcErrorReason(error)).to.equal("underpriced");
  });

  it("a signer without gas is insufficient_funds", async function () {
    expect(classifyRpcError(await sendError({ key: generatePrivateKey() }))).to.equal("insufficient_funds");
  });

  it("a call that reverts is reverted", async function () {
    let error: unknown;
    try {
      await publicClient.call({ to: chain.addresses.escrow, data: "0xdeadbeef" });
    } catch (e) {
      error = e;
    }
    expect(classifyRpcError(error)).to.equal("reverted");
  });

  it("an unreachable node is transport", async function () {
    await rpc.stop();
    try {
      expect(classifyRpcError(await sendError({ nonce: 0, maxFeePerGas: 10n ** 9n }))).to.equal("transport");
    } finally {
      await rpc.resume();
    }
  });

  it("its reason names the node's words and never holds the signed transaction", async function () {
    rpc.failNext("eth_sendRawTransaction", httpRateLimit());
    const error = await sendError();
    expect((error as Error).message).to.match(/0x02f8[0-9a-f]{100,}/, "viem's message holds the raw transaction");
    const reason = rpcErrorReason(error);
    expect(reason).not.to.match(/0x[0-9a-f]{130,}/);
    expect(reason).not.to.include("\n");
  });
});
