import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { BudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { startBudgetStack } from "../../../../testkit/buyer/budgetStack.ts";
import { callTool, connectInMemory } from "../../../../testkit/buyer/connectBuyer.ts";
import type { LoopbackRecorder } from "../../../../testkit/buyer/startLoopbackRecorder.ts";
import { startLoopbackRecorder } from "../../../../testkit/buyer/startLoopbackRecorder.ts";
import { ROLE } from "../../../../testkit/chain/localChain.ts";
import { cardHashOf } from "../../../protocol/cardHash.ts";
import { buyerChain } from "../../src/sdk/buyerChain.ts";
import { payForCall } from "../../src/sdk/payForCall.ts";
import { readPinnedCard } from "../../src/sdk/readPinnedCard.ts";

/**
 * A creator registers directly (or re-points its DNS after listing) so that its `cardURI`, or its card's call `url`,
 * names the buyer's own loopback: a prompt-injected agent then makes the buyer GET or POST, with a body the agent
 * chose, to a service that trusts loopback. Without the fix the buyer fetched the card URI (following redirects) and
 * posted the quote request to any `url`: the loopback service recorded them. With it, an address a creator names is
 * reached only when it resolves to public addresses (checked in the socket's own DNS lookup), a redirect is never
 * followed, and only BUYER_ALLOW_PRIVATE_NETWORK=on (a local development stack) lets loopback through.
 */
describe("attack: a creator names the buyer's loopback as its card URI or its call URL", function () {
  this.timeout(300_000);
  let s: BudgetStack;
  let victim: LoopbackRecorder;
  const dataDir = mkdtempSync(join(tmpdir(), "buyer-loopback-"));

  before(async function () {
    s = await startBudgetStack();
    victim = await startLoopbackRecorder();
  });

  after(async function () {
    await victim?.close();
    await s?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    victim.requests.length = 0;
  });

  /** Points the registry's cardURI of `resourceId` at `uri`, as its creator may at any time. */
  async function repoint(resourceId: Hex, uri: string, cardHash: Hex) {
    const account = s.chain.wallets[ROLE.creator]?.account;
    await s.chain.publicClient.waitForTransactionReceipt({
      hash: await s.chain.contracts.registry.write.updateCard([resourceId, uri, cardHash], { account }),
    });
  }

  /** The buyer MCP server as a user configures it: no BUYER_ALLOW_PRIVATE_NETWORK (blank is unset). */
  async function publicOnlyServer() {
    const buyer = await s.buyer();
    return connectInMemory(s.settings(buyer.key, dataDir, { BUYER_ALLOW_PRIVATE_NETWORK: "" }));
  }

  for (const host of ["127.0.0.1", "localhost"]) {
    it(`a cardURI on ${host}: get_card, quote and call_resource answer private_address and the loopback service receives nothing`, async function () {
      const { resourceId, relay } = await s.resource("forward");
      await repoint(resourceId, `http://${host}:${victim.port}/admin/reset`, cardHashOf(relay.state.card));
      const { client, close } = await publicOnlyServer();
      try {
        for (const [name, args] of [
          ["get_card", { resourceId }],
          ["quote", { resourceId, body: { drop: "everything" } }],
          ["call_resource", { resourceId, body: { drop: "everything" } }],
        ] as const) {
          const outcome = await callTool(client, name, args);
          expect(outcome.error?.code, `${name}: ${JSON.stringify(outcome.data)}`).to.equal("private_address");
          expect(outcome.error?.message).to.include("BUYER_ALLOW_PRIVATE_NETWORK");
        }
      } finally {
        await close();
      }
      expect(victim.requests).to.deep.equal([]);
    });
  }

  it("the same cardURI is read only with BUYER_ALLOW_PRIVATE_NETWORK=on (a local stack), and a redirect is never followed", async function () {
    const { resourceId, relay } = await s.resource("forward");
    await repoint(resourceId, `${victim.url}/card.json`, cardHashOf(relay.state.card));
    const buyer = await s.buyer();
    const local = await connectInMemory(s.settings(buyer.key, dataDir));
    try {
      expect((await callTool(local.client, "get_card", { resourceId })).error?.code).to.equal("invalid_card");
      expect(victim.requests.map((r) => `${r.method} ${r.url}`)).to.deep.equal(["GET /card.json"]);
      victim.requests.length = 0;
      const redirector = await startLoopbackRecorder({ redirectTo: `${victim.url}/admin/reset` });
      try {
        await repoint(resourceId, `${redirector.url}/card.json`, cardHashOf(relay.state.card));
        const redirected = await callTool(local.client, "get_card", { resourceId });
        expect(redirected.error?.code).to.equal("invalid_card");
        expect(redirector.requests).to.have.length(1);
      } finally {
        await redirector.close();
      }
    } finally {
      await local.close();
    }
    expect(victim.requests).to.deep.equal([]);
  });

  it("a card whose call url is on loopback: nothing is posted there, nothing is signed", async function () {
    const { resourceId, relay } = await s.resource("forward");
    relay.state.card = { ...relay.state.card, url: `${victim.url}/admin/reset` };
    await repoint(resourceId, `${relay.url}/.well-known/agent-card.json`, cardHashOf(relay.state.card));
    // The card itself is read from its URI (here the creator's relay, standing for a public host).
    const pinned = await readPinnedCard(s.buyerChain(), resourceId);
    expect(pinned.card.url).to.equal(`${victim.url}/admin/reset`);
    const buyer = await s.buyer();
    let signed = 0;
    const failure = await payForCall({
      chain: buyerChain({ rpcUrl: s.chain.rpcUrl, escrow: s.chain.addresses.escrow }),
      account: privateKeyToAccount(buyer.key),
      callUrl: pinned.card.url,
      body: { drop: "everything" },
      pinned,
      onSigned: () => signed++,
    }).catch((error: Error) => error);
    expect(failure).to.have.property("code", "private_address");
    expect(signed).to.equal(0);
    expect(victim.requests).to.deep.equal([]);
  });
});
