import type { Address } from "viem";
import {
  CHAIN_ID,
  ESCROW_DOMAIN_NAME,
  ESCROW_DOMAIN_VERSION,
  TOKEN_DOMAIN_NAME,
  TOKEN_DOMAIN_VERSION,
} from "./constants.ts";
import type { EscrowAuthorization, ExactAuthorization } from "./schemas/paymentPayload.ts";

/** The `DebitAuthorization` type string; the PaymentEscrow contract hashes exactly this. */
export const DEBIT_AUTHORIZATION_TYPE =
  "DebitAuthorization(address buyer,bytes32 resourceId,uint256 maxAmount,uint256 validAfter,uint256 validBefore,bytes32 nonce)";

/** EIP-712 types of the escrow debit. */
export const debitAuthorizationTypes = {
  DebitAuthorization: [
    { name: "buyer", type: "address" },
    { name: "resourceId", type: "bytes32" },
    { name: "maxAmount", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

const eip3009Fields = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

/** EIP-712 types of EIP-3009 `TransferWithAuthorization`. */
export const transferWithAuthorizationTypes = { TransferWithAuthorization: eip3009Fields } as const;

/** EIP-712 types of EIP-3009 `ReceiveWithAuthorization`. */
export const receiveWithAuthorizationTypes = { ReceiveWithAuthorization: eip3009Fields } as const;

/** EIP-712 types of EIP-3009 `CancelAuthorization`: the payer voids an unused authorization at the token. */
export const cancelAuthorizationTypes = {
  CancelAuthorization: [
    { name: "authorizer", type: "address" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/**
 * The EIP-712 domain of the PaymentEscrow contract.
 * @example escrowDomain('0x5FbDB2315678afecb367f032d93F642f64180aa3')
 */
export function escrowDomain(verifyingContract: Address) {
  return { name: ESCROW_DOMAIN_NAME, version: ESCROW_DOMAIN_VERSION, chainId: CHAIN_ID, verifyingContract } as const;
}

/**
 * The EIP-712 domain of the stablecoin, for EIP-3009 and EIP-2612 signatures.
 * @example tokenDomain(usdc) // { name: 'USDC', version: '2', chainId: 5042002, verifyingContract: usdc }
 */
export function tokenDomain(token: Address, chainId: number = CHAIN_ID) {
  return { name: TOKEN_DOMAIN_NAME, version: TOKEN_DOMAIN_VERSION, chainId, verifyingContract: token } as const;
}

/**
 * A debit authorization as the escrow takes it (the `DebitAuthorization` struct, amounts and times as bigint): the
 * signed message, and the `authorization` of a debit sent to the contract.
 * @example await escrow.write.debit([{ authorization: debitAuthorization(payload.authorization), amount, signature }])
 */
export function debitAuthorization(authorization: EscrowAuthorization) {
  return {
    buyer: authorization.buyer,
    resourceId: authorization.resourceId,
    maxAmount: BigInt(authorization.maxAmount),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce,
  };
}

/**
 * Full typed data of a debit authorization, ready for viem's `signTypedData`, `hashTypedData` and `recoverTypedDataAddress`.
 * @example await account.signTypedData(debitTypedData(authorization, escrow))
 */
export function debitTypedData(authorization: EscrowAuthorization, escrow: Address) {
  return {
    domain: escrowDomain(escrow),
    types: debitAuthorizationTypes,
    primaryType: "DebitAuthorization",
    message: debitAuthorization(authorization),
  } as const;
}

/**
 * Full typed data of an EIP-3009 `TransferWithAuthorization` for the exact scheme.
 * @example await account.signTypedData(transferTypedData(authorization, usdc))
 */
export function transferTypedData(authorization: ExactAuthorization, token: Address, chainId: number = CHAIN_ID) {
  return {
    domain: tokenDomain(token, chainId),
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: authorization.from,
      to: authorization.to,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  } as const;
}

/** EIP-712 domain name and version of the ResourceRegistry contract. */
export const REGISTRY_DOMAIN = { name: "ResourceRegistry", version: "1" } as const;

/**
 * The `RegisterResource` type string the ResourceRegistry hashes for `registerFor`. The creator signs neither the
 * agent id nor the card: the marketplace mints the identity and finalizes the card after the creator has signed.
 */
export const REGISTER_RESOURCE_TYPE =
  "RegisterResource(address creator,string slug,address payout,string category,uint128 base,uint128 perKB,uint128 max,uint256 deadline)";

/** EIP-712 types of the registry's `RegisterResource`. */
export const registerResourceTypes = {
  RegisterResource: [
    { name: "creator", type: "address" },
    { name: "slug", type: "string" },
    { name: "payout", type: "address" },
    { name: "category", type: "string" },
    { name: "base", type: "uint128" },
    { name: "perKB", type: "uint128" },
    { name: "max", type: "uint128" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** What a creator consents to in `RegisterResource`. */
export type RegisterResourceMessage = {
  creator: Address;
  slug: string;
  payout: Address;
  category: string;
  base: bigint | string;
  perKB: bigint | string;
  max: bigint | string;
  deadline: bigint | string;
};

/**
 * Full typed data of a creator's `RegisterResource` consent, under the registry's domain.
 * @example await creator.signTypedData(registerResourceTypedData(message, registry))
 */
export function registerResourceTypedData(
  message: RegisterResourceMessage,
  registry: Address,
  chainId: number = CHAIN_ID,
) {
  return {
    domain: { ...REGISTRY_DOMAIN, chainId, verifyingContract: registry },
    types: registerResourceTypes,
    primaryType: "RegisterResource",
    message: {
      creator: message.creator,
      slug: message.slug,
      payout: message.payout,
      category: message.category,
      base: BigInt(message.base),
      perKB: BigInt(message.perKB),
      max: BigInt(message.max),
      deadline: BigInt(message.deadline),
    },
  } as const;
}

/**
 * Full typed data of a creator's bond: an EIP-3009 `ReceiveWithAuthorization` from the creator to the registry.
 * @example await creator.signTypedData(bondTypedData({ from, value, validAfter, validBefore, nonce }, registry, usdc))
 */
export function bondTypedData(
  b: {
    from: Address;
    value: bigint | string;
    validAfter: bigint | string;
    validBefore: bigint | string;
    nonce: `0x${string}`;
  },
  registry: Address,
  token: Address,
  chainId: number = CHAIN_ID,
) {
  return {
    domain: tokenDomain(token, chainId),
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: b.from,
      to: registry,
      value: BigInt(b.value),
      validAfter: BigInt(b.validAfter),
      validBefore: BigInt(b.validBefore),
      nonce: b.nonce,
    },
  } as const;
}
