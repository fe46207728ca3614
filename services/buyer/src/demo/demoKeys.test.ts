import { expect } from "chai";
import { DEV_ROLE, devKey } from "../../../stack/devAccounts.ts";
import { DEMO_KEYS } from "./demoKeys.ts";

describe("DEMO_KEYS", function () {
  it("are the development accounts of the stack's roles, written out", function () {
    expect(DEMO_KEYS).to.deep.equal({
      admin: devKey(DEV_ROLE.admin),
      relayer: devKey(DEV_ROLE.relayer),
      creator: devKey(DEV_ROLE.creator),
      buyer: devKey(DEV_ROLE.buyer),
    });
  });
});
