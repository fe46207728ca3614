import { buildModule } from "@nomicfoundation/ignition-core";
import FiatTokenModule from "./FiatToken.ts";
import IdentityRegistryModule from "./IdentityRegistry.ts";
import { deployResourceRegistry } from "./parts.ts";

/** The resource registry on a local chain, with the local stablecoin and identity registry. */
export default buildModule("ResourceRegistry", (m) => {
  const { token } = m.useModule(FiatTokenModule);
  const { identity } = m.useModule(IdentityRegistryModule);
  const registry = deployResourceRegistry(m, token, identity);
  return { token, identity, registry };
});
