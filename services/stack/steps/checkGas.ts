import type { Address, Hex } from "viem";
import { createPublicClient, formatEther, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { endpointLabel } from "../../http/rpcUrls.ts";
import { BASE_FEE_FLOOR_WEI } from "../../protocol/constants.ts";
import type { StackRun } from "../stackRun.ts";
import { keysOf } from "../stackRun.ts";

/** Gas of the cheapest transaction (a plain transfer): a key that cannot pay for it holds no gas. */
const TRANSFER_GAS = 21_000n;

/**
 * In external mode, refuses to start while a key that sends transactions (the deployer, each relayer, the
 * facilitator, the publisher) cannot pay for one transaction at the chain's current base fee (at least the test
 * network's 20 gwei floor): such a relayer would accept payments it can never settle. Gas is the chain's native
 * currency (USDC on the test network).
 * @example await checkGas(run)
 */
export async function checkGas(run: StackRun): Promise<void> {
  if (!run.external) return;
  const keys = keysOf(run);
  const senders: [string, Hex][] = [
    ["deployer (DEPLOYER_KEY)", keys.deployer],
    ...keys.relayers.map((key, i): [string, Hex] => [`relayer ${i + 1} of RELAYER_KEYS`, key]),
    ["facilitator (FACILITATOR_KEY)", keys.facilitator],
    ["publisher (PUBLISHER_KEY)", keys.publisher],
  ];
  const client = createPublicClient({ transport: http(run.urls.rpc) });
  const block = await client.getBlock();
  const baseFee = block.baseFeePerGas ?? 0n;
  const needed = TRANSFER_GAS * (baseFee > BASE_FEE_FLOOR_WEI ? baseFee : BASE_FEE_FLOOR_WEI);
  const roles = new Map<Address, string[]>();
  for (const [role, key] of senders) {
    const address = privateKeyToAccount(key).address;
    roles.set(address, [...(roles.get(address) ?? []), role]);
  }
  const unfunded: string[] = [];
  for (const [address, of] of roles) {
    const balance = await client.getBalance({ address });
    if (balance < needed) unfunded.push(`${of.join(" and ")} ${address} holds ${formatEther(balance)}`);
  }
  if (unfunded.length)
    throw new Error(
      `refusing to start: ${unfunded.join("; ")} of the chain's gas currency at ${endpointLabel(run.urls.rpc)}, less than one ` +
        `transaction costs (${formatEther(needed)}: ${TRANSFER_GAS} gas at ${baseFee} wei base fee, floor 20 gwei). ` +
        "Fund each key with gas (USDC on the test network) and start again.",
    );
  run.say(`every sending key holds gas (at least ${formatEther(needed)} each)`);
}
