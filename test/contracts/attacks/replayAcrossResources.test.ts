import { expect } from "chai";
import { network } from "hardhat";
import type { Address } from "viem";
import { getAddress, getContractAddress } from "viem";
import { DEFAULTS } from "../../../ignition/modules/parts.ts";
import StackModule from "../../../ignition/modules/Stack.ts";
import { circleArtifactOf } from "../../../services/protocol/artifacts.ts";
import { escrowDomain } from "../../../services/protocol/typedData.ts";
import type { Stack } from "../fixtures.ts";
import {
  deployFundedEscrow,
  fundBuyer,
  mined,
  networkHelpers,
  nonceOf,
  registerResource,
  signDebit,
  signedDebit,
  USDC,
  viem,
} from "../fixtures.ts";

/**
 * A buyer's signed DebitAuthorization pays for one call, once, to one resource, through one escrow on one chain.
 * Every way of replaying it elsewhere must fail.
 */
describe("replay of a DebitAuthorization across resources, escrows and chains", function () {
  async function setup() {
    const stack = await networkHelpers.loadFixture(deployFundedEscrow);
    const { buyer, relayer, payout, other } = stack.accounts;
    const news = await registerResource(stack, { slug: "news", payout: other.account.address });
    return { ...stack, buyer, payout, other, news: news.resourceId, relayerAccount: { account: relayer.account } };
  }

  describe("when the same nonce is submitted again", function () {
    it("reverts NonceAlreadyUsed(buyer, nonce) for the very same signed debit", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, nonce: nonceOf("once"), amount: 1_000n });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([item], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, item.authorization.nonce],
      );
      expect(await stack.escrow.read.balanceOf([stack.buyer.account.address])).to.equal(100n * USDC - 1_000n);
    });

    it("reverts NonceAlreadyUsed(buyer, nonce) for a new authorization to another resource with the same nonce", async function () {
      const stack = await setup();
      const nonce = nonceOf("shared idemKey");
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1_000n })],
          stack.relayerAccount,
        ),
      );
      const other = await signedDebit(stack, { resourceId: stack.news, nonce, amount: 1_000n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([other], stack.relayerAccount),
        stack.escrow,
        "NonceAlreadyUsed",
        [stack.buyer.account.address, nonce],
      );
      expect(await stack.escrow.read.earningsOf([stack.other.account.address])).to.equal(0n);
    });

    it("lets another buyer use the same nonce: nonces are spent per buyer", async function () {
      const stack = await setup();
      const nonce = nonceOf("same bytes");
      await fundBuyer(stack, stack.other, USDC);
      await mined(
        stack,
        stack.escrow.write.debit(
          [await signedDebit(stack, { resourceId: stack.resourceId, nonce, amount: 1_000n })],
          stack.relayerAccount,
        ),
      );
      const theirs = await signedDebit(stack, {
        resourceId: stack.resourceId,
        nonce,
        amount: 1_000n,
        buyer: getAddress(stack.other.account.address),
        signer: stack.other,
      });
      await viem.assertions.emit(
        stack.escrow.write.debit([theirs], stack.relayerAccount),
        stack.escrow,
        "BatchDebited",
      );
    });
  });

  describe("when the relayer rebinds a signed authorization to another resource", function () {
    it("reverts InvalidSignature(buyer) and the other creator is credited nothing", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      const rebound = { ...item, authorization: { ...item.authorization, resourceId: stack.news } };
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([rebound], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
      expect(await stack.escrow.read.earningsOf([stack.other.account.address])).to.equal(0n);
      expect(await stack.escrow.read.nonceUsed([stack.buyer.account.address, item.authorization.nonce])).to.equal(
        false,
      );
    });

    it("reverts InvalidSignature for any other field changed: buyer, cap, validity window, nonce", async function () {
      const stack = await setup();
      await fundBuyer(stack, stack.other, USDC);
      const item = await signedDebit(stack, { resourceId: stack.resourceId, maxAmount: 1_000n, amount: 1_000n });
      const a = item.authorization;
      const tampered = [
        { ...a, buyer: getAddress(stack.other.account.address) },
        { ...a, maxAmount: a.maxAmount + 1n },
        { ...a, validAfter: 1n },
        { ...a, validBefore: a.validBefore + 1n },
        { ...a, nonce: nonceOf("other nonce") },
      ];
      for (const authorization of tampered) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.escrow.write.debit([{ ...item, authorization }], stack.relayerAccount),
          stack.escrow,
          "InvalidSignature",
          [authorization.buyer],
        );
      }
    });
  });

  describe("when the signature was made for another escrow address", function () {
    it("reverts InvalidSignature(buyer) on the other escrow, even though the buyer has funds there", async function () {
      const stack = await setup();
      const { admin, treasury, relayer } = stack.accounts;
      const second = await viem.deployContract("PaymentEscrow", [
        stack.token.address,
        stack.registry.address,
        treasury.account.address,
        500,
        admin.account.address,
        DEFAULTS.adminDelay,
      ]);
      await mined(
        stack,
        second.write.grantRole([await second.read.RELAYER_ROLE(), relayer.account.address], { account: admin.account }),
      );
      await mined(stack, stack.token.write.mint([stack.buyer.account.address, USDC], { account: admin.account }));
      await mined(stack, stack.token.write.approve([second.address, USDC], { account: stack.buyer.account }));
      await mined(stack, second.write.deposit([USDC], { account: stack.buyer.account }));

      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        second.write.debit([item], stack.relayerAccount),
        second,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));
      await viem.assertions.revertWithCustomErrorWithArgs(
        second.write.debit([item], stack.relayerAccount),
        second,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
      expect(await second.read.balanceOf([stack.buyer.account.address])).to.equal(USDC);
    });
  });

  describe("when the signature was made for another chain id", function () {
    it("reverts InvalidSignature(buyer) for a signature under chain id 1 presented on chain 5042002", async function () {
      const stack = await setup();
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n });
      const signature = await signDebit(stack.escrow.address, stack.buyer, item.authorization, {
        ...escrowDomain(stack.escrow.address),
        chainId: 1,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.escrow.write.debit([{ ...item, signature }], stack.relayerAccount),
        stack.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
    });

    it("reverts InvalidSignature(buyer) on a twin deployment at the same address on chain 1", async function () {
      const stack = await setup();
      const farFuture = BigInt(await networkHelpers.time.latest()) + 10n * 365n * 86_400n;
      const item = await signedDebit(stack, { resourceId: stack.resourceId, amount: 1_000n, validBefore: farFuture });
      await mined(stack, stack.escrow.write.debit([item], stack.relayerAccount));

      const twin = await deployTwinOnChain(1, stack);
      expect(await twin.publicClient.getChainId()).to.equal(1);
      expect(getAddress(twin.escrow.address)).to.equal(getAddress(stack.escrow.address));
      expect(await twin.escrow.read.DOMAIN_SEPARATOR()).to.not.equal(await stack.escrow.read.DOMAIN_SEPARATOR());
      const twinResource = await registerResource(twin, { slug: "weather" });
      expect(twinResource.resourceId).to.equal(stack.resourceId);
      await fundBuyer(twin, twin.accounts.buyer, 100n * USDC);

      await twin.viem.assertions.revertWithCustomErrorWithArgs(
        twin.escrow.write.debit([item], { account: twin.accounts.relayer.account }),
        twin.escrow,
        "InvalidSignature",
        [stack.buyer.account.address],
      );
      expect(await twin.escrow.read.balanceOf([twin.accounts.buyer.account.address])).to.equal(100n * USDC);
    });
  });
});

