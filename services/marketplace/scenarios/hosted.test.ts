import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { pino } from "pino";
import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devKey, ROLE } from "../../../testkit/chain/localChain.ts";
import { getJson, postJson } from "../../../testkit/facilitator/startFacilitator.ts";
import type { GateStack } from "../../../testkit/gate/gateStack.ts";
import { call, payEscrow, paymentHeader, startGateStack } from "../../../testkit/gate/gateStack.ts";
import type { Indexer } from "../../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../../testkit/indexer/startIndexer.ts";
import { PUBLISH_TOKEN, startMarketplace } from "../../../testkit/marketplace/startMarketplace.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import type { Host } from "../../host/createHost.ts";
import { createHost } from "../../host/createHost.ts";
import { loadHostConfig } from "../../host/loadHostConfig.ts";
import { sampleDeployment } from "../../host/samples/sampleDeployment.ts";
import { bondNonce } from "../../protocol/bondNonce.ts";
import { NEUTRAL_LIVE_FIELDS, withLiveFields } from "../../protocol/liveCardFields.ts";
import { resourceIdOf } from "../../protocol/resourceId.ts";
import { cardSchema } from "../../protocol/schemas/card.ts";
import { bondTypedData, registerResourceTypedData } from "../../protocol/typedData.ts";
import type { Marketplace } from "../createMarketplace.ts";

const HOST_TOKEN = "host-token-0123456789abcdef";

describe("marketplace with the real host and gate: deploy, publish, finalize, pay", function () {
  let stack: GateStack;
  let indexer: Indexer;
  let marketplace: Marketplace;
  let host: Host;
  let dataDir: string;
  const creator = privateKeyToAccount(devKey(ROLE.creator));

  before(async function () {
    stack = await startGateStack();
    indexer = await startIndexer(stack.chain);
    marketplace = await startMarketplace(stack.chain, indexer);
    dataDir = await mkdtemp(join(tmpdir(), "hosted-"));
    host = await createHost(
      loadHostConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        HOST_TOKEN,
        FACILITATOR_URL: stack.facilitator.url,
        ESCROW_ADDRESS: stack.chain.addresses.escrow,
        TOKEN_ADDRESS: stack.chain.addresses.token,
        HANDLER_TIMEOUT_MS: "5000",
        MARKETPLACE_URL: marketplace.url,
        LIVE_FIELDS_INTERVAL_MS: "100",
      }),
      { logger: pino({ level: "silent" }) },
    );
    await stack.chain.contracts.token.write.mint([creator.address, 10_000_000n]);
  });

  after(async function () {
    await host?.stop();
    await marketplace?.stop();
    await indexer?.stop();
    await stack?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("lists a hosted resource, serves its card, and its revenue and reputation follow a paid call", async function () {
    const deployment = sampleDeployment("echo", {
      creator: creator.address,
      asset: stack.chain.addresses.token,
      escrow: stack.chain.addresses.escrow,
    });
    const deployed = await postJson(`${host.url}/deployments`, deployment, { authorization: `Bearer ${HOST_TOKEN}` });
    expect(deployed.status, JSON.stringify(deployed.body)).to.be.oneOf([200, 201]);
    const resourceUrl = `${host.url}/r/echo`;

    const now = Math.floor(Date.now() / 1000);
    const { registry, token } = stack.chain.addresses;
    const pricing = { base: deployment.pricing.base, perKB: deployment.pricing.perKB, max: deployment.pricing.max };
    const deadline = String(now + 3_600);
    const bond = {
      from: creator.address,
      value: "1000000",
      validAfter: "0",
      validBefore: deadline,
      nonce: bondNonce(resourceIdOf(creator.address, "echo")),
    };
    const request = {
      resourceUrl,
      creator: creator.address,
      slug: "echo",
      category: "tools",
      payout: creator.address,
      pricing,
      card: deployment.card,
      sampleRequest: { hello: "world" },
      registration: {
        deadline,
        signature: await creator.signTypedData(
          registerResourceTypedData(
            {
              creator: creator.address,
              slug: "echo",
              payout: creator.address,
              category: "tools",
              ...pricing,
              deadline,
            },
            registry,
          ),
        ),
      },
      bond: {
        value: bond.value,
        validAfter: bond.validAfter,
        validBefore: bond.validBefore,
        nonce: bond.nonce,
        signature: await creator.signTypedData(bondTypedData(bond, registry, token)),
      },
    };
    const published = await postJson(`${marketplace.url}/resources`, request, {
      authorization: `Bearer ${PUBLISH_TOKEN}`,
    });
    expect(published.status, JSON.stringify(published.body)).to.equal(201);
    const resourceId = published.body.resourceId as Hex;

    const finalized = await postJson(
      `${host.url}/deployments/echo/identity`,
      { agentId: published.body.agentId },
      { authorization: `Bearer ${HOST_TOKEN}` },
    );
    expect(finalized.status, JSON.stringify(finalized.body)).to.equal(200);
    // A card never contradicts the index: before the fix both cards said health { verified: false, score: 0 } and
    // bond { posted: "0" } while the index said verified, score 100 and a 1,000,000 bond, so an agent reading the
    // card took a bonded, healthy resource for an unbonded, unverified one (and a stale card could say the opposite).
    const [indexed] = (await getJson(`${marketplace.url}/resources`)).body as {
      health: { verified: boolean; score: number };
      bond: string;
    }[];
    expect(indexed).to.deep.include({ health: { verified: true, score: 100 }, bond: "1000000" });
    const marketCard = cardSchema.parse((await getJson(published.body.cardUrl)).body);
    expect(marketCard.health).to.deep.equal(indexed!.health);
    expect(marketCard.bond).to.deep.equal({ posted: indexed!.bond });
    const hostCard = await until(async () => {
      const card = cardSchema.parse((await getJson(`${resourceUrl}/.well-known/agent-card.json`)).body);
      return card.bond.posted === indexed!.bond ? card : undefined;
    });
    expect(marketCard).to.deep.equal(hostCard);
    expect((await marketplace.prober.probeOne(resourceId)).ok).to.equal(true);
    // The hash on chain covers the card with the neutral live fields; the served bytes differ only there.
    const neutral = JSON.stringify(
      withLiveFields(JSON.parse(await (await fetch(published.body.cardUrl)).text()), NEUTRAL_LIVE_FIELDS),
    );
    const onChain = await stack.chain.contracts.registry.read.getResource([resourceId]);
    expect(keccak256(stringToBytes(neutral))).to.equal(onChain.cardHash);

    const payload = await payEscrow(stack, { resourceId, cap: BigInt(pricing.max) });
    const paid = await call(marketCard.url, { hello: "world" }, { "X-PAYMENT": paymentHeader(payload) });
    expect(paid.status).to.equal(200);

    const deadlineMs = Date.now() + 15_000;
    let record: { reputation: number; uptime: number; health: { verified: boolean } } | undefined;
    while (Date.now() < deadlineMs) {
      record = (await getJson(`${marketplace.url}/resources?minReputation=60`)).body[0];
      if (record) break;
      await sleep(100);
    }
    expect(record, "the settled call raised the reputation").to.not.equal(undefined);
    expect(record).to.include({ reputation: 66.67, uptime: 100 });
    expect(record!.health.verified).to.equal(true);
  });
});
