import { expect } from "chai";
import { checkOffThread, SLOW_CHECK_QUEUE_MAX } from "./slowSchemaChecks.ts";

describe("checks of slow schemas in the shared worker", function () {
  this.timeout(120_000);
  const key = JSON.stringify({ type: "string", pattern: "^a+$" });

  it("answers busy at once past SLOW_CHECK_QUEUE_MAX waiting request checks; a response's check is queued regardless", async function () {
    const waiting = Array.from({ length: SLOW_CHECK_QUEUE_MAX }, () => checkOffThread(key, "aaa", "bounded"));
    const refused = await checkOffThread(key, "aaa", "bounded");
    expect(refused).to.deep.equal({ kind: "busy", message: "too many checks of slow schemas are waiting" });
    const response = checkOffThread(key, "b", "always");
    const answers = await Promise.all(waiting);
    expect(answers.map((a) => a.kind)).to.deep.equal(answers.map(() => "valid"));
    expect((await response).kind).to.equal("invalid");
    // Once the queue drains, a request check is taken again.
    expect((await checkOffThread(key, "aaa", "bounded")).kind).to.equal("valid");
  });
});
