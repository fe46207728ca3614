import { expect } from "chai";
import type { Hex } from "viem";
import type { LedgerView } from "../sdk/openSpendLedger.ts";
import { loadBuyerConfig } from "./loadBuyerConfig.ts";
import { checkSpend, remainingBudgets } from "./spendPolicy.ts";

const buyer = "0x1111111111111111111111111111111111111111";
const escrow = "0x2222222222222222222222222222222222222222";
const creator = "0x3333333333333333333333333333333333333333";
const echo = `0x${"aa".repeat(32)}` as Hex;
const other = `0x${"bb".repeat(32)}` as Hex;
const HOUR = 3_600_000;
const now = Date.UTC(2026, 0, 2, 12);

/** What a spend ledger shows once brought up to the chain: debits dated by their block, and the caps held. */
function view(debits: { amount: bigint; at: number }[], held = 0n): LedgerView {
  return {
    debitedSince: (since) => debits.filter((d) => d.at >= since).reduce((sum, d) => sum + d.amount, 0n),
    held,
    payment: () => ({ released: false, spentUnseen: false }),
    payments: () => [],
    chainTime: now,
  };
}

describe("spend policy", function () {
  it("refuses a cap above SPEND_MAX_PER_CALL and lets one at the limit through", function () {
    const refusal = checkSpend({ maxPerCall: 40_000n }, view([]), { resourceId: echo, cap: 50_000n, now });
    expect(refusal).to.include({ rule: "SPEND_MAX_PER_CALL", limit: "40000" });
    expect(refusal?.message).to.equal(
      "the call's cap, the most it can debit, is 50000 base units (0.05 USDC): above SPEND_MAX_PER_CALL 40000 base units (0.04 USDC)",
    );
    expect(checkSpend({ maxPerCall: 50_000n }, view([]), { resourceId: echo, cap: 50_000n, now })).to.equal(undefined);
  });

  it("counts the debits the chain dated inside the rolling hour only, and names what is left", function () {
    const v = view([
      { amount: 30_000n, at: now - HOUR - 1 },
      { amount: 40_000n, at: now - HOUR + 60_000 },
    ]);
    const policy = { hourlyBudget: 100_000n };
    expect(checkSpend(policy, v, { resourceId: echo, cap: 60_000n, now })).to.equal(undefined);
    const refusal = checkSpend(policy, v, { resourceId: echo, cap: 60_001n, now });
    expect(refusal).to.include({ rule: "SPEND_HOURLY_BUDGET", remaining: "60000", limit: "100000" });
  });

  it("counts the caps still held, so a payment in flight uses the budget until the chain tells its outcome", function () {
    const policy = { dailyBudget: 80_000n };
    expect(checkSpend(policy, view([]), { resourceId: echo, cap: 50_000n, now })).to.equal(undefined);
    expect(checkSpend(policy, view([], 50_000n), { resourceId: echo, cap: 50_000n, now })).to.include({
      rule: "SPEND_DAILY_BUDGET",
      remaining: "30000",
    });
    expect(remainingBudgets(policy, view([{ amount: 1_000n, at: now }], 50_000n), now).daily).to.deep.equal({
      budget: { base: "80000", usdc: "0.08 USDC" },
      spent: { base: "1000", usdc: "0.001 USDC" },
      held: { base: "50000", usdc: "0.05 USDC" },
      remaining: { base: "29000", usdc: "0.029 USDC" },
    });
  });

  it("a budget without the ledger's view is a bug, never an unlimited budget", function () {
    expect(() => checkSpend({ hourlyBudget: 1n }, undefined, { resourceId: echo, cap: 1n, now })).to.throw(
      /needs the spend ledger/,
    );
  });

  it("applies the resource and creator allow-lists", function () {
    expect(checkSpend({ allowResources: [other] }, view([]), { resourceId: echo, cap: 1n, now })).to.include({
      rule: "SPEND_ALLOW_RESOURCES",
    });
    expect(checkSpend({ allowCreators: [buyer] }, view([]), { resourceId: echo, creator, cap: 1n, now })).to.include({
      rule: "SPEND_ALLOW_CREATORS",
    });
    expect(
      checkSpend({ allowResources: [echo], allowCreators: [creator] }, view([]), {
        resourceId: echo,
        creator,
        cap: 1n,
        now,
      }),
    ).to.equal(undefined);
  });
});

