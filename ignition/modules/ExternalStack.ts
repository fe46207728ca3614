import { buildModule } from "@nomicfoundation/ignition-core";
import type { Address } from "viem";
import { deployPaymentEscrow, deployResourceRegistry } from "./parts.ts";

/** Contracts already deployed that an external deployment binds to instead of deploying them again. */
export type ExternalStackReuse = { registry?: Address; escrow?: Address };

/**
 * The test network: the existing USDC and canonical ERC-8004 registry (`tokenAddress`, `identityAddress`), and our
 * registry and escrow deployed, or bound by address when `reuse` names them. The treasury (`treasury`) has no default;
 * the deployer is the first admin and hands the role over afterwards (services/deploy/deploySystem.ts, which also
 * grants the service roles: they change as keys rotate, which a journaled call cannot follow).
 * @example await ignition.deploy(externalStackModule({ escrow }), { parameters })
 */
export function externalStackModule(reuse: ExternalStackReuse = {}) {
  return buildModule("ExternalStack", (m) => {
    const token = m.contractAt("IFiatToken", m.getParameter<string>("tokenAddress"), { id: "ExistingToken" });
    const identity = m.contractAt("IdentityRegistry", m.getParameter<string>("identityAddress"), {
      id: "ExistingIdentity",
    });
    const roles = { admin: m.getAccount(0), treasury: m.getParameter<string>("treasury") };
    const registry = reuse.registry
      ? m.contractAt("ResourceRegistry", reuse.registry, { id: "ExistingResourceRegistry" })
      : deployResourceRegistry(m, token, identity, roles);
    const escrow = reuse.escrow
      ? m.contractAt("PaymentEscrow", reuse.escrow, { id: "ExistingPaymentEscrow" })
      : deployPaymentEscrow(m, token, registry, roles);
    return { token, identity, registry, escrow };
  });
}

export default externalStackModule();
