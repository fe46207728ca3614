import { BuyerError } from "../sdk/buyerError.ts";
import type { EnvironmentSource } from "./buyerEnvironment.ts";
import type { BuyerConfig } from "./loadBuyerConfig.ts";

/**
 * The demo: placeholder until the in-process system lands.
 * @example const source = demoEnvironment(config)
 */
export function demoEnvironment(_config: BuyerConfig): EnvironmentSource {
  return {
    get: async () => {
      throw new BuyerError("demo_unavailable", "the demo is not built yet");
    },
    close: async () => {},
  };
}
