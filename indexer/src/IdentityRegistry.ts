import { ponder } from "ponder:registry";
import { agent, agentMetadata } from "ponder:schema";
import { zeroAddress } from "viem";

/** The reserved ERC-8004 metadata key of the verified payment wallet. */
const AGENT_WALLET_KEY = "agentWallet";

ponder.on("IdentityRegistry:Transfer", async ({ event, context }) => {
  const { to, tokenId } = event.args;
  if (to === zeroAddress) return;
  await context.db
    .insert(agent)
    .values({
      agentId: tokenId,
      owner: to,
      uri: "",
      wallet: null,
      registeredBlock: event.block.number,
      updatedBlock: event.block.number,
    })
    .onConflictDoUpdate({ owner: to, updatedBlock: event.block.number });
});

ponder.on("IdentityRegistry:Registered", async ({ event, context }) => {
  const { agentId, agentURI, owner } = event.args;
  await context.db
    .insert(agent)
    .values({
      agentId,
      owner,
      uri: agentURI,
      wallet: null,
      registeredBlock: event.block.number,
      updatedBlock: event.block.number,
    })
    .onConflictDoUpdate({ uri: agentURI, updatedBlock: event.block.number });
});

ponder.on("IdentityRegistry:URIUpdated", async ({ event, context }) => {
  await context.db
    .update(agent, { agentId: event.args.agentId })
    .set({ uri: event.args.newURI, updatedBlock: event.block.number });
});

ponder.on("IdentityRegistry:MetadataSet", async ({ event, context }) => {
  const { agentId, metadataKey, metadataValue } = event.args;
  if (metadataKey === AGENT_WALLET_KEY) {
    const wallet = metadataValue.length === 42 ? metadataValue : null;
    await context.db.update(agent, { agentId }).set({ wallet, updatedBlock: event.block.number });
    return;
  }
  await context.db
    .insert(agentMetadata)
    .values({ agentId, key: metadataKey, value: metadataValue, updatedBlock: event.block.number })
    .onConflictDoUpdate({ value: metadataValue, updatedBlock: event.block.number });
});
