import type { Logger } from "pino";
import type { Hex } from "viem";
import type { LiveCardFields } from "../protocol/liveCardFields.ts";
import type { HostConfig } from "./loadHostConfig.ts";

/** What every host operation shares: configuration, the public base URL, a logger, and facilitator caller tokens. */
export type HostContext = {
  config: HostConfig;
  /** Base URL of the host, without a trailing slash; `{publicUrl}/r/{slug}` is a resource URL. */
  publicUrl: string;
  logger: Logger;
  /** A caller token for the facilitator bound to `resourceId`, when the facilitator requires one. */
  facilitatorToken(resourceId: Hex): (() => string) | undefined;
  /** The index's current `health` and `bond` of a resource, which its served card carries. */
  liveFields(resourceId: Hex): LiveCardFields;
};

/** URLs of one resource. */
export function resourceUrls(ctx: HostContext, slug: string) {
  const resourceUrl = `${ctx.publicUrl}/r/${slug}`;
  return { resourceUrl, callUrl: `${resourceUrl}/call`, cardUrl: `${resourceUrl}/.well-known/agent-card.json` };
}
