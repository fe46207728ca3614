import { expect } from "chai";
import type { Hex } from "viem";
import { keccak256, toHex, zeroAddress } from "viem";
import { REGISTER_RESOURCE_TYPE } from "../../../services/protocol/typedData.ts";
import type { Registration, Stack } from "../fixtures.ts";
import {
  buildRegistration,
  DEFAULT_PRICING,
  deployTypedStack,
  mintAgent,
  networkHelpers,
  registerResource,
  resourceIdFor,
  viem,
} from "../fixtures.ts";

describe("ResourceRegistry: registration", function () {
  let stack: Stack;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
  });

  describe("when deployed by the Stack module", function () {
    it("exposes its constants, wiring and initial policy", async function () {
      const { registry, token, identity, accounts } = stack;
      expect(await registry.read.FACILITATOR_ROLE()).to.equal(keccak256(toHex("FACILITATOR_ROLE")));
      expect(await registry.read.REGISTER_RESOURCE_TYPEHASH()).to.equal(keccak256(toHex(REGISTER_RESOURCE_TYPE)));
      expect(await registry.read.MAX_SLUG_BYTES()).to.equal(64n);
      expect(await registry.read.BPS()).to.equal(10_000);
      expect((await registry.read.token()).toLowerCase()).to.equal(token.address.toLowerCase());
      expect((await registry.read.identity()).toLowerCase()).to.equal(identity.address.toLowerCase());
      expect(await registry.read.bondWithdrawalDelay()).to.equal(7n * 24n * 60n * 60n);
      expect((await registry.read.treasury()).toLowerCase()).to.equal(accounts.treasury.account.address);
      expect(await registry.read.strikeThreshold()).to.equal(3);
      expect(await registry.read.slashBps()).to.equal(5_000);
      expect(await registry.read.minBond()).to.equal(0n);
    });

    it("signs under the EIP-712 domain {ResourceRegistry, 1} on chain 5042002", async function () {
      const [fields, name, version, chainId, verifyingContract, salt, extensions] =
        await stack.registry.read.eip712Domain();
      expect(fields).to.equal("0x0f");
      expect(name).to.equal("ResourceRegistry");
      expect(version).to.equal("1");
      expect(chainId).to.equal(5042002n);
      expect(verifyingContract.toLowerCase()).to.equal(stack.registry.address.toLowerCase());
      expect(salt).to.equal(`0x${"00".repeat(32)}`);
      expect(extensions).to.deep.equal([]);
    });

    it("grants DEFAULT_ADMIN_ROLE to the admin and FACILITATOR_ROLE to the facilitator only", async function () {
      const { registry, accounts } = stack;
      const role = await registry.read.FACILITATOR_ROLE();
      expect(
        await registry.read.hasRole([await registry.read.DEFAULT_ADMIN_ROLE(), accounts.admin.account.address]),
      ).to.equal(true);
      expect(await registry.read.hasRole([role, accounts.facilitator.account.address])).to.equal(true);
      expect(await registry.read.hasRole([role, accounts.other.account.address])).to.equal(false);
      expect(await registry.read.getRoleAdmin([role])).to.equal(await registry.read.DEFAULT_ADMIN_ROLE());
      expect(await registry.read.supportsInterface(["0x7965db0b"])).to.equal(true);
      expect(await registry.read.supportsInterface(["0xffffffff"])).to.equal(false);
    });
  });

  describe("when constructed with bad arguments", function () {
    async function deployWith(overrides: {
      token?: Hex;
      identity?: Hex;
      treasury?: Hex;
      admin?: Hex;
      threshold?: number;
      bps?: number;
      adminDelay?: number;
    }) {
      const { token, identity, accounts } = stack;
      return viem.deployContract("ResourceRegistry", [
        overrides.token ?? token.address,
        overrides.identity ?? identity.address,
        overrides.treasury ?? accounts.treasury.account.address,
        overrides.admin ?? accounts.admin.account.address,
        overrides.threshold ?? 3,
        overrides.bps ?? 5_000,
        0n,
        60n,
        overrides.adminDelay ?? 3_600,
      ]);
    }

    it("reverts with ZeroAddress for a zero token, identity or treasury", async function () {
      for (const field of ["token", "identity", "treasury"] as const) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          deployWith({ [field]: zeroAddress }),
          stack.registry,
          "ZeroAddress",
          [],
        );
      }
    });

    it("reverts with AccessControlInvalidDefaultAdmin for a zero admin", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        deployWith({ admin: zeroAddress }),
        stack.registry,
        "AccessControlInvalidDefaultAdmin",
        [zeroAddress],
      );
    });

    it("reverts with InvalidStrikePolicy for a threshold below 3 or a share above 5000 bps", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        deployWith({ threshold: 2 }),
        stack.registry,
        "InvalidStrikePolicy",
        [2, 5_000],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        deployWith({ bps: 5_001 }),
        stack.registry,
        "InvalidStrikePolicy",
        [3, 5_001],
      );
    });

    it("deploys with the harshest valid policy (threshold 3, 5000 bps) and emits the policy and treasury", async function () {
      const registry = await deployWith({ threshold: 3, bps: 5_000, adminDelay: 7_200 });
      expect(await registry.read.strikeThreshold()).to.equal(3);
      expect(await registry.read.slashBps()).to.equal(5_000);
      expect(await registry.read.defaultAdminDelay()).to.equal(7_200);
      const deployment = await stack.publicClient.getContractEvents({
        address: registry.address,
        abi: registry.abi,
        fromBlock: 0n,
      });
      const names = deployment.map((log) => log.eventName);
      expect(names).to.include.members(["TreasuryChanged", "StrikePolicyChanged", "RoleGranted"]);
    });
  });

  describe("resourceIdOf", function () {
    it("is keccak256(abi.encode(creator, slug)), as computed off-chain", async function () {
      const creator = stack.accounts.creator.account.address;
      for (const slug of ["weather", "a", "x".repeat(64), "üñí-côdé"]) {
        expect(await stack.registry.read.resourceIdOf([creator, slug])).to.equal(resourceIdFor(creator, slug));
      }
    });

    it("differs per creator for the same slug", async function () {
      const { creator, other } = stack.accounts;
      expect(resourceIdFor(creator.account.address, "weather")).to.not.equal(
        resourceIdFor(other.account.address, "weather"),
      );
    });
  });

  describe("register", function () {
    describe("when the caller owns the agent", function () {
      it("stores the resource, binds the agent and returns the resource id", async function () {
        const { registry, accounts } = stack;
        const agentId = await mintAgent(stack, accounts.creator);
        const registration = buildRegistration(stack, { agentId, slug: "weather" });
        const expectedId = resourceIdFor(accounts.creator.account.address, "weather");
        const { result } = await registry.simulate.register([registration], {
          account: accounts.creator.account.address,
        });
        expect(result).to.equal(expectedId);

        await registry.write.register([registration], { account: accounts.creator.account });
        const resource = await registry.read.getResource([expectedId]);
        expect(resource.creator.toLowerCase()).to.equal(accounts.creator.account.address);
        expect(resource.payout.toLowerCase()).to.equal(accounts.payout.account.address);
        expect(resource.active).to.equal(true);
        expect(resource.strikes).to.equal(0);
        expect(resource.deactivatedAt).to.equal(0);
        expect(resource.agentId).to.equal(agentId);
        expect(resource.bond).to.equal(0n);
        expect(resource.pricing).to.deep.equal(DEFAULT_PRICING);
        expect(resource.slug).to.equal("weather");
        expect(resource.category).to.equal(registration.category);
        expect(resource.cardURI).to.equal(registration.cardURI);
        expect(resource.cardHash).to.equal(registration.cardHash);
        expect(await registry.read.resourceOfAgent([agentId])).to.equal(expectedId);
      });

      it("emits ResourceRegistered with every field an indexer needs", async function () {
        const { registry, accounts } = stack;
        const agentId = await mintAgent(stack, accounts.creator);
        const registration = buildRegistration(stack, { agentId, slug: "weather", category: "maps" });
        await viem.assertions.emitWithArgs(
          registry.write.register([registration], { account: accounts.creator.account }),
          registry,
          "ResourceRegistered",
          [
            resourceIdFor(accounts.creator.account.address, "weather"),
            accounts.creator.account.address,
            agentId,
            "weather",
            accounts.payout.account.address,
            "maps",
            DEFAULT_PRICING,
            registration.cardURI,
            registration.cardHash,
          ],
        );
      });

      it("makes the resource payable at its payout through paymentTarget", async function () {
        const { resourceId } = await registerResource(stack);
        const [payout, active] = await stack.registry.read.paymentTarget([resourceId]);
        expect(payout.toLowerCase()).to.equal(stack.accounts.payout.account.address);
        expect(active).to.equal(true);
      });

      it("accepts agent id 0, the first id the identity registry mints", async function () {
        const agentId = await mintAgent(stack, stack.accounts.creator);
        expect(agentId).to.equal(0n);
        const { resourceId } = await registerResource(stack, { agentId });
        expect(await stack.registry.read.resourceOfAgent([0n])).to.equal(resourceId);
      });

      it("accepts a 64-byte slug, a 1-byte slug and a cap equal to the base price", async function () {
        const long = await registerResource(stack, { slug: "s".repeat(64) });
        const short = await registerResource(stack, { slug: "s" });
        const flat = await registerResource(stack, { slug: "flat", pricing: { base: 5n, perKB: 0n, max: 5n } });
        expect((await stack.registry.read.getResource([long.resourceId])).slug).to.equal("s".repeat(64));
        expect((await stack.registry.read.getResource([short.resourceId])).slug).to.equal("s");
        expect((await stack.registry.read.getResource([flat.resourceId])).pricing).to.deep.equal({
          base: 5n,
          perKB: 0n,
          max: 5n,
        });
      });

      it("lets two creators use the same slug", async function () {
        const mine = await registerResource(stack, { slug: "weather" });
        const theirs = await registerResource(stack, { slug: "weather", creator: stack.accounts.other });
        expect(mine.resourceId).to.not.equal(theirs.resourceId);
        expect((await stack.registry.read.getResource([theirs.resourceId])).creator.toLowerCase()).to.equal(
          stack.accounts.other.account.address,
        );
      });
    });

    describe("when the caller does not own the agent", function () {
      it("reverts with NotAgentOwner carrying the agent, the caller and the owner", async function () {
        const { registry, accounts } = stack;
        const agentId = await mintAgent(stack, accounts.other);
        const registration = buildRegistration(stack, { agentId });
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.register([registration], { account: accounts.creator.account }),
          registry,
          "NotAgentOwner",
          [agentId, accounts.creator.account.address, accounts.other.account.address],
        );
      });

      it("follows the identity: after a transfer only the new owner can bind it", async function () {
        const { registry, identity, accounts } = stack;
        const agentId = await mintAgent(stack, accounts.other);
        await identity.write.transferFrom([accounts.other.account.address, accounts.creator.account.address, agentId], {
          account: accounts.other.account,
        });
        await viem.assertions.revertWithCustomErrorWithArgs(
          registry.write.register([buildRegistration(stack, { agentId })], { account: accounts.other.account }),
          registry,
          "NotAgentOwner",
          [agentId, accounts.other.account.address, accounts.creator.account.address],
        );
        await registerResource(stack, { agentId });
        expect(await registry.read.resourceOfAgent([agentId])).to.equal(
          resourceIdFor(accounts.creator.account.address, "weather"),
        );
      });
    });

    describe("when the agent does not exist", function () {
      it("reverts with the identity registry's ERC721NonexistentToken", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.register([buildRegistration(stack, { agentId: 42n })], {
            account: stack.accounts.creator.account,
          }),
          stack.identity,
          "ERC721NonexistentToken",
          [42n],
        );
      });
    });

    describe("when the agent is already bound to a resource", function () {
      it("reverts with AgentAlreadyBound carrying the agent and its resource", async function () {
        const { resourceId, agentId } = await registerResource(stack, { slug: "weather" });
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.register([buildRegistration(stack, { agentId, slug: "maps" })], {
            account: stack.accounts.creator.account,
          }),
          stack.registry,
          "AgentAlreadyBound",
          [agentId, resourceId],
        );
      });

      it("stays bound after the resource is deactivated", async function () {
        const { resourceId, agentId } = await registerResource(stack, { slug: "weather" });
        await stack.registry.write.deactivate([resourceId], { account: stack.accounts.creator.account });
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.register([buildRegistration(stack, { agentId, slug: "maps" })], {
            account: stack.accounts.creator.account,
          }),
          stack.registry,
          "AgentAlreadyBound",
          [agentId, resourceId],
        );
      });
    });

    describe("when the creator already registered the slug", function () {
      it("reverts with ResourceExists, even with a fresh agent", async function () {
        const { resourceId } = await registerResource(stack, { slug: "weather" });
        const agentId = await mintAgent(stack, stack.accounts.creator);
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.registry.write.register([buildRegistration(stack, { agentId, slug: "weather" })], {
            account: stack.accounts.creator.account,
          }),
          stack.registry,
          "ResourceExists",
          [resourceId],
        );
      });
    });

    describe("when a field is invalid", function () {
      let agentId: bigint;

      beforeEach(async function () {
        agentId = await mintAgent(stack, stack.accounts.creator);
      });

      function registerAs(registration: Registration) {
        return stack.registry.write.register([registration], { account: stack.accounts.creator.account });
      }

      it("reverts with InvalidSlug for an empty slug", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, slug: "" })),
          stack.registry,
          "InvalidSlug",
          [""],
        );
      });

      it("reverts with InvalidSlug for a slug of 65 bytes", async function () {
        const slug = "s".repeat(65);
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, slug })),
          stack.registry,
          "InvalidSlug",
          [slug],
        );
      });

      it("counts slug bytes, not characters (33 two-byte characters are 66 bytes)", async function () {
        const slug = "é".repeat(33);
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, slug })),
          stack.registry,
          "InvalidSlug",
          [slug],
        );
      });

      it("reverts with ZeroAddress for a zero payout", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, payout: zeroAddress })),
          stack.registry,
          "ZeroAddress",
          [],
        );
      });

      it("reverts with InvalidPricing for a zero cap", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, pricing: { base: 0n, perKB: 1n, max: 0n } })),
          stack.registry,
          "InvalidPricing",
          [0n, 0n],
        );
      });

      it("reverts with InvalidPricing for a cap below the base price", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, pricing: { base: 100n, perKB: 1n, max: 99n } })),
          stack.registry,
          "InvalidPricing",
          [100n, 99n],
        );
      });

      it("leaves the agent unbound after a failed registration", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          registerAs(buildRegistration(stack, { agentId, slug: "" })),
          stack.registry,
          "InvalidSlug",
          [""],
        );
        expect(await stack.registry.read.resourceOfAgent([agentId])).to.equal(`0x${"00".repeat(32)}`);
      });
    });
  });

  describe("getResource", function () {
    it("reverts with UnknownResource for an id never registered", async function () {
      const unknown = resourceIdFor(stack.accounts.creator.account.address, "nothing");
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.registry.read.getResource([unknown]),
        stack.registry,
        "UnknownResource",
        [unknown],
      );
    });
  });

  describe("paymentTarget", function () {
    it("returns the zero payout and inactive for an unknown resource", async function () {
      const [payout, active] = await stack.registry.read.paymentTarget([
        resourceIdFor(stack.accounts.creator.account.address, "nothing"),
      ]);
      expect(payout).to.equal(zeroAddress);
      expect(active).to.equal(false);
    });
  });
});
