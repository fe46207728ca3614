import type { CallableContractFuture, ContractFuture, IgnitionModuleBuilder } from "@nomicfoundation/ignition-core";

type Contract = ContractFuture<string>;

/**
 * Deploy-time settings shared by every module. They are read from the `$global` section of an Ignition
 * parameters file, so one file configures the local stack and the test network alike.
 */
export const DEFAULTS = {
  feeBps: 500,
  strikeThreshold: 3,
  slashBps: 5_000,
  minBond: 0n,
  bondWithdrawalDelay: 7n * 24n * 60n * 60n,
} as const;

/** Deploys the ResourceRegistry against a stablecoin and an ERC-8004 identity registry. */
export function deployResourceRegistry(m: IgnitionModuleBuilder, token: Contract, identity: Contract) {
  const admin = m.getParameter("admin", m.getAccount(0));
  return m.contract("ResourceRegistry", [
    token,
    identity,
    m.getParameter("treasury", m.getAccount(0)),
    admin,
    m.getParameter("strikeThreshold", DEFAULTS.strikeThreshold),
    m.getParameter("slashBps", DEFAULTS.slashBps),
    m.getParameter("minBond", DEFAULTS.minBond),
    m.getParameter("bondWithdrawalDelay", DEFAULTS.bondWithdrawalDelay),
  ]);
}

/** Deploys the PaymentEscrow bound to a stablecoin and a ResourceRegistry. */
export function deployPaymentEscrow(m: IgnitionModuleBuilder, token: Contract, registry: Contract) {
  return m.contract("PaymentEscrow", [
    token,
    registry,
    m.getParameter("treasury", m.getAccount(0)),
    m.getParameter("feeBps", DEFAULTS.feeBps),
    m.getParameter("admin", m.getAccount(0)),
  ]);
}

/**
 * Grants the relayer the right to debit, the facilitator the right to record strikes and the publisher (the
 * marketplace's operator) the right to submit `registerFor`.
 */
export function grantServiceRoles(
  m: IgnitionModuleBuilder,
  escrow: CallableContractFuture<"PaymentEscrow">,
  registry: CallableContractFuture<"ResourceRegistry">,
): void {
  const relayerRole = m.staticCall(escrow, "RELAYER_ROLE");
  const facilitatorRole = m.staticCall(registry, "FACILITATOR_ROLE");
  m.call(escrow, "grantRole", [relayerRole, m.getParameter("relayer", m.getAccount(0))], { id: "grantRelayer" });
  m.call(registry, "grantRole", [facilitatorRole, m.getParameter("facilitator", m.getAccount(0))], {
    id: "grantFacilitator",
  });
  const publisherRole = m.staticCall(registry, "PUBLISHER_ROLE");
  m.call(registry, "grantRole", [publisherRole, m.getParameter("publisher", m.getAccount(0))], {
    id: "grantPublisher",
  });
}
