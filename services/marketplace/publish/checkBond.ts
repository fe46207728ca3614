import type { Address, Hex } from "viem";
import { bondNonceAllows } from "../../protocol/bondNonce.ts";
import { bondTypedData, registerResourceTypedData } from "../../protocol/typedData.ts";
import type { MarketplaceChain } from "../chain.ts";
import type { PublishRequest } from "./publishRequest.ts";

/** A bond authorization must stay valid this long after the check, so that the registration can still use it. */
export const BOND_VALIDITY_MARGIN_SECONDS = 300;

export type CheckBondParameters = {
  chain: MarketplaceChain;
  request: PublishRequest;
  resourceId: Hex;
  /** The marketplace's least bond; the registry's `minBond` applies when higher. */
  minBond: bigint;
  now: number;
};

/**
 * The bond stage: the creator's signed consent and funds. The bond is an EIP-3009 `ReceiveWithAuthorization` from the
 * creator to the registry of at least the least bond, valid well past now, its nonce bound to this resource id (as
 * the registry requires: bondNonce.ts), unused, signed by the creator (ECDSA or ERC-1271) and covered by the creator's
 * balance; the `RegisterResource` consent is the creator's and unexpired; the
 * resource id is still free. The bond itself moves later, inside `registerFor`, from the creator: never from the
 * operator's funds, and never without the registration.
 * @example const verdict = await checkBond({ chain, request, resourceId, minBond: 1_000_000n, now })
 */
export async function checkBond({
  chain,
  request,
  resourceId,
  minBond,
  now,
}: CheckBondParameters): Promise<{ ok: true; bond: bigint } | { ok: false; reason: string }> {
  const { bond, creator } = request;
  if (!bond)
    return {
      ok: false,
      reason: "no bond authorization: the creator must sign a ReceiveWithAuthorization to the registry",
    };
  const least = [minBond, await chain.minBond()].reduce((a, b) => (a > b ? a : b));
  const value = BigInt(bond.value);
  if (value < least) return { ok: false, reason: `bond ${value} is below the least bond ${least}` };
  if (BigInt(bond.validAfter) >= BigInt(now)) return { ok: false, reason: "the bond authorization is not valid yet" };
  if (BigInt(bond.validBefore) <= BigInt(now + BOND_VALIDITY_MARGIN_SECONDS)) {
    return { ok: false, reason: `the bond authorization must stay valid at least ${BOND_VALIDITY_MARGIN_SECONDS} s` };
  }
  if (!bondNonceAllows(bond.nonce, resourceId))
    return {
      ok: false,
      reason: `the bond authorization's nonce must begin with the first 16 bytes of the resource id ${resourceId}`,
    };
  if (BigInt(request.registration.deadline) <= BigInt(now + BOND_VALIDITY_MARGIN_SECONDS)) {
    return { ok: false, reason: `the registration consent must stay valid at least ${BOND_VALIDITY_MARGIN_SECONDS} s` };
  }
  const { registry, token } = chain.addresses;
  const bondSigned = await chain.publicClient.verifyTypedData({
    address: creator,
    ...bondTypedData(
      {
        from: creator,
        value: bond.value,
        validAfter: bond.validAfter,
        validBefore: bond.validBefore,
        nonce: bond.nonce,
      },
      registry,
      token,
    ),
    signature: bond.signature,
  });
  if (!bondSigned)
    return {
      ok: false,
      reason: "the bond authorization is not signed by the creator (ReceiveWithAuthorization to the registry)",
    };
  const consented = await chain.publicClient.verifyTypedData({
    address: creator,
    ...registerResourceTypedData(
      {
        creator,
        slug: request.slug,
        payout: request.payout,
        category: request.category,
        base: request.pricing.base,
        perKB: request.pricing.perKB,
        max: request.pricing.max,
        deadline: request.registration.deadline,
      },
      registry,
    ),
    signature: request.registration.signature,
  });
  if (!consented) return { ok: false, reason: "the registration is not signed by the creator (RegisterResource)" };
  if (await chain.authorizationUsed(creator as Address, bond.nonce))
    return { ok: false, reason: "the bond authorization's nonce is already used" };
  const balance = await chain.tokenBalance(creator);
  if (balance < value) return { ok: false, reason: `the creator holds ${balance}, less than the bond ${value}` };
  if (await chain.isRegistered(resourceId))
    return { ok: false, reason: `resource ${resourceId} is already registered` };
  return { ok: true, bond: value };
}
