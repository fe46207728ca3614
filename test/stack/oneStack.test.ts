/**
 * The end-to-end suites that need an `npm start` stack as it comes up, in one file so that one mocha worker runs them
 * in turn on one stack (testkit/stack/sharedStack.ts, stopped after this file): a stack start costs about 25
 * CPU-seconds, and as separate files each started its own. The order matters: `npm start` first (the samples' revenue
 * is its payment alone), the generated plugins next (one plugin per listed resource, the samples only), then the suites
 * that list resources of their own (the buyer's MCP server publishes lying ones, the studio twelve), then the buyer
 * README's walkthrough (it moves the chain's clock a day to withdraw), and last the stop, with nothing left behind.
 */
import { expect } from "chai";
import { sharedStack } from "../../testkit/stack/sharedStack.ts";
import "./npmStart.ts";
import "../../services/buyer/scenarios/plugins/generatedPlugins.onStack.ts";
import "../../services/buyer/scenarios/mcp/buyerServer.onStack.ts";
import "../studio/studioPipeline.ts";
import "../studio/studioInterfaces.ts";
import "../../services/buyer/scenarios/readmeWalkthrough.onStack.ts";

describe("npm start, after every suite on it", function () {
  this.timeout(120_000);

  it("stops every part on SIGTERM and leaves no process or port behind", async function () {
    const running = await sharedStack();
    expect(await running.stop(running.ports), "a process of the stack outlived it").to.equal(true);
  });
});
