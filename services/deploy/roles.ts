import type { Address, Hex } from "viem";
import { keccak256, toBytes, zeroHash } from "viem";
import type { DeployParameters } from "./deployParameters.ts";

/** The two contracts a deployment holds roles on. */
export type RoleContract = "escrow" | "registry";

/** Every role of the escrow and the registry, by name (the contracts' own constants: keccak-256 of the name). */
export const ROLES = {
  escrow: {
    DEFAULT_ADMIN_ROLE: zeroHash,
    PAUSER_ROLE: keccak256(toBytes("PAUSER_ROLE")),
    RELAYER_ROLE: keccak256(toBytes("RELAYER_ROLE")),
  },
  registry: {
    DEFAULT_ADMIN_ROLE: zeroHash,
    FACILITATOR_ROLE: keccak256(toBytes("FACILITATOR_ROLE")),
    PUBLISHER_ROLE: keccak256(toBytes("PUBLISHER_ROLE")),
  },
} as const satisfies Record<RoleContract, Record<string, Hex>>;

/** A role on one contract and the exact set of accounts that should hold it. */
export type RoleAssignment = { contract: RoleContract; role: string; hash: Hex; holders: Address[] };

/**
 * Who must hold each role other than DEFAULT_ADMIN_ROLE (which moves by the two-step hand-off): the relayer pool,
 * the facilitator, the publisher, and the admin as pauser. Nobody else: `npm run deploy` grants what is missing and
 * revokes every other holder, and `npm run check-deployment` reports any difference.
 * @example for (const { contract, role, holders } of roleAssignments(parameters)) …
 */
export function roleAssignments(p: Pick<DeployParameters, "admin" | "relayers" | "facilitator" | "publisher">) {
  const assignments: RoleAssignment[] = [
    { contract: "escrow", role: "PAUSER_ROLE", hash: ROLES.escrow.PAUSER_ROLE, holders: [p.admin] },
    { contract: "escrow", role: "RELAYER_ROLE", hash: ROLES.escrow.RELAYER_ROLE, holders: [...p.relayers] },
    { contract: "registry", role: "FACILITATOR_ROLE", hash: ROLES.registry.FACILITATOR_ROLE, holders: [p.facilitator] },
    { contract: "registry", role: "PUBLISHER_ROLE", hash: ROLES.registry.PUBLISHER_ROLE, holders: [p.publisher] },
  ];
  return assignments;
}
