import { expect } from "chai";
import type { Address, Hex } from "viem";
import { domainSeparator, getAddress, keccak256, parseEventLogs, toHex, zeroAddress } from "viem";
import type { Signer, Stack } from "../fixtures.ts";
import { deployTypedStack, mintAgent, networkHelpers, viem } from "../fixtures.ts";

const WALLET_KEY = "agentWallet";
const WALLET_KEY_TOPIC = keccak256(toHex(WALLET_KEY));
const AGENT_WALLET_SET_TYPES = {
  AgentWalletSet: [
    { name: "agentId", type: "uint256" },
    { name: "newWallet", type: "address" },
    { name: "owner", type: "address" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

describe("IdentityRegistry (ERC-8004 v2)", function () {
  let stack: Stack;

  beforeEach(async function () {
    stack = await networkHelpers.loadFixture(deployTypedStack);
  });

  function as(signer: Signer) {
    return { account: signer.account };
  }

  function registerAs(signer: Signer, agentURI = "ipfs://agent"): Promise<bigint> {
    return mintAgent(stack, signer, agentURI);
  }

  async function signWalletSet(
    signer: Signer,
    message: { agentId: bigint; newWallet: Address; owner: Address; deadline: bigint },
  ) {
    return signer.signTypedData({
      domain: {
        name: "ERC8004IdentityRegistry",
        version: "1",
        chainId: 5042002,
        verifyingContract: stack.identity.address,
      },
      types: AGENT_WALLET_SET_TYPES,
      primaryType: "AgentWalletSet",
      message,
    });
  }

  async function now(): Promise<bigint> {
    return BigInt(await networkHelpers.time.latest());
  }

  describe("when deployed", function () {
    it("is the AgentIdentity (AGENT) ERC-721 with the ERC-8004 constants", async function () {
      const { identity } = stack;
      expect(await identity.read.name()).to.equal("AgentIdentity");
      expect(await identity.read.symbol()).to.equal("AGENT");
      expect(await identity.read.MAX_DEADLINE_DELAY()).to.equal(300n);
      expect(await identity.read.AGENT_WALLET_SET_TYPEHASH()).to.equal(
        keccak256(toHex("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)")),
      );
      expect(await identity.read.supportsInterface(["0x80ac58cd"])).to.equal(true);
      expect(await identity.read.supportsInterface(["0x49064906"])).to.equal(true);
      expect(await identity.read.supportsInterface(["0xffffffff"])).to.equal(false);
    });

    it("signs under the EIP-712 domain {ERC8004IdentityRegistry, 1}", async function () {
      const { identity } = stack;
      const [, name, version, chainId, verifyingContract] = await identity.read.eip712Domain();
      expect([name, version, chainId]).to.deep.equal(["ERC8004IdentityRegistry", "1", 5042002n]);
      expect(verifyingContract.toLowerCase()).to.equal(identity.address.toLowerCase());
      expect(await identity.read.DOMAIN_SEPARATOR()).to.equal(
        domainSeparator({
          domain: {
            name: "ERC8004IdentityRegistry",
            version: "1",
            chainId: 5042002,
            verifyingContract: identity.address,
          },
        }),
      );
    });
  });

  describe("register", function () {
    it("counts agent ids from 0 across all three overloads", async function () {
      const { identity, accounts } = stack;
      const simulate = (args: [] | [string] | [string, []], who: Signer) =>
        stack.publicClient
          .simulateContract({
            address: identity.address,
            abi: identity.abi,
            functionName: "register",
            args,
            account: who.account.address,
          })
          .then(({ result }) => result);
      expect(await simulate([], accounts.creator)).to.equal(0n);
      await identity.write.register(as(accounts.creator));
      expect(await simulate(["ipfs://1"], accounts.other)).to.equal(1n);
      await identity.write.register(["ipfs://1"], as(accounts.other));
      expect(await simulate(["ipfs://2", []], accounts.buyer)).to.equal(2n);
      await identity.write.register(["ipfs://2", []], as(accounts.buyer));
      expect((await identity.read.ownerOf([0n])).toLowerCase()).to.equal(
        accounts.creator.account.address.toLowerCase(),
      );
      expect((await identity.read.ownerOf([1n])).toLowerCase()).to.equal(accounts.other.account.address.toLowerCase());
      expect((await identity.read.ownerOf([2n])).toLowerCase()).to.equal(accounts.buyer.account.address.toLowerCase());
      expect(await identity.read.balanceOf([accounts.creator.account.address])).to.equal(1n);
    });

    describe("register()", function () {
      it("mints with an empty URI and emits Transfer, Registered and the agentWallet MetadataSet, nothing else", async function () {
        const { identity, accounts, publicClient } = stack;
        const me = accounts.creator.account.address;
        const hash = await identity.write.register(as(accounts.creator));
        await viem.assertions.emitWithArgs(hash, identity, "Transfer", [zeroAddress, me, 0n]);
        await viem.assertions.emitWithArgs(hash, identity, "Registered", [0n, "", me]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataSet", [0n, WALLET_KEY_TOPIC, WALLET_KEY, me]);
        // No URI was set, so no ERC-4906 MetadataUpdate tells indexers to refetch one.
        const { logs } = await publicClient.waitForTransactionReceipt({ hash });
        const events = parseEventLogs({ abi: identity.abi, logs }).map((log) => log.eventName);
        expect(events).to.deep.equal(["Transfer", "Registered", "MetadataSet"]);
        expect(await identity.read.tokenURI([0n])).to.equal("");
      });
    });

    describe("register(agentURI)", function () {
      it("stores the URI and emits Registered with it, and MetadataUpdate", async function () {
        const { identity, accounts } = stack;
        const me = accounts.creator.account.address;
        const hash = await identity.write.register(["ipfs://weather"], as(accounts.creator));
        await viem.assertions.emitWithArgs(hash, identity, "Registered", [0n, "ipfs://weather", me]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataUpdate", [0n]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataSet", [0n, WALLET_KEY_TOPIC, WALLET_KEY, me]);
        expect(await identity.read.tokenURI([0n])).to.equal("ipfs://weather");
      });
    });

    describe("register(agentURI, metadata)", function () {
      it("writes each entry and emits MetadataSet for each, after the agentWallet one", async function () {
        const { identity, accounts, publicClient } = stack;
        const me = accounts.creator.account.address;
        const entries = [
          { metadataKey: "category", metadataValue: toHex("data") },
          { metadataKey: "version", metadataValue: "0x01" as Hex },
        ];
        const hash = await identity.write.register(["ipfs://weather", entries], as(accounts.creator));
        await viem.assertions.emitWithArgs(hash, identity, "Registered", [0n, "ipfs://weather", me]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataSet", [
          0n,
          keccak256(toHex("category")),
          "category",
          toHex("data"),
        ]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataSet", [
          0n,
          keccak256(toHex("version")),
          "version",
          "0x01",
        ]);
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        const keys = parseEventLogs({ abi: identity.abi, eventName: "MetadataSet", logs: receipt.logs }).map(
          (l) => l.args.metadataKey,
        );
        expect(keys).to.deep.equal([WALLET_KEY, "category", "version"]);
        expect(await identity.read.getMetadata([0n, "category"])).to.equal(toHex("data"));
        expect(await identity.read.getMetadata([0n, "version"])).to.equal("0x01");
      });

      it("reverts with ReservedMetadataKey for an agentWallet entry, without consuming the id", async function () {
        const { identity, accounts } = stack;
        await viem.assertions.revertWithCustomErrorWithArgs(
          identity.write.register(
            ["ipfs://x", [{ metadataKey: WALLET_KEY, metadataValue: accounts.other.account.address }]],
            as(accounts.creator),
          ),
          identity,
          "ReservedMetadataKey",
          [WALLET_KEY],
        );
        expect(await registerAs(accounts.creator)).to.equal(0n);
      });
    });
  });

  describe("setAgentURI", function () {
    let agentId: bigint;

    beforeEach(async function () {
      agentId = await registerAs(stack.accounts.creator);
    });

    it("lets the owner change the URI and emits URIUpdated and MetadataUpdate", async function () {
      const { identity, accounts } = stack;
      const hash = await identity.write.setAgentURI([agentId, "ipfs://v2"], as(accounts.creator));
      await viem.assertions.emitWithArgs(hash, identity, "URIUpdated", [
        agentId,
        "ipfs://v2",
        accounts.creator.account.address,
      ]);
      await viem.assertions.emitWithArgs(hash, identity, "MetadataUpdate", [agentId]);
      expect(await identity.read.tokenURI([agentId])).to.equal("ipfs://v2");
    });

    it("lets an approved account change it, and records it as the updater", async function () {
      const { identity, accounts } = stack;
      await identity.write.approve([accounts.other.account.address, agentId], as(accounts.creator));
      await viem.assertions.emitWithArgs(
        identity.write.setAgentURI([agentId, "ipfs://v3"], as(accounts.other)),
        identity,
        "URIUpdated",
        [agentId, "ipfs://v3", accounts.other.account.address],
      );
    });

    it("reverts with NotAuthorized for a stranger", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.write.setAgentURI([agentId, "ipfs://evil"], as(stack.accounts.other)),
        stack.identity,
        "NotAuthorized",
        [stack.accounts.other.account.address, agentId],
      );
    });

    it("reverts with ERC721NonexistentToken for an unknown agent", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.write.setAgentURI([99n, "ipfs://x"], as(stack.accounts.creator)),
        stack.identity,
        "ERC721NonexistentToken",
        [99n],
      );
    });
  });

  describe("tokenURI", function () {
    it("reverts with ERC721NonexistentToken for an unknown agent", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.read.tokenURI([0n]),
        stack.identity,
        "ERC721NonexistentToken",
        [0n],
      );
    });
  });

  describe("getMetadata and setMetadata", function () {
    let agentId: bigint;

    beforeEach(async function () {
      agentId = await registerAs(stack.accounts.creator);
    });

    it("stores a value, emits MetadataSet and overwrites it", async function () {
      const { identity, accounts } = stack;
      await viem.assertions.emitWithArgs(
        identity.write.setMetadata([agentId, "region", toHex("eu")], as(accounts.creator)),
        identity,
        "MetadataSet",
        [agentId, keccak256(toHex("region")), "region", toHex("eu")],
      );
      expect(await identity.read.getMetadata([agentId, "region"])).to.equal(toHex("eu"));
      await identity.write.setMetadata([agentId, "region", "0x"], as(accounts.creator));
      expect(await identity.read.getMetadata([agentId, "region"])).to.equal("0x");
    });

    it("returns empty bytes for a key never set", async function () {
      expect(await stack.identity.read.getMetadata([agentId, "nothing"])).to.equal("0x");
    });

    it("returns the agent wallet, packed, under the agentWallet key", async function () {
      expect(await stack.identity.read.getMetadata([agentId, WALLET_KEY])).to.equal(
        stack.accounts.creator.account.address.toLowerCase(),
      );
    });

    it("reverts with ReservedMetadataKey when writing agentWallet directly", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.write.setMetadata(
          [agentId, WALLET_KEY, stack.accounts.other.account.address],
          as(stack.accounts.creator),
        ),
        stack.identity,
        "ReservedMetadataKey",
        [WALLET_KEY],
      );
    });

    it("reserves only the exact key: AgentWallet is ordinary metadata", async function () {
      await stack.identity.write.setMetadata([agentId, "AgentWallet", "0xab"], as(stack.accounts.creator));
      expect(await stack.identity.read.getMetadata([agentId, "AgentWallet"])).to.equal("0xab");
      expect(await stack.identity.read.getAgentWallet([agentId])).to.equal(
        getAddress(stack.accounts.creator.account.address),
      );
    });

    it("lets an operator approved for all write metadata", async function () {
      const { identity, accounts } = stack;
      await identity.write.setApprovalForAll([accounts.other.account.address, true], as(accounts.creator));
      await identity.write.setMetadata([agentId, "region", "0x01"], as(accounts.other));
      expect(await identity.read.getMetadata([agentId, "region"])).to.equal("0x01");
    });

    it("reverts with NotAuthorized for a stranger", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.write.setMetadata([agentId, "region", "0x01"], as(stack.accounts.other)),
        stack.identity,
        "NotAuthorized",
        [stack.accounts.other.account.address, agentId],
      );
    });
  });

  describe("agent wallet", function () {
    let agentId: bigint;
    let owner: Address;
    let newWallet: Address;

    beforeEach(async function () {
      agentId = await registerAs(stack.accounts.creator);
      owner = getAddress(stack.accounts.creator.account.address);
      newWallet = getAddress(stack.accounts.payout.account.address);
    });

    it("is initially the registrant", async function () {
      expect(await stack.identity.read.getAgentWallet([agentId])).to.equal(owner);
    });

    it("getAgentWallet reverts with ERC721NonexistentToken for an unknown agent", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.read.getAgentWallet([7n]),
        stack.identity,
        "ERC721NonexistentToken",
        [7n],
      );
    });

    describe("setAgentWallet with the new wallet's signature", function () {
      it("sets the wallet and emits MetadataSet with the packed address", async function () {
        const { identity, accounts } = stack;
        const deadline = (await now()) + 120n;
        const signature = await signWalletSet(accounts.payout, { agentId, newWallet, owner, deadline });
        await viem.assertions.emitWithArgs(
          identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(accounts.creator)),
          identity,
          "MetadataSet",
          [agentId, WALLET_KEY_TOPIC, WALLET_KEY, newWallet],
        );
        expect(await identity.read.getAgentWallet([agentId])).to.equal(newWallet);
        expect(await identity.read.getMetadata([agentId, WALLET_KEY])).to.equal(newWallet.toLowerCase());
      });

      it("accepts a deadline of exactly now and of exactly now + MAX_DEADLINE_DELAY", async function () {
        const { identity, accounts } = stack;
        for (const offset of [0n, 300n]) {
          const at = (await now()) + 10n;
          const deadline = at + offset;
          const signature = await signWalletSet(accounts.payout, { agentId, newWallet, owner, deadline });
          await networkHelpers.time.setNextBlockTimestamp(at);
          await identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(accounts.creator));
          expect(await identity.read.getAgentWallet([agentId])).to.equal(newWallet);
          await identity.write.unsetAgentWallet([agentId], as(accounts.creator));
        }
      });

      it("may be submitted by an approved account; the digest still names the owner", async function () {
        const { identity, accounts } = stack;
        await identity.write.approve([accounts.other.account.address, agentId], as(accounts.creator));
        const deadline = (await now()) + 120n;
        const signature = await signWalletSet(accounts.payout, { agentId, newWallet, owner, deadline });
        await identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(accounts.other));
        expect(await identity.read.getAgentWallet([agentId])).to.equal(newWallet);
      });

      it("accepts an ERC-1271 contract wallet that vouches for its owner's signature", async function () {
        const { identity, accounts } = stack;
        const wallet = await viem.deployContract("RegistryERC1271Wallet", [accounts.other.account.address]);
        const deadline = (await now()) + 120n;
        const signature = await signWalletSet(accounts.other, { agentId, newWallet: wallet.address, owner, deadline });
        await viem.assertions.emitWithArgs(
          identity.write.setAgentWallet([agentId, wallet.address, deadline, signature], as(accounts.creator)),
          identity,
          "MetadataSet",
          [agentId, WALLET_KEY_TOPIC, WALLET_KEY, wallet.address.toLowerCase() as Hex],
        );
        expect((await identity.read.getAgentWallet([agentId])).toLowerCase()).to.equal(wallet.address.toLowerCase());
      });

      it("reverts with InvalidWalletSignature when the ERC-1271 wallet rejects", async function () {
        const { identity, accounts } = stack;
        const wallet = await viem.deployContract("RegistryERC1271Wallet", [accounts.other.account.address]);
        await wallet.write.setRejectAll([true], as(accounts.other));
        const deadline = (await now()) + 120n;
        const signature = await signWalletSet(accounts.other, { agentId, newWallet: wallet.address, owner, deadline });
        await viem.assertions.revertWithCustomErrorWithArgs(
          identity.write.setAgentWallet([agentId, wallet.address, deadline, signature], as(accounts.creator)),
          identity,
          "InvalidWalletSignature",
          [wallet.address],
        );
      });

      describe("when the deadline is out of range", function () {
        it("reverts with WalletSignatureExpired carrying the deadline and the block time", async function () {
          const deadline = (await now()) + 60n;
          const signature = await signWalletSet(stack.accounts.payout, { agentId, newWallet, owner, deadline });
          await networkHelpers.time.setNextBlockTimestamp(deadline + 1n);
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(stack.accounts.creator)),
            stack.identity,
            "WalletSignatureExpired",
            [deadline, deadline + 1n],
          );
        });

        it("reverts with WalletDeadlineTooFar carrying the deadline and the latest accepted", async function () {
          const at = (await now()) + 10n;
          const deadline = at + 301n;
          const signature = await signWalletSet(stack.accounts.payout, { agentId, newWallet, owner, deadline });
          await networkHelpers.time.setNextBlockTimestamp(at);
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(stack.accounts.creator)),
            stack.identity,
            "WalletDeadlineTooFar",
            [deadline, at + 300n],
          );
        });
      });

      describe("when the signature does not prove control of the new wallet", function () {
        it("reverts with InvalidWalletSignature when the owner signs for a wallet it does not control", async function () {
          const deadline = (await now()) + 120n;
          const signature = await signWalletSet(stack.accounts.creator, { agentId, newWallet, owner, deadline });
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(stack.accounts.creator)),
            stack.identity,
            "InvalidWalletSignature",
            [newWallet],
          );
        });

        it("reverts with InvalidWalletSignature for a signature made for another agent", async function () {
          const otherAgent = await registerAs(stack.accounts.creator);
          const deadline = (await now()) + 120n;
          const signature = await signWalletSet(stack.accounts.payout, {
            agentId: otherAgent,
            newWallet,
            owner,
            deadline,
          });
          await viem.assertions.revertWithCustomErrorWithArgs(
            stack.identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(stack.accounts.creator)),
            stack.identity,
            "InvalidWalletSignature",
            [newWallet],
          );
        });

        it("reverts with InvalidWalletSignature once the agent changed owner after signing", async function () {
          const { identity, accounts } = stack;
          const deadline = (await now()) + 120n;
          const signature = await signWalletSet(accounts.payout, { agentId, newWallet, owner, deadline });
          await identity.write.transferFrom([owner, accounts.other.account.address, agentId], as(accounts.creator));
          await viem.assertions.revertWithCustomErrorWithArgs(
            identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(accounts.other)),
            identity,
            "InvalidWalletSignature",
            [newWallet],
          );
        });
      });

      it("reverts with InvalidWallet for the zero address", async function () {
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.identity.write.setAgentWallet(
            [agentId, zeroAddress, (await now()) + 60n, "0x"],
            as(stack.accounts.creator),
          ),
          stack.identity,
          "InvalidWallet",
          [zeroAddress],
        );
      });

      it("reverts with NotAuthorized when a stranger submits a valid signature", async function () {
        const deadline = (await now()) + 120n;
        const signature = await signWalletSet(stack.accounts.payout, { agentId, newWallet, owner, deadline });
        await viem.assertions.revertWithCustomErrorWithArgs(
          stack.identity.write.setAgentWallet([agentId, newWallet, deadline, signature], as(stack.accounts.payout)),
          stack.identity,
          "NotAuthorized",
          [newWallet, agentId],
        );
      });
    });

    describe("unsetAgentWallet", function () {
      it("clears the wallet and emits MetadataSet with empty bytes", async function () {
        const { identity, accounts } = stack;
        await viem.assertions.emitWithArgs(
          identity.write.unsetAgentWallet([agentId], as(accounts.creator)),
          identity,
          "MetadataSet",
          [agentId, WALLET_KEY_TOPIC, WALLET_KEY, "0x"],
        );
        expect(await identity.read.getAgentWallet([agentId])).to.equal(zeroAddress);
        expect(await identity.read.getMetadata([agentId, WALLET_KEY])).to.equal("0x");
      });

      it("reverts with NotAuthorized for a stranger, the wallet itself included", async function () {
        const { identity, accounts } = stack;
        const deadline = (await now()) + 120n;
        await identity.write.setAgentWallet(
          [agentId, newWallet, deadline, await signWalletSet(accounts.payout, { agentId, newWallet, owner, deadline })],
          as(accounts.creator),
        );
        await viem.assertions.revertWithCustomErrorWithArgs(
          identity.write.unsetAgentWallet([agentId], as(accounts.payout)),
          identity,
          "NotAuthorized",
          [newWallet, agentId],
        );
      });
    });

    describe("when the identity is transferred", function () {
      it("clears the wallet and emits MetadataSet with empty bytes, so it never follows the new owner", async function () {
        const { identity, accounts } = stack;
        const hash = await identity.write.transferFrom(
          [owner, accounts.other.account.address, agentId],
          as(accounts.creator),
        );
        await viem.assertions.emitWithArgs(hash, identity, "Transfer", [
          owner,
          accounts.other.account.address,
          agentId,
        ]);
        await viem.assertions.emitWithArgs(hash, identity, "MetadataSet", [
          agentId,
          WALLET_KEY_TOPIC,
          WALLET_KEY,
          "0x",
        ]);
        expect(await identity.read.getAgentWallet([agentId])).to.equal(zeroAddress);
      });

      it("emits no MetadataSet when there was no wallet to clear", async function () {
        const { identity, accounts, publicClient } = stack;
        await identity.write.unsetAgentWallet([agentId], as(accounts.creator));
        const hash = await identity.write.safeTransferFrom(
          [owner, accounts.other.account.address, agentId],
          as(accounts.creator),
        );
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        expect(parseEventLogs({ abi: identity.abi, logs: receipt.logs }).map((l) => l.eventName)).to.deep.equal([
          "Transfer",
        ]);
      });

      it("keeps the URI and other metadata", async function () {
        const { identity, accounts } = stack;
        await identity.write.setMetadata([agentId, "region", "0x01"], as(accounts.creator));
        await identity.write.transferFrom([owner, accounts.other.account.address, agentId], as(accounts.creator));
        expect(await identity.read.getMetadata([agentId, "region"])).to.equal("0x01");
        expect(await identity.read.tokenURI([agentId])).to.equal("ipfs://agent");
      });
    });
  });

  describe("isAuthorizedOrOwner", function () {
    let agentId: bigint;

    beforeEach(async function () {
      agentId = await registerAs(stack.accounts.creator);
    });

    it("is true for the owner, the approved account and an operator, false for a stranger", async function () {
      const { identity, accounts } = stack;
      await viem.assertions.emitWithArgs(
        identity.write.approve([accounts.other.account.address, agentId], as(accounts.creator)),
        identity,
        "Approval",
        [accounts.creator.account.address, accounts.other.account.address, agentId],
      );
      await viem.assertions.emitWithArgs(
        identity.write.setApprovalForAll([accounts.buyer.account.address, true], as(accounts.creator)),
        identity,
        "ApprovalForAll",
        [accounts.creator.account.address, accounts.buyer.account.address, true],
      );
      expect((await identity.read.getApproved([agentId])).toLowerCase()).to.equal(
        accounts.other.account.address.toLowerCase(),
      );
      expect(
        await identity.read.isApprovedForAll([accounts.creator.account.address, accounts.buyer.account.address]),
      ).to.equal(true);
      expect(await identity.read.isAuthorizedOrOwner([accounts.creator.account.address, agentId])).to.equal(true);
      expect(await identity.read.isAuthorizedOrOwner([accounts.other.account.address, agentId])).to.equal(true);
      expect(await identity.read.isAuthorizedOrOwner([accounts.buyer.account.address, agentId])).to.equal(true);
      expect(await identity.read.isAuthorizedOrOwner([accounts.payout.account.address, agentId])).to.equal(false);
    });

    it("drops the approval when the identity changes hands", async function () {
      const { identity, accounts } = stack;
      await identity.write.approve([accounts.other.account.address, agentId], as(accounts.creator));
      await identity.write.transferFrom(
        [accounts.creator.account.address, accounts.buyer.account.address, agentId],
        as(accounts.creator),
      );
      expect(await identity.read.isAuthorizedOrOwner([accounts.other.account.address, agentId])).to.equal(false);
      expect(await identity.read.isAuthorizedOrOwner([accounts.creator.account.address, agentId])).to.equal(false);
      expect(await identity.read.isAuthorizedOrOwner([accounts.buyer.account.address, agentId])).to.equal(true);
    });

    it("reverts with ERC721NonexistentToken for an unknown agent", async function () {
      await viem.assertions.revertWithCustomErrorWithArgs(
        stack.identity.read.isAuthorizedOrOwner([stack.accounts.creator.account.address, 5n]),
        stack.identity,
        "ERC721NonexistentToken",
        [5n],
      );
    });
  });

  describe("when a hostile ERC-721 receiver re-enters register during _safeMint", function () {
    it("gets consecutive, distinct ids, each with its own URI, owner, wallet and Registered event", async function () {
      const { identity, accounts, publicClient } = stack;
      await registerAs(accounts.creator);
      const receiver = await viem.deployContract("ReentrantAgentReceiver", [identity.address]);
      const hash = await receiver.write.registerAndReenter(["ipfs://outer", 2n]);
      expect(await receiver.read.received()).to.deep.equal([1n, 2n, 3n]);
      expect(await identity.read.tokenURI([1n])).to.equal("ipfs://outer");
      expect(await identity.read.tokenURI([2n])).to.equal("reentered");
      expect(await identity.read.tokenURI([3n])).to.equal("reentered");
      for (const id of [1n, 2n, 3n]) {
        expect((await identity.read.ownerOf([id])).toLowerCase()).to.equal(receiver.address.toLowerCase());
        expect((await identity.read.getAgentWallet([id])).toLowerCase()).to.equal(receiver.address.toLowerCase());
      }
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      const registered = parseEventLogs({ abi: identity.abi, eventName: "Registered", logs: receipt.logs }).map((l) => [
        l.args.agentId,
        l.args.agentURI,
      ]);
      expect(registered).to.have.deep.members([
        [1n, "ipfs://outer"],
        [2n, "reentered"],
        [3n, "reentered"],
      ]);
      expect(await registerAs(accounts.other)).to.equal(4n);
      expect((await identity.read.ownerOf([0n])).toLowerCase()).to.equal(
        accounts.creator.account.address.toLowerCase(),
      );
    });

    it("keeps the logged agentWallet equal to the stored one when the receiver hands the identity on mid-mint", async function () {
      const { identity, accounts, publicClient } = stack;
      const receiver = await viem.deployContract("ReentrantAgentReceiver", [identity.address]);
      const hash = await receiver.write.registerAndForward(["ipfs://passed", accounts.other.account.address]);
      expect((await identity.read.ownerOf([0n])).toLowerCase()).to.equal(accounts.other.account.address.toLowerCase());
      expect(await identity.read.getAgentWallet([0n])).to.equal(zeroAddress);
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      const walletLogs = parseEventLogs({ abi: identity.abi, eventName: "MetadataSet", logs: receipt.logs }).filter(
        (l) => l.args.agentId === 0n && l.args.metadataKey === WALLET_KEY,
      );
      expect(walletLogs.at(-1)?.args.metadataValue).to.equal("0x");
    });
  });
});
