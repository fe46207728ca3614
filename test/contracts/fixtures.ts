import { expect } from "chai";
import { network } from "hardhat";
import type { Address, Hex, Log } from "viem";
import { encodeAbiParameters, getAddress, keccak256, parseEventLogs, parseUnits, toHex } from "viem";
import StackModule from "../../ignition/modules/Stack.ts";
import type { ParsedDebit } from "../../services/protocol/parseDebits.ts";
import { parseDebits } from "../../services/protocol/parseDebits.ts";
import {
  cancelAuthorizationTypes,
  debitAuthorizationTypes,
  escrowDomain,
  receiveWithAuthorizationTypes,
  registerResourceTypes,
  tokenDomain,
  transferWithAuthorizationTypes,
} from "../../services/protocol/typedData.ts";

/** One in-process EDR chain (chain id 5042002) shared by a test file; fixtures snapshot and revert it. */
export const connection = await network.create();
export const { viem, ignition, networkHelpers } = connection;

/** 1 USDC in base units (6 decimals). */
export const USDC = parseUnits("1", 6);

/** Deploys the whole stack through the Ignition `Stack` module, with named roles. */
export async function deployStack() {
  const [admin, relayer, facilitator, treasury, creator, buyer, other, payout] = await viem.getWalletClients();
  const { token, identity, registry, escrow } = await ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: admin!.account.address,
        treasury: treasury!.account.address,
        relayer: relayer!.account.address,
        facilitator: facilitator!.account.address,
        publisher: other!.account.address,
      },
    },
  });
  const publicClient = await viem.getPublicClient();
  return {
    token,
    identity,
    registry,
    escrow,
    publicClient,
    accounts: {
      admin: admin!,
      relayer: relayer!,
      facilitator: facilitator!,
      treasury: treasury!,
      creator: creator!,
      buyer: buyer!,
      other: other!,
      payout: payout!,
    },
  };
}

/**
 * `deployStack`, with each contract re-bound through `viem.getContractAt` so that its ABI is typed
 * (the Ignition module's futures do not carry contract names through to `ignition.deploy`).
 * @example const stack = await networkHelpers.loadFixture(deployTypedStack)
 */
export async function deployTypedStack() {
  const { token, identity, registry, escrow, publicClient, accounts } = await deployStack();
  return {
    token: await viem.getContractAt("IFiatToken", token.address),
    identity: await viem.getContractAt("IdentityRegistry", identity.address),
    registry: await viem.getContractAt("ResourceRegistry", registry.address),
    escrow: await viem.getContractAt("PaymentEscrow", escrow.address),
    publicClient,
    accounts,
  };
}

/** What `deployTypedStack` returns. */
export type Stack = Awaited<ReturnType<typeof deployTypedStack>>;

/** One of the stack's named wallet clients. */
export type Signer = Stack["accounts"]["creator"];

/** Metered price terms of a resource, in base units (the on-chain `Pricing` struct). */
export type Pricing = { base: bigint; perKB: bigint; max: bigint };

/** The on-chain `Registration` struct of `ResourceRegistry.register`. */
export type Registration = {
  slug: string;
  agentId: bigint;
  payout: Address;
  category: string;
  pricing: Pricing;
  cardURI: string;
  cardHash: Hex;
};

/** Price terms used when a test does not care: 0.01 USDC per call, 0.001 per KB, capped at 0.1. */
export const DEFAULT_PRICING: Pricing = { base: USDC / 100n, perKB: USDC / 1000n, max: USDC / 10n };

/**
 * keccak256(abi.encode(creator, slug)), computed off-chain as the contract defines the resource id.
 * @example resourceIdFor(creator.account.address, "weather")
 */
export function resourceIdFor(creator: Address, slug: string): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "string" }], [creator, slug]));
}

/**
 * Mints an ERC-8004 identity for `owner` through `register(agentURI)` and returns its agent id.
 * @example const agentId = await mintAgent(stack, accounts.creator)
 */
