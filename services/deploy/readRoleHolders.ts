import type { Address, Hex, PublicClient } from "viem";
import { getAddress, parseAbiItem } from "viem";
import { DeployError } from "./deployError.ts";

const ROLE_EVENTS = [
  parseAbiItem("event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)"),
  parseAbiItem("event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)"),
] as const;

/** Every role's holders on one contract, by role hash (lowercase). */
export type RoleHolders = Map<Hex, Set<Address>>;

/**
 * Who holds every role of an AccessControl contract, from its `RoleGranted` and `RoleRevoked` events since
 * `fromBlock` (its deployment): the contracts do not enumerate holders, and an account granted a role behind the
 * deployment's back shows only there. Paged in ranges of `logRangeBlocks` (public RPCs cap the range).
 * @throws {DeployError} when a page cannot be read, suggesting a smaller LOG_RANGE_BLOCKS.
 * @example const holders = await readRoleHolders(client, escrow, startBlock)
 */
export async function readRoleHolders(
  client: PublicClient,
  address: Address,
  fromBlock: bigint,
  logRangeBlocks = 10_000,
): Promise<RoleHolders> {
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const holders: RoleHolders = new Map();
  const span = BigInt(Math.max(1, logRangeBlocks));
  for (let from = fromBlock; from <= latest; from += span) {
    const to = from + span - 1n < latest ? from + span - 1n : latest;
    let logs: Awaited<ReturnType<typeof client.getLogs<undefined, typeof ROLE_EVENTS>>>;
    try {
      logs = await client.getLogs({ address, events: ROLE_EVENTS, fromBlock: from, toBlock: to, strict: true });
    } catch (error) {
      throw new DeployError(
        `reading the role events of ${address} in blocks ${from}-${to} failed (${(error as { shortMessage?: string }).shortMessage ?? (error as Error).message}); a smaller LOG_RANGE_BLOCKS may help`,
      );
    }
    for (const log of logs) {
      if (!log.args.role || !log.args.account) continue;
      const role = log.args.role.toLowerCase() as Hex;
      const set = holders.get(role) ?? new Set<Address>();
      if (log.eventName === "RoleGranted") set.add(getAddress(log.args.account));
      else set.delete(getAddress(log.args.account));
      holders.set(role, set);
    }
  }
  return holders;
}

/**
 * The holders of one role, sorted.
 * @example holdersOf(holders, ROLES.escrow.RELAYER_ROLE)
 */
export function holdersOf(holders: RoleHolders, role: Hex): Address[] {
  return [...(holders.get(role.toLowerCase() as Hex) ?? [])].sort();
}
