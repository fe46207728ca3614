import type { DemoKeys } from "./deployDemoContracts.ts";

/**
 * The demo's keys: the well-known development accounts of the local stack, in the same roles (`DEV_ROLE`), so every
 * start has the same buyer, the same contract addresses (the admin deploys them at nonces 0 to 3) and the same
 * resource ids (`resourceIdOf(creator, slug)`). Their keys are public:
 * they hold only the demo chain's test money. Written out rather than derived from the mnemonic at each start (the
 * derivation costs a second on a loaded machine); `demoKeys.test.ts` checks them against `devKey`.
 */
export const DEMO_KEYS: DemoKeys = {
  admin: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  relayer: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  creator: "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  buyer: "0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897",
};
