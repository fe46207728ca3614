import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { loadBuyerConfig } from "./loadBuyerConfig.ts";
import type { LedgerEntry } from "./spendLedger.ts";
import { openSpendLedger } from "./spendLedger.ts";
import { checkSpend } from "./spendPolicy.ts";

const buyer = "0x1111111111111111111111111111111111111111";
const escrow = "0x2222222222222222222222222222222222222222";
const creator = "0x3333333333333333333333333333333333333333";
const echo = `0x${"aa".repeat(32)}` as Hex;
const other = `0x${"bb".repeat(32)}` as Hex;
const HOUR = 3_600_000;
const now = Date.UTC(2026, 0, 2, 12);

function entry(idem: number, amount: bigint, at: number, who = buyer): LedgerEntry {
  return {
    at,
    buyer: who,
    escrow,
    resourceId: echo,
    idemKey: `0x${idem.toString(16).padStart(64, "0")}`,
    amount: amount.toString(),
    transaction: `0x${"cc".repeat(32)}`,
  };
}

describe("spend policy", function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "buyer-policy-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ledger = () => openSpendLedger(join(dir, "ledger.jsonl"), { buyer, escrow });

  it("refuses a cap above SPEND_MAX_PER_CALL and lets one at the limit through", function () {
    const refusal = checkSpend({ maxPerCall: 40_000n }, ledger(), { resourceId: echo, cap: 50_000n, now });
    expect(refusal).to.include({ rule: "SPEND_MAX_PER_CALL", limit: "40000" });
    expect(checkSpend({ maxPerCall: 50_000n }, ledger(), { resourceId: echo, cap: 50_000n, now })).to.equal(undefined);
  });

  it("counts settled debits inside the rolling hour only, and names what is left", function () {
    const l = ledger();
    l.record(entry(1, 30_000n, now - HOUR - 1));
    l.record(entry(2, 40_000n, now - HOUR + 60_000));
    const policy = { hourlyBudget: 100_000n };
    expect(checkSpend(policy, l, { resourceId: echo, cap: 60_000n, now })).to.equal(undefined);
    const refusal = checkSpend(policy, l, { resourceId: echo, cap: 60_001n, now });
    expect(refusal).to.include({ rule: "SPEND_HOURLY_BUDGET", remaining: "60000", limit: "100000" });
  });

  it("counts the caps of payments still in flight, so two parallel calls cannot both use the last budget", function () {
    const l = ledger();
    const policy = { dailyBudget: 80_000n };
    expect(checkSpend(policy, l, { resourceId: echo, cap: 50_000n, now })).to.equal(undefined);
    const release = l.hold(50_000n);
    expect(checkSpend(policy, l, { resourceId: echo, cap: 50_000n, now })).to.include({
      rule: "SPEND_DAILY_BUDGET",
      remaining: "30000",
    });
    release();
    expect(checkSpend(policy, l, { resourceId: echo, cap: 50_000n, now })).to.equal(undefined);
  });

  it("applies the resource and creator allow-lists", function () {
    expect(checkSpend({ allowResources: [other] }, ledger(), { resourceId: echo, cap: 1n, now })).to.include({
      rule: "SPEND_ALLOW_RESOURCES",
    });
    expect(checkSpend({ allowCreators: [buyer] }, ledger(), { resourceId: echo, creator, cap: 1n, now })).to.include({
      rule: "SPEND_ALLOW_CREATORS",
    });
    expect(
      checkSpend({ allowResources: [echo], allowCreators: [creator] }, ledger(), {
        resourceId: echo,
        creator,
        cap: 1n,
        now,
      }),
    ).to.equal(undefined);
  });

  it("the ledger survives a reopen, counts each idemKey once and only this buyer's debits", function () {
    const first = ledger();
    first.record(entry(1, 10_000n, now));
    first.record(entry(1, 10_000n, now));
    first.record(entry(2, 5_000n, now, "0x4444444444444444444444444444444444444444"));
    const reopened = ledger();
    expect(reopened.settledSince(now - HOUR)).to.equal(10_000n);
  });
});

describe("buyer settings", function () {
  it("empty strings are unset: no key and no RPC is the demo", function () {
    const config = loadBuyerConfig({ BUYER_PRIVATE_KEY: "", RPC_URL: " ", SPEND_DAILY_BUDGET: "" });
    expect(config.mode).to.equal("demo");
    expect(config.policy.dailyBudget).to.equal(undefined);
    expect(config.problems).to.deep.equal({});
  });

  it("a malformed key is named, never echoed, and the read-only settings still load", function () {
    const key = `0x${"zz".repeat(32)}`;
    const config = loadBuyerConfig({ BUYER_PRIVATE_KEY: key, RPC_URL: "http://127.0.0.1:1", ESCROW_ADDRESS: escrow });
    expect(config.mode).to.equal("live");
    expect(config.account).to.equal(undefined);
    expect(config.problems.BUYER_PRIVATE_KEY).to.match(/BUYER_PRIVATE_KEY is malformed/);
    expect(JSON.stringify(config.problems)).not.to.include("zz");
    expect(config.escrow).to.equal("0x2222222222222222222222222222222222222222");
  });

  it("a malformed budget or scope fails closed (a problem that refuses payments), never an unlimited policy", function () {
    const config = loadBuyerConfig({ SPEND_DAILY_BUDGET: "1e6", SERVICE_RESOURCE_IDS: "echo" });
    expect(config.problems.SPEND_DAILY_BUDGET).to.match(/base units/);
    expect(config.policy.dailyBudget).to.equal(0n);
    expect(config.problems.SERVICE_RESOURCE_IDS).to.match(/resource ids/);
    expect(config.scope).to.deep.equal([]);
  });

  it("reads the scope and allow-lists as comma-separated lists, lowercased", function () {
    const config = loadBuyerConfig({ SERVICE_RESOURCE_IDS: ` ${echo.toUpperCase().replace("0X", "0x")} , ${other},` });
    expect(config.scope).to.deep.equal([echo, other]);
  });
});
