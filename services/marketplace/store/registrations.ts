import type { Hex } from "viem";
import type { Sql } from "../../store/store.ts";

/** The ERC-8004 identity the marketplace minted for a resource, and what its registration file says. */
export type AgentRegistration = {
  resourceId: Hex;
  agentId: string;
  creator: Hex;
  name: string;
  description: string;
  mintedTx: Hex;
};

type Row = {
  resource_id: string;
  agent_id: string;
  creator: string;
  name: string;
  description: string;
  minted_tx: string;
};

/** Records (or replaces) the identity minted for a resource. */
export async function saveRegistration(sql: Sql, r: AgentRegistration, now = Date.now()): Promise<void> {
  await sql.query(
    `INSERT INTO agent_registration (resource_id, agent_id, creator, name, description, minted_tx, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (resource_id) DO UPDATE SET agent_id = $2, creator = $3, name = $4, description = $5, minted_tx = $6, created_at = $7`,
    [r.resourceId, r.agentId, r.creator, r.name, r.description, r.mintedTx, now],
  );
}

/** The identity minted for a resource, if any. */
export async function findRegistration(sql: Sql, resourceId: Hex): Promise<AgentRegistration | undefined> {
  const [row] = await sql.query<Row>(`SELECT * FROM agent_registration WHERE resource_id = $1`, [resourceId]);
  if (!row) return undefined;
  return {
    resourceId: row.resource_id as Hex,
    agentId: row.agent_id,
    creator: row.creator as Hex,
    name: row.name,
    description: row.description,
    mintedTx: row.minted_tx as Hex,
  };
}