export async function mintAgent(stack: Stack, owner: Signer, agentURI = "ipfs://agent"): Promise<bigint> {
  const hash = await stack.identity.write.register([agentURI], { account: owner.account });
  const receipt = await stack.publicClient.waitForTransactionReceipt({ hash });
  const [registered] = parseEventLogs({ abi: stack.identity.abi, eventName: "Registered", logs: receipt.logs });
  if (registered === undefined) throw new Error("register emitted no Registered event");
  return registered.args.agentId;
}

/**
 * A `Registration` with defaults for every field `overrides` leaves out (payout defaults to the stack's payout account).
 * @example buildRegistration(stack, { slug: "weather", agentId })
 */
export function buildRegistration(stack: Stack, overrides: Partial<Registration> & { agentId: bigint }): Registration {
  return {
    slug: "weather",
    payout: stack.accounts.payout.account.address,
    category: "data",
    pricing: DEFAULT_PRICING,
    cardURI: "https://weather.example/.well-known/agent-card.json",
    cardHash: keccak256("0x7b7d"),
    ...overrides,
  };
}

/**
 * Mints an identity for `creator` (the stack's creator by default) and registers a resource bound to it.
 * @example const { resourceId, agentId } = await registerResource(stack, { slug: "weather" })
 */
export async function registerResource(
  stack: Stack,
  overrides: Partial<Registration> & { creator?: Signer } = {},
): Promise<{ resourceId: Hex; agentId: bigint; registration: Registration }> {
  const { creator = stack.accounts.creator, ...fields } = overrides;
  const agentId = fields.agentId ?? (await mintAgent(stack, creator));
  const registration = buildRegistration(stack, { ...fields, agentId });
  const hash = await stack.registry.write.register([registration], { account: creator.account });
  await stack.publicClient.waitForTransactionReceipt({ hash });
  return { resourceId: resourceIdFor(creator.account.address, registration.slug), agentId, registration };
}

/**
 * EIP-712 types of `ResourceRegistry`'s `RegisterResource`, field for field as its type string. The creator signs
 * neither the agent id nor the card: the marketplace mints the identity and finalizes the card after the creator signs.
 */
export const REGISTER_RESOURCE_TYPES = registerResourceTypes;

/** The EIP-712 message of `RegisterResource` for `registration` (its agentId, cardURI and cardHash are not signed). */
export function registerResourceMessage(creator: Address, registration: Registration, deadline: bigint) {
  return {
    creator,
    slug: registration.slug,
    payout: registration.payout,
    category: registration.category,
    base: registration.pricing.base,
    perKB: registration.pricing.perKB,
    max: registration.pricing.max,
    deadline,
  };
}

/**
 * The creator's EIP-712 `RegisterResource` signature for `registerFor`, in the domain {ResourceRegistry, 1}.
 * `signer` signs; `creator` is the address signed for (they differ for an ERC-1271 creator).
 * @example await signRegisterResource(stack, creator, creator.account.address, registration, deadline)
 */
export async function signRegisterResource(
  stack: Stack,
  signer: Signer,
  creator: Address,
  registration: Registration,
  deadline: bigint,
): Promise<Hex> {
  return signer.signTypedData({
    domain: { name: "ResourceRegistry", version: "1", chainId: 5042002, verifyingContract: stack.registry.address },
    types: REGISTER_RESOURCE_TYPES,
    primaryType: "RegisterResource",
    message: registerResourceMessage(creator, registration, deadline),
  });
}

/** The on-chain `BondAuthorization` of `registerFor`: the creator's ReceiveWithAuthorization to the registry. */
export type BondAuthorization = { value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex };

/** No bond: `registerFor` posts nothing (allowed while `minBond` is 0). */
export const NO_BOND: BondAuthorization = {
  value: 0n,
  validAfter: 0n,
  validBefore: 0n,
  nonce: `0x${"00".repeat(32)}`,
  signature: "0x",
};

