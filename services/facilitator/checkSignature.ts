import type { Address, Hex } from "viem";
import type { ChainReader } from "./chain.ts";
import { recoverSigner } from "./recoverSigner.ts";

/** Half the secp256k1 group order: a signature with a larger `s` is malleable and refused, as on chain. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** How a signature was accepted: by the signer's key, or by its ERC-1271 contract; false when it was not. */
export type SignatureCheck = false | "key" | "contract";

/**
 * Whether `signature` is `signer`'s signature of `digest`, by the rule of the contract that will check it on chain,
 * and how (the relayer budgets an ERC-1271 check's gas for a `"contract"` one):
 * - `"key-first"` (the escrow's debits): a low-s ECDSA signature by the signer's key is accepted, even for an
 *   account that delegates to code (EIP-7702); otherwise ERC-1271 if the signer has code;
 * - `"code-first"` (EIP-3009 on the token, OpenZeppelin's SignatureChecker): a signer with code answers through
 *   ERC-1271 only; one without, through ECDSA.
 * @example await checkSignature({ chain, signer: buyer, digest, signature, rule: "key-first" })
 */
export async function checkSignature({
  chain,
  signer,
  digest,
  signature,
  rule,
}: {
  chain: Pick<ChainReader, "isContract" | "isValidErc1271">;
  signer: Address;
  digest: Hex;
  signature: Hex;
  rule: "key-first" | "code-first";
}): Promise<SignatureCheck> {
  const byContract = async () => ((await chain.isValidErc1271(signer, digest, signature)) ? "contract" : false);
  if (rule === "code-first" && (await chain.isContract(signer))) return byContract();
  if (await recoversTo(signer, digest, signature)) return "key";
  if (rule === "code-first" || !(await chain.isContract(signer))) return false;
  return byContract();
}

async function recoversTo(signer: Address, digest: Hex, signature: Hex): Promise<boolean> {
  if (signature.length !== 132) return false;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  if (s > HALF_ORDER || (v !== 27 && v !== 28)) return false;
  return (await recoverSigner(digest, signature)) === signer;
}
