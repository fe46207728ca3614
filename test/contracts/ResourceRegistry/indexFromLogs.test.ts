import { expect } from "chai";
import type { Address, Hex } from "viem";
import { keccak256, toHex } from "viem";
import { bondNonce } from "../../../services/protocol/bondNonce.ts";
import type { Pricing, Stack } from "../fixtures.ts";
import {
  buildRegistration,
  deployTypedStack,
  mintAgent,
  NO_BOND,
  networkHelpers,
  registerResource,
  resourceIdFor,
  signRegisterResource,
  signTokenAuthorization,
  USDC,
} from "../fixtures.ts";

/** One resource as an indexer would hold it, built from ResourceRegistry events alone. */
type IndexedResource = {
  payout: Address;
  active: boolean;
  strikes: number;
  deactivatedAt: number;
  retired: boolean;
  creator: Address;
  slashedAt: number;
  agentId: bigint;
  bond: bigint;
  pricing: Pricing;
  slug: string;
  category: string;
  cardURI: string;
  cardHash: Hex;
};

/** Replays every ResourceRegistry event, in log order, into resource rows keyed by resource id. */
async function indexFromLogs(stack: Stack): Promise<Map<Hex, IndexedResource>> {
  const { publicClient, registry } = stack;
  const logs = await publicClient.getContractEvents({ address: registry.address, abi: registry.abi, fromBlock: 0n });
  const rows = new Map<Hex, IndexedResource>();
  const row = (resourceId: Hex): IndexedResource => {
    const found = rows.get(resourceId);
    if (found === undefined) throw new Error(`event for unregistered resource ${resourceId}`);
    return found;
  };
  for (const log of logs) {
    switch (log.eventName) {
      case "ResourceRegistered": {
        const a = log.args;
        rows.set(a.resourceId!, {
          payout: a.payout!,
          active: true,
          strikes: 0,
          deactivatedAt: 0,
          retired: false,
          creator: a.creator!,
          slashedAt: 0,
          agentId: a.agentId!,
          bond: 0n,
          pricing: { ...a.pricing! },
          slug: a.slug!,
          category: a.category!,
          cardURI: a.cardURI!,
          cardHash: a.cardHash!,
        });
        break;
      }
      case "PricingUpdated":
        row(log.args.resourceId!).pricing = { ...log.args.pricing! };
        break;
      case "CardUpdated":
        Object.assign(row(log.args.resourceId!), { cardURI: log.args.cardURI!, cardHash: log.args.cardHash! });
        break;
      case "PayoutUpdated":
        row(log.args.resourceId!).payout = log.args.payout!;
        break;
      case "ResourceDeactivated": {
        const block = await publicClient.getBlock({ blockNumber: log.blockNumber });
        Object.assign(row(log.args.resourceId!), { active: false, deactivatedAt: Number(block.timestamp) });
        break;
      }
      case "ResourceReactivated":
        Object.assign(row(log.args.resourceId!), { active: true, deactivatedAt: 0 });
        break;
      case "BondPosted":
        row(log.args.resourceId!).bond = log.args.bond!;
        break;
      case "BondWithdrawn":
        Object.assign(row(log.args.resourceId!), {
          bond: row(log.args.resourceId!).bond - log.args.amount!,
          retired: true,
        });
        break;
      case "StrikeRecorded":
        row(log.args.resourceId!).strikes = log.args.strikes!;
        break;
      case "BondSlashed": {
        const block = await publicClient.getBlock({ blockNumber: log.blockNumber });
        Object.assign(row(log.args.resourceId!), {
          bond: log.args.bond!,
          strikes: 0,
          slashedAt: Number(block.timestamp),
        });
        break;
      }
      default:
        break;
    }
  }
  return rows;
}

function normalized(resource: IndexedResource) {
  return { ...resource, payout: resource.payout.toLowerCase(), creator: resource.creator.toLowerCase() };
}