describe("buyer settings", function () {
  it("empty strings are unset: no key and no RPC is the demo", function () {
    const config = loadBuyerConfig({ BUYER_PRIVATE_KEY: "", RPC_URL: " ", SPEND_DAILY_BUDGET: "" });
    expect(config.mode).to.equal("demo");
    expect(config.policy.dailyBudget).to.equal(undefined);
    expect(config.problems).to.deep.equal({});
  });

  it("SPEND_CONFIRM_ABOVE is an amount in base units; empty is unset, malformed asks for every call", function () {
    expect(loadBuyerConfig({ SPEND_CONFIRM_ABOVE: "10000" }).policy.confirmAbove).to.equal(10_000n);
    expect(loadBuyerConfig({ SPEND_CONFIRM_ABOVE: "" }).policy.confirmAbove).to.equal(undefined);
    const bad = loadBuyerConfig({ SPEND_CONFIRM_ABOVE: "0.01" });
    expect(bad.problems.SPEND_CONFIRM_ABOVE).to.match(/base units/);
    expect(bad.policy.confirmAbove).to.equal(0n);
  });

  it("a blank option as a launcher may pass it (nothing, spaces, \"\" or '') is unset, never a malformed setting", function () {
    const blanks = ["", "  ", '""', "''", ' "" '];
    for (const blank of blanks) {
      const config = loadBuyerConfig({
        BUYER_PRIVATE_KEY: blank,
        RPC_URL: blank,
        SPEND_MAX_PER_CALL: blank,
        SPEND_HOURLY_BUDGET: blank,
        SPEND_DAILY_BUDGET: blank,
        SPEND_CONFIRM_ABOVE: blank,
        SPEND_ALLOW_CREATORS: blank,
        SPEND_ALLOW_RESOURCES: blank,
        SERVICE_RESOURCE_IDS: blank,
        FACILITATOR_URL: blank,
        SERVICE_BUYER_DATA_DIR: blank,
        HOME: "/h",
      });
      expect(config.problems, JSON.stringify(blank)).to.deep.equal({});
      expect(config.mode).to.equal("demo");
      expect(config.policy).to.deep.equal({
        maxPerCall: undefined,
        hourlyBudget: undefined,
        dailyBudget: undefined,
        allowResources: undefined,
        allowCreators: undefined,
        confirmAbove: undefined,
      });
      expect(config.dataDir).to.equal("/h/.local/share/service-buyer");
    }
    expect(loadBuyerConfig({ SPEND_DAILY_BUDGET: '"5"' }).problems.SPEND_DAILY_BUDGET).to.match(/base units/);
  });

  it("a malformed key is named, never echoed, and the read-only settings still load", function () {
    const key = `0x${"zz".repeat(32)}`;
    const config = loadBuyerConfig({ BUYER_PRIVATE_KEY: key, RPC_URL: "http://127.0.0.1:1", ESCROW_ADDRESS: escrow });
    expect(config.mode).to.equal("live");
    expect(config.account).to.equal(undefined);
    expect(config.problems.BUYER_PRIVATE_KEY).to.match(/BUYER_PRIVATE_KEY is malformed/);
    expect(JSON.stringify(config.problems)).not.to.include("zz");
    expect(config.escrow).to.equal(escrow);
  });

  it("a malformed budget or scope fails closed (a problem that refuses payments), never an unlimited policy", function () {
    const config = loadBuyerConfig({ SPEND_DAILY_BUDGET: "1e6", SERVICE_RESOURCE_IDS: "echo" });
    expect(config.problems.SPEND_DAILY_BUDGET).to.match(/base units/);
    expect(config.policy.dailyBudget).to.equal(0n);
    expect(config.problems.SERVICE_RESOURCE_IDS).to.match(/resource ids/);
    expect(config.scope).to.deep.equal([]);
  });

  it("keeps the ledgers in the user's data folder: SERVICE_BUYER_DATA_DIR, else XDG_DATA_HOME, else HOME", function () {
    expect(loadBuyerConfig({ SERVICE_BUYER_DATA_DIR: "/d", XDG_DATA_HOME: "/x", HOME: "/h" }).dataDir).to.equal("/d");
    expect(loadBuyerConfig({ XDG_DATA_HOME: "/x", HOME: "/h" }).dataDir).to.equal("/x/service-buyer");
    expect(loadBuyerConfig({ HOME: "/h" }).dataDir).to.equal("/h/.local/share/service-buyer");
  });

  it("reads the scope and allow-lists as comma-separated lists, lowercased", function () {
    const config = loadBuyerConfig({ SERVICE_RESOURCE_IDS: ` ${echo.toUpperCase().replace("0X", "0x")} , ${other},` });
    expect(config.scope).to.deep.equal([echo, other]);
  });
});
