import { buildModule } from "@nomicfoundation/ignition-core";

/** Our ERC-8004 identity registry, for chains without the canonical one. */
export default buildModule("IdentityRegistry", (m) => {
  const identity = m.contract("IdentityRegistry");
  return { identity };
});