describe("ResourceRegistry: the index can be derived from logs", function () {
  it("rebuilds every resource from events alone, equal to getResource after a mixed history", async function () {
    const stack = await networkHelpers.loadFixture(deployTypedStack);
    const { registry, token, accounts } = stack;
    const asAdmin = { account: accounts.admin.account };
    const asCreator = { account: accounts.creator.account };
    const asOther = { account: accounts.other.account };
    const asFacilitator = { account: accounts.facilitator.account };
    const strike = (id: Hex, label: string) =>
      registry.write.recordStrike([id, accounts.buyer.account.address, keccak256(toHex(label)), label], asFacilitator);

    await token.write.mint([accounts.creator.account.address, 50n * USDC], asAdmin);
    await token.write.mint([accounts.other.account.address, 50n * USDC], asAdmin);
    await token.write.mint([accounts.buyer.account.address, 50n * USDC], asAdmin);

    const weather = (await registerResource(stack, { slug: "weather", category: "data" })).resourceId;
    const maps = (
      await registerResource(stack, { slug: "maps", category: "geo", pricing: { base: 1n, perKB: 2n, max: 3n } })
    ).resourceId;

    const otherAgent = await mintAgent(stack, accounts.other);
    const translate = buildRegistration(stack, {
      agentId: otherAgent,
      slug: "translate",
      category: "nlp",
      payout: accounts.other.account.address,
    });
    const deadline = BigInt((await networkHelpers.time.latest()) + 3600);
    const signature = await signRegisterResource(
      stack,
      accounts.other,
      accounts.other.account.address,
      translate,
      deadline,
    );
    await registry.write.registerFor(
      [accounts.other.account.address, translate, deadline, signature, NO_BOND],
      asOther,
    );
    const translateId = resourceIdFor(accounts.other.account.address, "translate");

    await registry.write.updatePricing([weather, { base: 5n, perKB: 6n, max: 70n }], asCreator);
    await registry.write.updateCard([weather, "https://weather.example/v2.json", keccak256(toHex("v2"))], asCreator);
    await registry.write.setPayout([maps, accounts.buyer.account.address], asCreator);
    await registry.write.setPayout([translateId, accounts.payout.account.address], asOther);

    await token.write.approve([registry.address, 20n * USDC], asCreator);
    await registry.write.postBond([weather, 6n * USDC], asCreator);
    await registry.write.postBond([maps, 4n * USDC], asCreator);
    await token.write.approve([registry.address, USDC], { account: accounts.buyer.account });
    await registry.write.postBond([weather, USDC], { account: accounts.buyer.account });
    const authorization = {
      from: accounts.other.account.address,
      to: registry.address,
      value: 9n * USDC,
      validAfter: 0n,
      validBefore: BigInt((await networkHelpers.time.latest()) + 3600),
      nonce: bondNonce(translateId),
    };
    const bondSignature = await signTokenAuthorization(
      stack,
      accounts.other,
      "ReceiveWithAuthorization",
      authorization,
    );
    await registry.write.postBondWithAuthorization(
      [
        translateId,
        authorization.from,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        bondSignature,
      ],
      asAdmin,
    );

    await strike(weather, "w1");
    await strike(weather, "w2");
    await strike(translateId, "t1");
    await strike(translateId, "t2");
    await strike(translateId, "t3");
    await registry.write.reactivate([translateId], asOther);
    await strike(translateId, "t4");

    await registry.write.setStrikePolicy([3, 2_500, 0n], asAdmin);
    for (const label of ["m1", "m2", "m3"]) await strike(maps, label);
    await registry.write.deactivate([weather], asCreator);
    await networkHelpers.time.increase(3600);
    await registry.write.reactivate([weather], asCreator);
    await networkHelpers.time.increase(3600);
    await registry.write.deactivate([weather], asCreator);
    await networkHelpers.time.increase(7 * 24 * 3600);
    await registry.write.withdrawBond([weather], asCreator);
    await registry.write.postBond([weather, 2n * USDC], asCreator);
    await registry.write.updatePricing([maps, { base: 9n, perKB: 9n, max: 9n }], asCreator);

    const index = await indexFromLogs(stack);
    expect([...index.keys()].sort()).to.deep.equal([weather, maps, translateId].sort());
    for (const [resourceId, indexed] of index) {
      const onChain = await registry.read.getResource([resourceId]);
      expect(normalized(indexed)).to.deep.equal(
        normalized({ ...onChain, pricing: { ...onChain.pricing } }),
        `resource ${indexed.slug} differs between logs and getResource`,
      );
    }

    const expectedShapes = {
      weather: { active: false, bond: 2n * USDC, strikes: 2 },
      maps: { active: false, bond: 3n * USDC, strikes: 0 },
      translate: { active: true, bond: 9n * USDC - (9n * USDC) / 2n, strikes: 1 },
    };
    for (const [id, slug] of [
      [weather, "weather"],
      [maps, "maps"],
      [translateId, "translate"],
    ] as const) {
      const { active, bond, strikes } = index.get(id)!;
      expect({ active, bond, strikes }).to.deep.equal(expectedShapes[slug]);
    }
  });
});
