import type { Address } from "viem";
import { getAddress, verifyTypedData } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { bondTypedData } from "../../../protocol/typedData.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { formatAmount } from "./formatAmount.ts";
import type { DepositAuthorization } from "./signDepositAuthorization.ts";

/**
 * Checks a deposit authorization before anyone spends gas on it: it is `from`'s `ReceiveWithAuthorization` of exactly
 * `value` to the trusted escrow (one signed for another payee or another amount fails here, `bad_authorization`),
 * it is valid at the latest block and its nonce unused at the token, and `from`'s wallet holds `value`
 * (`insufficient_wallet`).
 * @example await checkDepositAuthorization(chain, asset, authorization, 1_000_000n)
 */
export async function checkDepositAuthorization(
  chain: BuyerChain,
  asset: Address,
  authorization: DepositAuthorization,
  value: bigint,
): Promise<void> {
  const from = getAddress(authorization.from);
  const what = `a ReceiveWithAuthorization of ${formatAmount.text(value)} from ${from} to the escrow ${chain.escrow}`;
  if (BigInt(authorization.value) !== value)
    throw new BuyerError(
      "bad_authorization",
      `the authorization is for ${formatAmount.text(authorization.value)}, not the ${formatAmount.text(value)} asked: nothing was sent`,
    );
  const typed = bondTypedData({ ...authorization, from }, chain.escrow, asset, await chain.publicClient.getChainId());
  const valid = await verifyTypedData({ ...typed, address: from, signature: authorization.signature }).catch(
    () => false,
  );
  if (!valid)
    throw new BuyerError(
      "bad_authorization",
      `the signature is not ${what} (signed for another payee, amount, token or chain): nothing was sent`,
    );
  const latest = await chain.publicClient.getBlock({ blockTag: "latest" });
  if (latest.timestamp < BigInt(authorization.validAfter) || latest.timestamp >= BigInt(authorization.validBefore))
    throw new BuyerError(
      "bad_authorization",
      `the authorization is valid from ${authorization.validAfter} to ${authorization.validBefore} (unix seconds), not now (${latest.timestamp}): sign a new one`,
    );
  const [used, wallet] = await Promise.all([
    chain.publicClient.readContract({
      address: asset,
      abi: abiOf("IFiatToken"),
      functionName: "authorizationState",
      args: [from, authorization.nonce],
    }),
    chain.publicClient.readContract({
      address: asset,
      abi: abiOf("IFiatToken"),
      functionName: "balanceOf",
      args: [from],
    }),
  ]);
  if (used)
    throw new BuyerError("bad_authorization", `the authorization's nonce ${authorization.nonce} is already used`);
  if (wallet < value)
    throw new BuyerError(
      "insufficient_wallet",
      `the wallet ${from} holds ${formatAmount.text(wallet)}, less than the ${formatAmount.text(value)} to deposit`,
    );
}
