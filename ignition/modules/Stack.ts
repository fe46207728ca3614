import { buildModule } from "@nomicfoundation/ignition-core";
import PaymentEscrowModule from "./PaymentEscrow.ts";
import { grantServiceRoles } from "./parts.ts";

/** Everything on a local chain: stablecoin, identity, registry, escrow, and the service roles granted. */
export default buildModule("Stack", (m) => {
  const { token, identity, registry, escrow } = m.useModule(PaymentEscrowModule);
  grantServiceRoles(m, escrow, registry);
  return { token, identity, registry, escrow };
});
