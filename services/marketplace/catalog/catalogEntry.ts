import type { Hex } from "viem";
import type { IndexRecord } from "../../protocol/schemas/indexRecord.ts";
import type { ProbeHistory } from "./scores.ts";

/** What the chain (through the indexer's `resource` projection) says about a resource. */
export type ChainResource = {
  resourceId: Hex;
  creator: Hex;
  agentId: bigint;
  slug: string;
  category: string;
  base: bigint;
  perKB: bigint;
  max: bigint;
  bond: bigint;
  active: boolean;
  cardHash: Hex;
  strikesTotal: number;
  registeredBlock: bigint;
};

/** The marketplace's own record of a resource it published (store table `listing`). */
export type Listing = {
  resourceId: Hex;
  resourceUrl: string;
  /** The stored card (`JSON.stringify` of the finalized card); its words are what `q` searches. */
  cardText: string;
  sampleRequest: unknown;
  status: "pending" | "published" | "removed";
};

/** One resource as the catalog holds it: chain facts, the listing, settled calls, probes and the built record. */
export type CatalogEntry = {
  readonly resourceId: Hex;
  chain: ChainResource | undefined;
  listing: Listing | undefined;
  /** keccak256 of the listing's stored card text: the entry is listed only while it is the chain's `cardHash`. */
  cardTextHash: Hex | undefined;
  settled: number;
  /** The resync generation that last applied `settled` (a full resync that does not apply it again zeroes it). */
  settledGeneration: number;
  history: ProbeHistory;
  record: IndexRecord | undefined;
  json: string | undefined;
  listed: boolean;
  generation: number;
  /** Index in the listed order (and in the filter columns) while listed. */
  pos: number;
  /** The entry's number for its whole life (the text index's key). */
  readonly slot: number;
};
