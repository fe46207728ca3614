import { PLACEHOLDER_AGENT_ID } from "../protocol/constants.ts";
import { finalizeCard } from "../protocol/schemas/card.ts";
import type { Deployment } from "./createDeploymentStore.ts";

/**
 * The agent card a resource serves. `url` (the live call URL) and `x402.payTo` (the resource id) are filled at deploy;
 * `identity.agentId` once the ERC-8004 agent id is known (`POST /deployments/:slug/identity`). Until then the card is
 * a valid card template that still holds `{{AGENT_ID}}`.
 * @throws {SchemaValidationError} when the finalized card does not validate.
 * @example servedCard(deployment, 'http://127.0.0.1:4030/r/echo/call')
 */
export function servedCard(deployment: Deployment, callUrl: string): unknown {
  if (deployment.agentId !== null)
    return finalizeCard(deployment.card, { callUrl, resourceId: deployment.resourceId, agentId: deployment.agentId });
  return {
    ...deployment.card,
    url: callUrl,
    x402: { ...deployment.card.x402, payTo: deployment.resourceId },
    identity: { ...deployment.card.identity, agentId: PLACEHOLDER_AGENT_ID },
  };
}