/**
 * `signer`'s EIP-3009 `ReceiveWithAuthorization` of `value` to the registry, as the `BondAuthorization` of `registerFor`.
 * @example await signBondAuthorization(stack, creator, { value: 5n * USDC, nonce: nonceOf("bond") })
 */
export async function signBondAuthorization(
  stack: Stack,
  signer: Signer,
  fields: { value: bigint; nonce: Hex; from?: Address; validAfter?: bigint; validBefore?: bigint },
): Promise<BondAuthorization> {
  const now = BigInt(await networkHelpers.time.latest());
  const authorization = {
    from: getAddress(fields.from ?? signer.account.address),
    to: stack.registry.address,
    value: fields.value,
    validAfter: fields.validAfter ?? 0n,
    validBefore: fields.validBefore ?? now + AUTHORIZATION_LIFETIME,
    nonce: fields.nonce,
  };
  const signature = await signTokenAuthorization(stack, signer, "ReceiveWithAuthorization", authorization);
  return {
    value: authorization.value,
    validAfter: authorization.validAfter,
    validBefore: authorization.validBefore,
    nonce: authorization.nonce,
    signature,
  };
}

/** The fields of an EIP-3009 authorization. */
export type TokenAuthorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

/** The stablecoin's EIP-712 domain, {USDC, 2}. */
export function tokenDomainOf(stack: Stack) {
  return tokenDomain(stack.token.address);
}

/**
 * An EIP-3009 `TransferWithAuthorization` or `ReceiveWithAuthorization` signature over `authorization`.
 * @example await signTokenAuthorization(stack, creator, "ReceiveWithAuthorization", authorization)
 */
export async function signTokenAuthorization(
  stack: Stack,
  signer: Signer,
  primaryType: "TransferWithAuthorization" | "ReceiveWithAuthorization",
  authorization: TokenAuthorization,
): Promise<Hex> {
  const domain = tokenDomainOf(stack);
  const message = authorization;
  return primaryType === "TransferWithAuthorization"
    ? signer.signTypedData({ domain, types: transferWithAuthorizationTypes, primaryType, message })
    : signer.signTypedData({ domain, types: receiveWithAuthorizationTypes, primaryType, message });
}

// ---------------------------------------------------------------- PaymentEscrow helpers

