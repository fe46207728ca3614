import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { resourceIdOf } from "../../../protocol/resourceId.ts";
import { DEMO_KEYS } from "../demo/demoKeys.ts";
import type { DemoSystem } from "../demo/startDemoSystem.ts";
import { buyerChain } from "../sdk/buyerChain.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import { openSpendLedger } from "../sdk/openSpendLedger.ts";
import type { BuyerEnvironment, EnvironmentSource } from "./buyerEnvironment.ts";
import type { BuyerConfig } from "./loadBuyerConfig.ts";
import type { ServerLog } from "./serverLog.ts";
import { writeStderr } from "./serverLog.ts";

/**
 * The demo: on the first tool call, starts the in-process escrow loop (`startDemoSystem`) and points the tools at
 * it with its funded demo buyer (the same ids and keys every start, `DEMO_KEYS`). A scope without the demo's echo
 * resource (a per-endpoint plugin left unconfigured) is refused at once with `demo_unavailable`, nothing started. The spend ledger lives in a temporary folder removed on close; the settings'
 * spend policy and scope still apply. `log` receives the line that says the demo started (stderr by default).
 * @example const source = demoEnvironment(loadBuyerConfig({}))
 */
export function demoEnvironment(config: BuyerConfig, log: ServerLog = writeStderr): EnvironmentSource {
  const echo = resourceIdOf(privateKeyToAddress(DEMO_KEYS.creator), "echo").toLowerCase();
  const outside = config.scope && !config.scope.includes(echo as never);
  let starting: Promise<{ system: DemoSystem; environment: BuyerEnvironment; dir: string }> | undefined;
  const start = async () => {
    const { startDemoSystem } = await import("../demo/startDemoSystem.ts");
    const system = await startDemoSystem({ port: config.demoPort, log });
    const dir = mkdtempSync(join(tmpdir(), "service-buyer-demo-"));
    const account = privateKeyToAccount(system.buyerKey);
    log(`service-buyer: demo started (chain ${system.rpcUrl}, buyer ${account.address})`);
    // The demo's resources are this process's own, on 127.0.0.1: the one place the server itself allows loopback.
    const chain = buyerChain({ rpcUrl: system.rpcUrl, escrow: system.escrow, allowPrivateAddresses: true });
    const environment: BuyerEnvironment = {
      mode: "demo",
      chain,
      marketplaceUrl: system.marketplaceUrl,
      facilitatorUrl: system.facilitatorUrl,
      account,
      ledger: openSpendLedger({ dir, chain, buyer: account.address }),
      problems: config.problems,
    };
    return { system, environment, dir };
  };
  return {
    async get() {
      if (outside)
        throw new BuyerError(
          "demo_unavailable",
          `the demo has only the echo sample (resource ${echo}), not ${config.scope?.join(", ")}: set BUYER_PRIVATE_KEY, RPC_URL, ESCROW_ADDRESS and MARKETPLACE_URL to reach it`,
        );
      starting ??= start();
      try {
        return (await starting).environment;
      } catch (error) {
        starting = undefined;
        throw new BuyerError("demo_unavailable", `the demo could not start: ${(error as Error).message}`);
      }
    },
    async close() {
      if (!starting) return;
      const running = await starting.catch(() => undefined);
      if (!running) return;
      await running.system.close();
      rmSync(running.dir, { recursive: true, force: true });
    },
  };
}
