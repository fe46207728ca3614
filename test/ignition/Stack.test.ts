import { expect } from "chai";
import { deployStack, networkHelpers } from "../contracts/fixtures.ts";

describe("Stack deployment", function () {
  it("deploys every contract through Ignition on chain 5042002", async function () {
    const { token, escrow, registry, publicClient, accounts } = await networkHelpers.loadFixture(deployStack);
    expect(await publicClient.getChainId()).to.equal(5042002);
    expect(await token.read.decimals()).to.equal(6);
    expect((await escrow.read.registry()).toLowerCase()).to.equal(registry.address.toLowerCase());
    const role = await escrow.read.RELAYER_ROLE();
    expect(await escrow.read.hasRole([role, accounts.relayer.account.address])).to.equal(true);
  });
});
