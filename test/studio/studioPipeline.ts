import { expect } from "chai";
import type { Hex } from "viem";
import { createPublicClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import { payForCall } from "../../services/buyer/src/sdk/payForCall.ts";
import { verifyDebit } from "../../services/buyer/src/sdk/verifyDebit.ts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { resourceIdOf } from "../../services/protocol/resourceId.ts";
import { DEV_ROLE, devKey } from "../../services/stack/devAccounts.ts";
import type { StackFile } from "../../services/stack/stackFile.ts";
import { catalogWriter } from "../../services/studio/catalog/catalogWriter.ts";
import {
  CATALOG_SENTENCES,
  FORBIDDEN_SENTENCES,
  OUTSIDE_SENTENCES,
} from "../../services/studio/catalog/sampleSentences.ts";
import type { CodeWriter } from "../../services/studio/contract.ts";
import { createEndpoint, draftEndpoint, launchEndpoint } from "../../services/studio/createEndpoint.ts";
import { localCreator } from "../../services/studio/creator.ts";
import { StudioError } from "../../services/studio/studioError.ts";
import { sleep } from "../../testkit/sleep.ts";
import { sharedStack } from "../../testkit/stack/sharedStack.ts";

describe("studio on the real stack: one sentence becomes a verified, paid, listed endpoint", function () {
  this.timeout(900_000);
  let stack: StackFile;
  let creator: ReturnType<typeof localCreator>;
  const writer = catalogWriter();

  const deployments = async (): Promise<string[]> => {
    const response = await fetch(`${stack.hostUrl}/deployments`, {
      headers: { authorization: `Bearer ${stack.hostToken}` },
    });
    return ((await response.json()) as { slug: string }[]).map((d) => d.slug).sort();
  };
  const listed = async (): Promise<{ slug: string; resourceId: string; active: boolean }[]> =>
    (await (await fetch(`${stack.marketplaceUrl}/resources`)).json()) as {
      slug: string;
      resourceId: string;
      active: boolean;
    }[];
  const onChain = async (resourceId: Hex) => {
    const client = createPublicClient({ transport: http(stack.rpcUrl) });
    const [payout, active] = await client.readContract({
      address: stack.contracts.registry,
      abi: abiOf("ResourceRegistry"),
      functionName: "paymentTarget",
      args: [resourceId],
    });
    return { registered: payout !== "0x0000000000000000000000000000000000000000", active };
  };

  before(async function () {
    ({ stack } = await sharedStack());
    creator = localCreator(privateKeyToAccount(devKey(DEV_ROLE.creator)), {
      rpcUrl: stack.rpcUrl,
      registry: stack.contracts.registry,
    });
  });

  it("takes 12 catalog sentences to listed; each is paid for by its self-test and once more by a buyer", async function () {
    const buyer = privateKeyToAccount(stack.buyers[0]!.privateKey);
    const other = privateKeyToAccount(stack.buyers[1]!.privateKey);
    const results = [];
    for (const sentence of CATALOG_SENTENCES) {
      const events: string[] = [];
      const result = await createEndpoint({
        sentence,
        writer,
        target: stack,
        creator,
        buyer,
        onEvent: (e) => events.push(`${e.stage}:${e.status}`),
      });
      expect(events.filter((e) => e.endsWith(":passed"))).to.deep.equal([
        "specify:passed",
        "verify:passed",
        "deploy:passed",
        "publish:passed",
        "self-test:passed",
      ]);
      expect(result.selfTest.receipt.payTo).to.equal(result.deployed.resourceId);
      expect(result.published.transactions.register).to.match(/^0x[0-9a-f]{64}$/);
      results.push(result);
    }
    expect(new Set(results.map((r) => r.bundle.contract.origin.recipe)).size).to.equal(12);

    const index = await listed();
    for (const result of results) {
      const record = index.find((r) => r.resourceId === result.deployed.resourceId);
      expect(record, result.bundle.contract.slug).to.not.equal(undefined);
      expect(record?.active).to.equal(true);
      const card = (await (await fetch(result.published.cardUrl)).json()) as {
        identity: { agentId: string };
        skills: { examples?: string[] }[];
      };
      expect(card.identity.agentId).to.equal(result.published.agentId);
      const shown = (card.skills[0]?.examples ?? []).map((e) => JSON.parse(e) as unknown);
      expect(shown).to.have.length(result.bundle.contract.examples.length);

      const example = result.bundle.contract.examples[1]!;
      const chain = buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow, allowPrivateAddresses: true });
      const paid = await payForCall({
        chain,
        account: other,
        callUrl: result.deployed.callUrl,
        body: example.input,
      });
      expect(paid.body).to.deep.equal(example.output);
      expect(shown[1], "the card showed what this call answers").to.deep.equal({
        request: example.input,
        response: paid.body,
      });
      const mined = await createPublicClient({ transport: http(stack.rpcUrl) }).getTransactionReceipt({
        hash: (await verifyDebit(chain, paid.receipt)).transaction,
      });
      expect(mined.status).to.equal("success");

      let revenue: { calls: number; gross: string } | undefined;
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const r = await fetch(`${stack.facilitatorUrl}/revenue/${result.deployed.resourceId}`);
        revenue = r.ok ? ((await r.json()) as typeof revenue) : undefined;
        if (revenue && revenue.calls >= 2) break;
        await sleep(250);
      }
      expect(revenue?.calls).to.equal(2);
      expect(BigInt(revenue?.gross ?? "0")).to.equal(
        BigInt(result.selfTest.receipt.amount) + BigInt(paid.receipt.amount),
      );
    }
  });

  it("never suggests a price below the marketplace's floor: the measured price is raised to it, base and cap", async function () {
    const { bundle } = await draftEndpoint({ sentence: CATALOG_SENTENCES[0]!, writer, target: stack });
    const { floor, measured, raised } = bundle.priceFloor;
    if (!floor.ok) throw new Error(`the floor was not read: ${floor.reason}`);
    const minimum = BigInt(floor.minimumBase);
    const now = (await (await fetch(`${stack.marketplaceUrl}/pricing/floor`)).json()) as { minimumBase: string };
    expect(minimum > 0n && BigInt(now.minimumBase) >= minimum).to.equal(true);
    // On the embedded chain (20 gwei) the floor is above what a fast handler measures, so the studio raises it.
    expect(BigInt(measured.base) < minimum).to.equal(true);
    expect(raised).to.equal(true);
    expect(bundle.contract.price.base).to.equal(floor.minimumBase);
    expect(BigInt(bundle.contract.price.max) - minimum).to.equal(BigInt(measured.max) - BigInt(measured.base));
    expect(bundle.card.x402.pricing).to.deep.include(bundle.contract.price);
  });

  it("answers 5 sentences outside the catalog with no_match and refuses 3 forbidden ones at specify, leaving nothing behind", async function () {
    const before = { host: await deployments(), index: (await listed()).length };
    const buyer = privateKeyToAccount(stack.buyers[0]!.privateKey);
    for (const [sentence, code] of [
      ...OUTSIDE_SENTENCES.map((s) => [s, "no_match"]),
      ...FORBIDDEN_SENTENCES.map((s) => [s, /^forbidden_/]),
    ] as [string, string | RegExp][]) {
      const error = await createEndpoint({ sentence, writer, target: stack, creator, buyer }).catch((e: unknown) => e);
      expect(error, sentence).to.be.instanceOf(StudioError);
      expect((error as StudioError).stage).to.equal("specify");
      if (typeof code === "string") expect((error as StudioError).code).to.equal(code);
      else expect((error as StudioError).code).to.match(code);
    }
    expect(await deployments()).to.deep.equal(before.host);
    expect((await listed()).length).to.equal(before.index);
  });

  describe("a failure at any stage undoes the earlier stages", function () {
    const sentence = "Return the SHA-1 hex digest of a text";

    it("verify: a handler that never passes is not deployed", async function () {
      const before = await deployments();
      const broken: CodeWriter = {
        ...writer,
        write: async () => "export default { fetch() { return Response.json({ wrong: true }) } }",
      };
      const error = await createEndpoint({
        sentence,
        writer: broken,
        target: stack,
        creator,
        buyer: privateKeyToAccount(stack.buyers[0]!.privateKey),
        repairRounds: 1,
      }).catch((e: unknown) => e);
      expect((error as StudioError).code).to.equal("verification_failed");
      expect(await deployments()).to.deep.equal(before);
    });

    it("deploy: a host that refuses leaves nothing deployed or registered", async function () {
      const before = await deployments();
      const { bundle } = await draftEndpoint({ sentence, writer, target: stack });
      const error = await launchEndpoint({
        bundle,
        target: { ...stack, hostToken: "wrong-token-0123456789" },
        creator,
        buyer: privateKeyToAccount(stack.buyers[0]!.privateKey),
      }).catch((e: unknown) => e);
      expect((error as StudioError).stage).to.equal("deploy");
      expect((error as StudioError).code).to.equal("deploy_refused");
      expect(await deployments()).to.deep.equal(before);
      expect((await onChain(resourceIdOf(creator.address, bundle.contract.slug))).registered).to.equal(false);
    });

    it("publish: a marketplace that refuses leaves the handler removed from the host and nothing registered", async function () {
      const before = await deployments();
      const { bundle } = await draftEndpoint({ sentence, writer, target: stack });
      const events: string[] = [];
      const error = await launchEndpoint({
        bundle,
        target: { ...stack, publishToken: "wrong-token-0123456789" },
        creator,
        buyer: privateKeyToAccount(stack.buyers[0]!.privateKey),
        onEvent: (e) => events.push(`${e.stage}:${e.status}`),
      }).catch((e: unknown) => e);
      expect((error as StudioError).stage).to.equal("publish");
      expect(events).to.include.members(["deploy:passed", "publish:failed", "undo:undone"]);
      expect((error as StudioError).data.undone).to.have.length(2);
      expect(await deployments()).to.deep.equal(before);
      const resourceId = resourceIdOf(creator.address, bundle.contract.slug);
      expect((await onChain(resourceId)).registered).to.equal(false);
    });

    it("self-test: a buyer who cannot pay gets the resource deactivated on chain and removed from the host", async function () {
      const before = await deployments();
      const { bundle } = await draftEndpoint({ sentence, writer, target: stack });
      const broke = privateKeyToAccount(generatePrivateKey());
      const error = await launchEndpoint({ bundle, target: stack, creator, buyer: broke }).catch((e: unknown) => e);
      expect((error as StudioError).stage).to.equal("self-test");
      expect((error as StudioError).code).to.equal("payment_failed");
      expect(await deployments()).to.deep.equal(before);
      const resourceId = resourceIdOf(creator.address, bundle.contract.slug);
      const state = await onChain(resourceId);
      expect(state).to.deep.equal({ registered: true, active: false });
      const deadline = Date.now() + 20_000;
      let record: { active: boolean } | undefined;
      while (Date.now() < deadline) {
        record = (await listed()).find((r) => r.resourceId === resourceId);
        if (record && !record.active) break;
        await sleep(250);
      }
      expect(record?.active).to.equal(false);
    });
  });
});
