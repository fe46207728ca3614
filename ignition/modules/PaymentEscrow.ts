import { buildModule } from "@nomicfoundation/ignition-core";
import { deployPaymentEscrow } from "./parts.ts";
import ResourceRegistryModule from "./ResourceRegistry.ts";

/** The payment escrow on a local chain, bound to the local registry and stablecoin. */
export default buildModule("PaymentEscrow", (m) => {
  const { token, identity, registry } = m.useModule(ResourceRegistryModule);
  const escrow = deployPaymentEscrow(m, token, registry);
  return { token, identity, registry, escrow };
});
