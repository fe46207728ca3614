import { buildModule } from "@nomicfoundation/ignition-core";
import { deployPaymentEscrow, deployResourceRegistry, grantServiceRoles } from "./parts.ts";

/**
 * The test network: the existing USDC and canonical ERC-8004 registry (`tokenAddress`, `identityAddress`
 * parameters), and only our registry and escrow deployed.
 */
export default buildModule("ExternalStack", (m) => {
  const token = m.contractAt("IFiatToken", m.getParameter<string>("tokenAddress"), { id: "ExistingToken" });
  const identity = m.contractAt("IdentityRegistry", m.getParameter<string>("identityAddress"), {
    id: "ExistingIdentity",
  });
  const registry = deployResourceRegistry(m, token, identity);
  const escrow = deployPaymentEscrow(m, token, registry);
  grantServiceRoles(m, escrow, registry);
  return { token, identity, registry, escrow };
});
