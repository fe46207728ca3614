import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { until } from "../../testkit/until.ts";
import { createJsonClient } from "./createJsonClient.ts";
import { createExactFloorReader } from "./exactFloorReader.ts";

describe("createExactFloorReader", function () {
  let server: Server;
  let url: string;
  /** What the facilitator's `GET /pricing/exact` answers next, and how many times it was asked. */
  let answer: { status: number; body: unknown };
  let asked = 0;

  before(async function () {
    server = createServer((req, res) => {
      asked++;
      res.writeHead(req.url === "/pricing/exact" ? answer.status : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(function () {
    server.close();
    server.closeAllConnections();
  });

  /** A reader on a clock the test moves. */
  function reader() {
    asked = 0;
    let clock = 1_000_000;
    const floor = createExactFloorReader(createJsonClient({ baseUrl: url, timeoutMs: 2_000 }), {
      refreshMs: 2_000,
      maxAgeMs: 30_000,
      now: () => clock,
    });
    return { floor, advance: (ms: number) => (clock += ms), at: () => clock };
  }

  it("waits for its first reading, then answers from it and reads again at most once per refresh, in the background", async function () {
    const { floor, advance, at } = reader();
    answer = { status: 200, body: { minimumAmount: "103200" } };
    expect(await floor.read()).to.equal(103_200n);
    answer = { status: 200, body: { minimumAmount: "120000" } };
    advance(1_999);
    expect(await floor.read(), "within the refresh: no read").to.equal(103_200n);
    expect(asked).to.equal(1);
    advance(1);
    expect(await floor.read(), "the refresh runs behind the answer").to.equal(103_200n);
    await until(async () => (await floor.read()) === 120_000n || undefined, 5_000, "the background reading");
    expect(asked).to.equal(2);
    expect(floor.highestSince(at() - 2_000)).to.equal(120_000n);
    answer = { status: 200, body: { minimumAmount: "90000" } };
    advance(2_000);
    await until(async () => (await floor.read()) === 90_000n || undefined, 5_000, "the background reading");
    expect(asked).to.equal(3);
    expect(floor.highestSince(at() - 60_000), "a payment signed against the higher quote").to.equal(120_000n);
    expect(floor.highestSince(at()), "only the newest reading").to.equal(90_000n);
    floor.close();
  });

  it("fails safe: nothing known until a reading, and a reading stands only its maximum age while reads fail", async function () {
    const { floor, advance } = reader();
    answer = { status: 503, body: { error: { code: "chain_unavailable", message: "down" } } };
    expect(await floor.read(), "never read").to.equal(undefined);
    answer = { status: 200, body: { minimumAmount: "not a number" } };
    advance(2_000);
    expect(await floor.read(), "an answer of another shape").to.equal(undefined);
    answer = { status: 200, body: { minimumAmount: "103200" } };
    advance(2_000);
    expect(await floor.read()).to.equal(103_200n);
    answer = { status: 503, body: { error: { code: "chain_unavailable", message: "down" } } };
    advance(29_000);
    expect(await floor.read(), "the last reading stands").to.equal(103_200n);
    advance(1_000);
    expect(await floor.read(), "past its age: unknown").to.equal(undefined);
    floor.close();
  });
});
