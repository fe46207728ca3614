import { expect } from "chai";
import { freePort } from "../../../../testkit/freePort.ts";
import type { BuyerError } from "./buyerError.ts";
import { fetchJson } from "./fetchJson.ts";
import { recoverResult } from "./recoverResult.ts";
import { searchResources } from "./searchResources.ts";

/** What a call threw (it must throw). */
async function thrown(work: Promise<unknown>): Promise<BuyerError> {
  try {
    await work;
  } catch (error) {
    return error as BuyerError;
  }
  throw new Error("expected a failure");
}

/**
 * A message of the buyer goes into an agent's transcript: a URL the user configured with credentials
 * (`MARKETPLACE_URL=http://user:password@host/`) or a key in its query string must not come out in it.
 */
describe("fetchJson's messages leak no credential of a configured URL", function () {
  let closed: string;
  before(async function () {
    closed = `127.0.0.1:${await freePort()}`;
  });

  it("an unreachable marketplace is named without its userinfo", async function () {
    const error = await thrown(searchResources(`http://bob:mkPW99@${closed}/`, { q: "echo" }));
    expect(error.code).to.equal("marketplace_unavailable");
    expect(error.message).to.equal(`marketplace at http://${closed}/resources cannot be reached (ECONNREFUSED)`);
  });

  it("an unreachable facilitator is named without its userinfo", async function () {
    const error = await thrown(
      recoverResult({ facilitatorUrl: `http://fac:fcPW42@${closed}`, idemKey: `0x${"01".repeat(32)}`, payer: "0x02" }),
    );
    expect(error.code).to.equal("facilitator_unavailable");
    expect(error.message).to.not.include("fcPW42").and.to.not.include("fac:");
    expect(error.message).to.include(`http://${closed}/results/`);
  });

  it("a refused private address is named without its userinfo or query string", async function () {
    const error = await thrown(
      fetchJson(`http://bob:mkPW99@${closed}/card?token=s3cret`, {}, "card", { allowPrivate: false }),
    );
    expect(error.code).to.equal("private_address");
    expect(error.message).to.include(`card at http://${closed}/card is not reached`);
    expect(error.message).to.not.include("mkPW99").and.to.not.include("s3cret");
  });
});
