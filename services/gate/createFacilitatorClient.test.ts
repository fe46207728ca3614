import type { Server } from "node:http";
import { expect } from "chai";
import { facilitatorAt } from "../../testkit/gate/facilitatorAt.ts";
import { createFacilitatorClient } from "./createFacilitatorClient.ts";

const settle = {
  idemKey: `0x${"11".repeat(32)}`,
  payer: `0x${"22".repeat(20)}`,
  resourceId: `0x${"33".repeat(32)}`,
  amount: 1_000n,
  response: { status: 200, contentType: "application/json", body: { ok: true } },
} as const;

describe("createFacilitatorClient's settle", function () {
  const servers: Server[] = [];
  after(function () {
    for (const server of servers) server.close();
  });

  /** The outcome of one settle (on its own route) the facilitator answers with `status`. */
  async function outcomeOf(status: number) {
    const { url, server } = await facilitatorAt(() => ({
      status,
      body: { error: { code: `code_${status}`, message: `answered ${status}` } },
    }));
    servers.push(server);
    const client = createFacilitatorClient({ url, batch: false });
    try {
      return await client.settle(settle);
    } finally {
      client.close();
    }
  }

  for (const status of [400, 404, 409, 413]) {
    it(`takes ${status} as refused for good: the same settle would get it again (not pending for good)`, async function () {
      expect(await outcomeOf(status)).to.deep.equal({
        kind: "refused",
        code: `code_${status}`,
        message: `answered ${status}`,
      });
    });
  }

  for (const status of [408, 429, 500, 502]) {
    it(`takes ${status} as unavailable: a retry may pass`, async function () {
      expect((await outcomeOf(status)).kind).to.equal("unavailable");
    });
  }

  it("takes 503 as pending, with its Retry-After or 2 s", async function () {
    expect(await outcomeOf(503)).to.deep.equal({ kind: "pending", retryAfter: "2" });
  });
});
