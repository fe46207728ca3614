import type {
  AccountRuntimeValue,
  CallableContractFuture,
  ContractFuture,
  IgnitionModuleBuilder,
  ModuleParameterRuntimeValue,
} from "@nomicfoundation/ignition-core";

type Contract = ContractFuture<string>;

/**
 * Deploy-time settings shared by every module. They are read from the `$global` section of an Ignition
 * parameters file, so one file configures the local stack and the test network alike.
 */
export const DEFAULTS = {
  feeBps: 500,
  strikeThreshold: 3,
  slashBps: 5_000,
  /** The embedded chain's; a registry deployed onto a network asks DEFAULT_MIN_BOND unless set (services/deploy). */
  minBond: 0n,
  bondWithdrawalDelay: 7n * 24n * 60n * 60n,
  /**
   * Seconds a transfer of either contract's DEFAULT_ADMIN_ROLE waits between `beginDefaultAdminTransfer` and
   * `acceptDefaultAdminTransfer`: longer than the escrow's one-day WITHDRAWAL_DELAY, so buyers can leave before a new
   * admin can act.
   */
  adminDelay: 3 * 24 * 60 * 60,
} as const;

/**
 * Who a module's contracts name in their constructors: the admin (DEFAULT_ADMIN_ROLE, and PAUSER_ROLE on the escrow)
 * and the treasury. A local module may default them to the deployer; the test network's takes the treasury from its
 * parameters, with no default, and the deployer as the first admin, which hands the role over afterwards.
 */
type Account =
  | AccountRuntimeValue
  | ModuleParameterRuntimeValue<string>
  | ModuleParameterRuntimeValue<AccountRuntimeValue>;
export type ConstructorRoles = { admin: Account; treasury: Account };

/** The local chain's constructor roles: each a parameter, the deployer when it is not given. */
export function localConstructorRoles(m: IgnitionModuleBuilder): ConstructorRoles {
  return {
    admin: m.getParameter("admin", m.getAccount(0)),
    treasury: m.getParameter("treasury", m.getAccount(0)),
  };
}

/** Deploys the ResourceRegistry against a stablecoin and an ERC-8004 identity registry. */
export function deployResourceRegistry(
  m: IgnitionModuleBuilder,
  token: Contract,
  identity: Contract,
  roles: ConstructorRoles = localConstructorRoles(m),
) {
  return m.contract("ResourceRegistry", [
    token,
    identity,
    roles.treasury,
    roles.admin,
    m.getParameter("strikeThreshold", DEFAULTS.strikeThreshold),
    m.getParameter("slashBps", DEFAULTS.slashBps),
    m.getParameter("minBond", DEFAULTS.minBond),
    m.getParameter("bondWithdrawalDelay", DEFAULTS.bondWithdrawalDelay),
    m.getParameter("adminDelay", DEFAULTS.adminDelay),
  ]);
}

/** Deploys the PaymentEscrow bound to a stablecoin and a ResourceRegistry. */
export function deployPaymentEscrow(
  m: IgnitionModuleBuilder,
  token: Contract,
  registry: Contract,
  roles: ConstructorRoles = localConstructorRoles(m),
) {
  return m.contract("PaymentEscrow", [
    token,
    registry,
    roles.treasury,
    m.getParameter("feeBps", DEFAULTS.feeBps),
    roles.admin,
    m.getParameter("adminDelay", DEFAULTS.adminDelay),
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