/** The on-chain `DebitAuthorization` struct, as the buyer signs it. */
export type DebitAuthorization = {
  buyer: Address;
  resourceId: Hex;
  maxAmount: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

/** The on-chain `Debit` struct: an authorization, the amount charged (<= maxAmount) and the signature. */
export type Debit = { authorization: DebitAuthorization; amount: bigint; signature: Hex };

/** The on-chain `ExactPayment` struct: an EIP-3009 transfer to the escrow, and the resource it pays. */
export type ExactPayment = {
  resourceId: Hex;
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
};

/** How long test authorizations stay valid unless a test says otherwise. */
export const AUTHORIZATION_LIFETIME = 3_600n;

/**
 * A deterministic 32-byte nonce named by `label`, so that failures reproduce.
 * @example nonceOf("first call")
 */
export function nonceOf(label: string | number | bigint): Hex {
  return keccak256(toHex(`nonce:${label}`));
}

/**
 * Mints `amount` of the stablecoin to `to` (the stack's admin is the FiatToken's configured minter).
 * @example await mintTokens(stack, buyer.account.address, 10n * USDC)
 */
export async function mintTokens(stack: Stack, to: Address, amount: bigint): Promise<void> {
  const hash = await stack.token.write.mint([to, amount], { account: stack.accounts.admin.account });
  await stack.publicClient.waitForTransactionReceipt({ hash });
}

/**
 * Mints `amount` to `buyer`, approves the escrow and deposits it: the buyer's escrow balance grows by `amount`.
 * @example await fundBuyer(stack, stack.accounts.buyer, 10n * USDC)
 */
export async function fundBuyer(stack: Stack, buyer: Signer, amount: bigint): Promise<void> {
  await mintTokens(stack, buyer.account.address, amount);
  const approval = await stack.token.write.approve([stack.escrow.address, amount], { account: buyer.account });
  await stack.publicClient.waitForTransactionReceipt({ hash: approval });
  const deposit = await stack.escrow.write.deposit([amount], { account: buyer.account });
  await stack.publicClient.waitForTransactionReceipt({ hash: deposit });
}

/**
 * A `DebitAuthorization` for `resourceId` with defaults for the rest: the stack's buyer, the default cap,
 * valid from 0 until an hour after the latest block, and a nonce named after the resource.
 * @example await buildDebitAuthorization(stack, { resourceId, nonce: nonceOf(1) })
 */
export async function buildDebitAuthorization(
  stack: Stack,
  overrides: Partial<DebitAuthorization> & { resourceId: Hex },
): Promise<DebitAuthorization> {
  const now = BigInt(await networkHelpers.time.latest());
  return {
    buyer: getAddress(stack.accounts.buyer.account.address),
    maxAmount: DEFAULT_PRICING.max,
    validAfter: 0n,
    validBefore: now + AUTHORIZATION_LIFETIME,
    nonce: nonceOf(overrides.resourceId),
    ...overrides,
  };
}

/**
 * `signer`'s EIP-712 signature on a `DebitAuthorization`, made with viem's `signTypedData` over the typed data
 * of services/protocol. `domain` defaults to the escrow's own; tests of replay pass another one.
 * @example await signDebit(stack.escrow.address, buyer, authorization)
 */
export async function signDebit(
  escrow: Address,
  signer: Signer,
  authorization: DebitAuthorization,
  domain:
    | ReturnType<typeof escrowDomain>
    | { name: string; version: string; chainId: number; verifyingContract: Address } = escrowDomain(escrow),
): Promise<Hex> {
  return signer.signTypedData({
    domain,
    types: debitAuthorizationTypes,
    primaryType: "DebitAuthorization",
    message: authorization,
  });
}

/**
 * A signed `Debit` for `resourceId`: `amount` defaults to the cap, `signer` to the stack's buyer.
 * @example await signedDebit(stack, { resourceId, amount: 1_200n })
 */
export async function signedDebit(
  stack: Stack,
  overrides: Partial<DebitAuthorization> & { resourceId: Hex; amount?: bigint; signer?: Signer },
): Promise<Debit> {
  const { amount, signer = stack.accounts.buyer, ...fields } = overrides;
  const authorization = await buildDebitAuthorization(stack, fields);
  const signature = await signDebit(stack.escrow.address, signer, authorization);
  return { authorization, amount: amount ?? authorization.maxAmount, signature };
}

/**
 * The buyer's EIP-3009 `TransferWithAuthorization` to the escrow (the `exact` scheme), signed with the typed data
 * of services/protocol, as the `ExactPayment` the relayer settles.
 * @example await signExactPayment(stack, buyer, { resourceId, value: 50_000n })
 */
export async function signExactPayment(
  stack: Stack,
  signer: Signer,
  fields: {
    resourceId: Hex;
    value: bigint;
    from?: Address;
    to?: Address;
    validAfter?: bigint;
    validBefore?: bigint;
    nonce?: Hex;
  },
): Promise<ExactPayment> {
  const now = BigInt(await networkHelpers.time.latest());
  const message = {
    from: getAddress(fields.from ?? signer.account.address),
    to: fields.to ?? stack.escrow.address,
    value: fields.value,
    validAfter: fields.validAfter ?? 0n,
    validBefore: fields.validBefore ?? now + AUTHORIZATION_LIFETIME,
    nonce: fields.nonce ?? nonceOf(`exact:${fields.resourceId}`),
  };
  const signature = await signer.signTypedData({
    domain: tokenDomain(stack.token.address),
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const { to: _to, ...payment } = message;
  return { resourceId: fields.resourceId, ...payment, signature };
}

/**
 * `signer`'s EIP-3009 `ReceiveWithAuthorization` to the escrow, for `depositWithAuthorization`.
 * @example await signDepositAuthorization(stack, buyer, { value: USDC, nonce: nonceOf("deposit") })
 */
export async function signDepositAuthorization(
  stack: Stack,
  signer: Signer,
  fields: { value: bigint; nonce: Hex; validAfter?: bigint; validBefore?: bigint },
): Promise<{ from: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex }> {
  const now = BigInt(await networkHelpers.time.latest());
  const message = {
    from: getAddress(signer.account.address),
    to: stack.escrow.address,
    value: fields.value,
    validAfter: fields.validAfter ?? 0n,
    validBefore: fields.validBefore ?? now + AUTHORIZATION_LIFETIME,
    nonce: fields.nonce,
  };
  const signature = await signer.signTypedData({
    domain: tokenDomain(stack.token.address),
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message,
  });
  const { to: _to, ...authorization } = message;
  return { ...authorization, signature };
}

/**
 * `signer`'s EIP-3009 `CancelAuthorization` of `nonce` (the stablecoin's own type; services/protocol has no use for it).
 * @example await signCancelAuthorization(stack, buyer, payment.nonce)
 */
export async function signCancelAuthorization(stack: Stack, signer: Signer, nonce: Hex): Promise<Hex> {
  return signer.signTypedData({
    domain: tokenDomain(stack.token.address),
    types: cancelAuthorizationTypes,
    primaryType: "CancelAuthorization",
    message: { authorizer: signer.account.address, nonce },
  });
}

/**
 * Submits `payment`'s EIP-3009 transfer to the escrow straight to the token, as anyone may (a front-run of the relayer):
 * the funds arrive at the escrow outside a settlement.
 * @example await submitTransferToToken(stack, payment, stack.accounts.other)
 */
export async function submitTransferToToken(stack: Stack, payment: ExactPayment, by: Signer) {
  return mined(
    stack,
    stack.token.write.transferWithAuthorization(
      [
        payment.from,
        stack.escrow.address,
        payment.value,
        payment.validAfter,
        payment.validBefore,
        payment.nonce,
        payment.signature,
      ],
      { account: by.account },
    ),
  );
}

/**
 * Waits for `hash` and returns its receipt (the transaction must succeed).
 * @example const receipt = await mined(stack, stack.escrow.write.debit([item], { account }))
 */
export async function mined(stack: Stack, hash: Hex | Promise<Hex>) {
  const receipt = await stack.publicClient.waitForTransactionReceipt({ hash: await hash });
  if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
  return receipt;
}

/**
 * The debits a receipt's `BatchDebited` logs carry (decoded by the protocol's one decoder), in order.
 * @example const [debit] = debitsOf(stack, await mined(stack, stack.escrow.write.debit([item], relayer)))
 */
export function debitsOf(stack: { escrow: { address: Address } }, receipt: { logs: readonly Log[] }): ParsedDebit[] {
  return parseDebits(receipt.logs, stack.escrow.address);
}

/**
 * The debits among `logs` as one entry each, shaped as the per-debit `Debited` event's logs were
 * (`{ args: { resourceId, buyer, nonce, amount, treasuryAmount } }`), so that a test compares them field by field.
 * @example expect(debitLogs(stack.escrow, receipt.logs)).to.have.length(3)
 */
export function debitLogs(escrow: { address: Address }, logs: readonly Log[]) {
  return parseDebits(logs, escrow.address).map(({ resourceId, buyer, nonce, amount, treasuryAmount }) => ({
    args: { resourceId, buyer, nonce, amount, treasuryAmount },
  }));
}

/**
 * Asserts that the transaction `hash` is mined and debits (resourceId, buyer, nonce, amount, treasuryAmount) among
 * its debits: what `emitWithArgs(…, "Debited", […])` checked when each debit had a log of its own.
 * @example await expectDebited(stack, stack.escrow.write.debit([item], relayer), [resourceId, buyer, nonce, 1_200n, 60n])
 */
export async function expectDebited(
  stack: Pick<Stack, "publicClient"> & { escrow: { address: Address } },
  hash: Hex | Promise<Hex>,
  [resourceId, buyer, nonce, amount, treasuryAmount]: readonly [Hex, Address, Hex, bigint, bigint],
): Promise<void> {
  const receipt = await stack.publicClient.waitForTransactionReceipt({ hash: await hash });
  expect(receipt.status, `transaction ${receipt.transactionHash}`).to.equal("success");
  const debits = debitsOf(stack, receipt);
  const wanted = { resourceId, buyer: getAddress(buyer), nonce, amount, treasuryAmount };
  const found = debits.map((d) => ({
    resourceId: d.resourceId,
    buyer: d.buyer,
    nonce: d.nonce,
    amount: d.amount,
    treasuryAmount: d.treasuryAmount,
  }));
  expect(found).to.deep.include(wanted);
}

/**
 * The stablecoin the escrow holds and what it owes (buyer balances plus unclaimed earnings).
 * @example const { held, owed } = await escrowHoldings(stack)
 */
export async function escrowHoldings(stack: Stack): Promise<{ held: bigint; owed: bigint }> {
  const held = await stack.token.read.balanceOf([stack.escrow.address]);
  const owed = await stack.escrow.read.totalLiabilities();
  return { held, owed };
}

/**
 * The stack, a registered resource (payout = the stack's payout account) and a buyer with 100 USDC in escrow.
 * @example const { escrow, resourceId, accounts } = await networkHelpers.loadFixture(deployFundedEscrow)
 */
export async function deployFundedEscrow() {
  const stack = await deployTypedStack();
  const { resourceId } = await registerResource(stack, { slug: "weather" });
  await fundBuyer(stack, stack.accounts.buyer, 100n * USDC);
  return { ...stack, resourceId };
}

/**
 * Runs `send` in a block mined at `timestamp`. When `send` fails before mining (a revert found while estimating
 * gas), a block is mined anyway so that the timestamp does not leak into the next transaction.
 * @example await atNextBlock(validBefore, () => assertions.revertWithCustomErrorWithArgs(...))
 */
export async function atNextBlock<T>(timestamp: bigint | number, send: () => Promise<T>): Promise<T> {
  await networkHelpers.time.setNextBlockTimestamp(timestamp);
  try {
    return await send();
  } finally {
    if ((await networkHelpers.time.latest()) < Number(timestamp)) await networkHelpers.mine();
  }
}

/** How long a tightening of a buyer's spend limit waits before it may be applied (the escrow's SPEND_LIMIT_DELAY). */
export const SPEND_LIMIT_DELAY = 86_400n;

/**
 * Puts `limit` per `period` seconds in force for `signer`: `setSpendLimit`, and when that only requested the change
 * (a tightening waits SPEND_LIMIT_DELAY), lets the delay pass and applies it. Sign authorizations after this: the
 * block clock may have moved a day.
 * @example await spendLimitInForce(stack, stack.accounts.buyer, 5_000n, 3_600n)
 */
export async function spendLimitInForce(stack: Stack, signer: Signer, limit: bigint, period: bigint) {
  const receipt = await mined(stack, stack.escrow.write.setSpendLimit([limit, period], { account: signer.account }));
  if (parseEventLogs({ abi: stack.escrow.abi, eventName: "SpendLimitSet", logs: receipt.logs }).length > 0) {
    return receipt;
  }
  await networkHelpers.time.increase(Number(SPEND_LIMIT_DELAY));
  return mined(stack, stack.escrow.write.applySpendLimit([signer.account.address], { account: signer.account }));
}
