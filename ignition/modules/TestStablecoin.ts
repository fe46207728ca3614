import { buildModule } from "@nomicfoundation/ignition-core";

/** The local stand-in for the test network's USDC; never deployed outside a local chain. */
export default buildModule("TestStablecoin", (m) => {
  const token = m.contract("TestStablecoin", [m.getParameter("admin", m.getAccount(0))]);
  return { token };
});