/**
 * The same Stack module, deployed by the same accounts in the same order from the same nonce as `like`, on a fresh
 * chain with another chain id: every contract at the same address.
 */
async function deployTwinOnChain(
  chainId: number,
  like: Stack,
): Promise<Stack & { viem: Awaited<ReturnType<typeof network.create>>["viem"] }> {
  const connection = await network.create({ override: { chainId } });
  const [admin, relayer, facilitator, treasury, creator, buyer, other, payout] =
    await connection.viem.getWalletClients();
  await connection.networkHelpers.setNonce(admin!.account.address, await deploymentNonce(admin!.account.address, like));
  const deployed = await connection.ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: admin!.account.address,
        treasury: treasury!.account.address,
        relayer: relayer!.account.address,
        facilitator: facilitator!.account.address,
      },
    },
  });
  return {
    viem: connection.viem,
    token: await connection.viem.getContractAt("IFiatToken", deployed.token.address),
    identity: await connection.viem.getContractAt("IdentityRegistry", deployed.identity.address),
    registry: await connection.viem.getContractAt("ResourceRegistry", deployed.registry.address),
    escrow: await connection.viem.getContractAt("PaymentEscrow", deployed.escrow.address),
    publicClient: await connection.viem.getPublicClient(),
    accounts: {
      admin: admin!,
      relayer: relayer!,
      facilitator: facilitator!,
      treasury: treasury!,
      creator: creator!,
      buyer: buyer!,
      other: other!,
      payout: payout!,
    },
  };
}

/**
 * The nonce with which `deployer` sent the first transaction of `stack`'s deployment (one of its four contracts or
 * the token's SignatureChecker library, whose address is linked into the token's code). The chain the fixtures
 * share carries whatever the test files run before this one deployed, so a twin gets the same addresses only when
 * its deployer starts from that nonce.
 */
async function deploymentNonce(deployer: Address, stack: Stack): Promise<number> {
  const code = (await stack.publicClient.getCode({ address: stack.token.address })) ?? "0x";
  const [reference] = Object.values(circleArtifactOf("FiatTokenV2_2").deployedLinkReferences).flatMap((byName) =>
    Object.values(byName).flat(),
  );
  if (!reference) throw new Error("FiatTokenV2_2 links no library");
  const library = getAddress(`0x${code.slice(2 + reference.start * 2, 2 + (reference.start + reference.length) * 2)}`);
  const addresses = [stack.token, stack.identity, stack.registry, stack.escrow]
    .map((c) => getAddress(c.address))
    .concat(library);
  for (let nonce = 0; nonce < 100_000; nonce++)
    if (addresses.includes(getContractAddress({ from: deployer, nonce: BigInt(nonce) }))) return nonce;
  throw new Error(`${deployer} did not deploy this stack`);
}
