import { expect } from "chai";
import { devKey, ROLE } from "../../testkit/chain/localChain.ts";
import { MAX_SIGNED_WINDOW_SECONDS } from "../buyer/src/sdk/authorizationWindow.ts";
import { DEFAULT_AUTHORIZATION_SECONDS } from "../protocol/constants.ts";
import { DEFAULT_HOLD_MAX_SECONDS, loadFacilitatorConfig } from "./loadFacilitatorConfig.ts";

const env = {
  RPC_URL: "http://127.0.0.1:8545",
  ESCROW_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  REGISTRY_ADDRESS: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  TOKEN_ADDRESS: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
  RELAYER_KEYS: devKey(ROLE.relayer),
  CALLER_AUTH: "off",
  HOST: "127.0.0.1",
};

describe("facilitator configuration: holding committed debits", function () {
  it("holds by default, and lets go of a debit signed for the gates' window before its deadline margin", function () {
    const config = loadFacilitatorConfig(env);
    expect(config.HOLD_MAX_SECONDS).to.equal(DEFAULT_HOLD_MAX_SECONDS).and.to.be.above(0);
    const signed = Math.min(DEFAULT_AUTHORIZATION_SECONDS, MAX_SIGNED_WINDOW_SECONDS);
    expect(config.HOLD_MAX_SECONDS).to.be.below(signed - config.HOLD_DEADLINE_MARGIN_SECONDS);
  });

  it("HOLD_MAX_SECONDS=0 turns holding off", function () {
    expect(loadFacilitatorConfig({ ...env, HOLD_MAX_SECONDS: "0" }).HOLD_MAX_SECONDS).to.equal(0);
  });
});
