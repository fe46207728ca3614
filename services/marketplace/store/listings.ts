import type { Hex } from "viem";
import type { Sql } from "../../store/store.ts";
import type { Listing } from "../catalog/createCatalog.ts";

/** A listing as stored, card included. */
export type StoredListing = Listing & {
  creator: Hex;
  slug: string;
  cardText: string;
  cardHash: Hex;
  agentId: string;
  seq: bigint;
};

type Row = {
  resource_id: string;
  creator: string;
  slug: string;
  resource_url: string;
  card_text: string;
  card_hash: string;
  sample_request: unknown;
  agent_id: string;
  status: Listing["status"];
  seq: string | number;
};

function fromRow(row: Row): StoredListing {
  return {
    resourceId: row.resource_id as Hex,
    creator: row.creator as Hex,
    slug: row.slug,
    resourceUrl: row.resource_url,
    cardText: row.card_text,
    cardHash: row.card_hash as Hex,
    sampleRequest: row.sample_request,
    agentId: row.agent_id,
    status: row.status,
    seq: BigInt(row.seq),
  };
}

/**
 * Writes a listing as `pending` (before its registration is sent), replacing an earlier attempt's.
 * @example await savePendingListing(store, { resourceId, creator, slug, resourceUrl, cardText, cardHash, sampleRequest, agentId })
 */
export async function savePendingListing(
  sql: Sql,
  l: {
    resourceId: Hex;
    creator: Hex;
    slug: string;
    resourceUrl: string;
    cardText: string;
    cardHash: Hex;
    sampleRequest: unknown;
    agentId: string;
  },
  now = Date.now(),
): Promise<void> {
  await sql.query(
    `INSERT INTO listing (resource_id, creator, slug, resource_url, card_text, card_hash, sample_request, agent_id, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $9)
     ON CONFLICT (resource_id) DO UPDATE SET creator = $2, slug = $3, resource_url = $4, card_text = $5, card_hash = $6,
       sample_request = $7, agent_id = $8, status = 'pending', updated_at = $9, seq = next_change_seq()`,
    [
      l.resourceId,
      l.creator,
      l.slug,
      l.resourceUrl,
      l.cardText,
      l.cardHash,
      JSON.stringify(l.sampleRequest),
      l.agentId,
      now,
    ],
  );
}

/** Marks a listing published once the indexer shows its registration. */
export async function markPublished(sql: Sql, resourceId: Hex, now = Date.now()): Promise<void> {
  await sql.query(
    `UPDATE listing SET status = 'published', updated_at = $2, seq = next_change_seq() WHERE resource_id = $1`,
    [resourceId, now],
  );
}

/**
 * Marks `removed` the listing of a publish that failed before its registration was mined: a change with a seq of its
 * own, which every instance sharing the store pulls (a deleted row would leave the others listing it as pending,
 * and listing it once its resource is registered outside the pipeline). A later publish makes it pending again.
 */
export async function removeListing(sql: Sql, resourceId: Hex, now = Date.now()): Promise<void> {
  await sql.query(
    `UPDATE listing SET status = 'removed', updated_at = $2, seq = next_change_seq() WHERE resource_id = $1`,
    [resourceId, now],
  );
}

/** The stored listing of a resource, card included. */
export async function findListing(sql: Sql, resourceId: Hex): Promise<StoredListing | undefined> {
  const [row] = await sql.query<Row>(`SELECT * FROM listing WHERE resource_id = $1`, [resourceId]);
  return row ? fromRow(row) : undefined;
}

/** Listings written after `afterSeq`, oldest change first (the catalog's incremental pull). */
export async function listingsChangedSince(sql: Sql, afterSeq: bigint, limit = 5_000): Promise<StoredListing[]> {
  const rows = await sql.query<Row>(`SELECT * FROM listing WHERE seq > $1 ORDER BY seq LIMIT $2`, [
    afterSeq.toString(),
    limit,
  ]);
  return rows.map(fromRow);
}
