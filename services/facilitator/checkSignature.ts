import type { Address, Hex } from "viem";
import type { ChainReader } from "./chain.ts";
import { recoverSigner } from "./recoverSigner.ts";

/** Half the secp256k1 group order: a signature with a larger `s` is malleable and refused, as on chain. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * Whether `signature` is `signer`'s signature of `digest`: low-s ECDSA for accounts, ERC-1271 for contract
 * wallets — the same rule as OpenZeppelin's SignatureChecker, which the contracts apply.
 * @example await checkSignature({ chain, signer: buyer, digest, signature })
 */
export async function checkSignature({ chain, signer, digest, signature }: {
  chain: Pick<ChainReader, "isContract" | "isValidErc1271">;
  signer: Address;
  digest: Hex;
  signature: Hex;
}): Promise<boolean> {
  if (await recoversTo(signer, digest, signature)) return true;
  if (!(await chain.isContract(signer))) return false;
  return chain.isValidErc1271(signer, digest, signature);
}

async function recoversTo(signer: Address, digest: Hex, signature: Hex): Promise<boolean> {
  if (signature.length !== 132) return false;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  if (s > HALF_ORDER || (v !== 27 && v !== 28)) return false;
  return (await recoverSigner(digest, signature)) === signer;
}
