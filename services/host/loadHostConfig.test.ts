import { expect } from "chai";
import { privateNetworkEntry } from "./deploymentSchema.ts";
import { HostConfigError, loadHostConfig } from "./loadHostConfig.ts";

const env = {
  FACILITATOR_URL: "http://127.0.0.1:4020",
  ESCROW_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  TOKEN_ADDRESS: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
};

describe("host configuration", function () {
  it("applies defaults", function () {
    expect(loadHostConfig(env)).to.deep.include({
      PORT: 4030,
      HANDLER_TIMEOUT_MS: 10_000,
      SANDBOX_START_TIMEOUT_MS: 10_000,
      MAX_TIMEOUT_SECONDS: 60,
      AUTHORIZATION_SECONDS: 3_600,
      SANDBOX_HEAP_MB: 128,
      SANDBOX_HEALTH_INTERVAL_MS: 1_000,
      SANDBOX_STALL_MS: 2_000,
      SANDBOX_WATCHDOG_INTERVAL_MS: 500,
      SANDBOX_IDLE_CPU_MS: 500,
      SANDBOX_ALLOW_PRIVATE_NETWORK: false,
      SANDBOX_SHARDS: 4,
      SANDBOX_SHARD_CAPACITY: 400,
      ENDPOINT_MAX_CONCURRENT_CALLS: 128,
      DATABASE_SCHEMA: "host",
    });
  });

  const refused: [string, Record<string, string | undefined>, RegExp][] = [
    ["no facilitator URL", { FACILITATOR_URL: undefined }, /FACILITATOR_URL/],
    ["a malformed escrow address", { ESCROW_ADDRESS: "0x12" }, /ESCROW_ADDRESS/],
    ["a short host token", { HOST_TOKEN: "short" }, /HOST_TOKEN/],
    [
      "a handler timeout that leaves no time to settle",
      { HANDLER_TIMEOUT_MS: "40000", MAX_TIMEOUT_SECONDS: "45" },
      /HANDLER_TIMEOUT_MS/,
    ],
    [
      "an authorization window past what a facilitator accepts",
      { AUTHORIZATION_SECONDS: "3601" },
      /AUTHORIZATION_SECONDS/,
    ],
    [
      "an authorization window shorter than the call and the signing margin",
      { MAX_TIMEOUT_SECONDS: "60", AUTHORIZATION_SECONDS: "100" },
      /AUTHORIZATION_SECONDS: must be at least MAX_TIMEOUT_SECONDS \+ 120/,
    ],
    ["a data limit below what workerd reserves", { SANDBOX_DATA_LIMIT_MB: "256" }, /SANDBOX_DATA_LIMIT_MB/],
    ["a watchdog that would read /proc in a tight loop", { SANDBOX_WATCHDOG_INTERVAL_MS: "1" }, /SANDBOX_WATCHDOG/],
    [
      "a stall limit past the handler timeout",
      { HANDLER_TIMEOUT_MS: "1000", SANDBOX_STALL_MS: "2000" },
      /SANDBOX_STALL_MS/,
    ],
    ["a sandbox start timeout under a second", { SANDBOX_START_TIMEOUT_MS: "500" }, /SANDBOX_START_TIMEOUT_MS/],
    ["a schema name that is not an identifier", { DATABASE_SCHEMA: "host; DROP" }, /DATABASE_SCHEMA/],
  ];
  for (const [name, overrides, message] of refused) {
    it(`refuses ${name}`, function () {
      expect(() => loadHostConfig({ ...env, ...overrides })).to.throw(HostConfigError, message);
    });
  }
});

describe("privateNetworkEntry", function () {
  for (const entry of [
    "127.0.0.1/32",
    "10.1.0.0/16",
    "169.254.169.254/32",
    "192.168.1.0/24",
    "172.20.0.0/16",
    "0.0.0.0/0",
    "100.64.0.1/32",
    "::1/128",
    "fe80::/10",
    "fc00::/7",
    "::/0",
  ]) {
    it(`flags ${entry}`, function () {
      expect(privateNetworkEntry(["public", entry])).to.equal(entry);
    });
  }

  for (const entry of ["public", "203.0.113.0/24", "8.8.8.8/32", "2001:db8::/32"]) {
    it(`allows ${entry}`, function () {
      expect(privateNetworkEntry([entry])).to.equal(undefined);
    });
  }
});
