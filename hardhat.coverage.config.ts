import { defineConfig } from "hardhat/config";
import config from "./hardhat.config.ts";

/**
 * The config of `npm run coverage`: the project's own, with the instrumented build (larger bytecode, more gas) kept in
 * artifacts and a cache of its own, so that the normal artifacts in `artifacts/` are never replaced by it and both
 * builds stay cached between runs. Test mocks (`contracts/test/`) are not counted. Hardhat lets the instrumented
 * contracts exceed the 24 KiB size limit in a coverage run only.
 */
export default defineConfig({
  ...config,
  paths: { ...config.paths, artifacts: "cache/coverage/artifacts", cache: "cache/coverage/cache" },
  coverage: { skipFiles: ["contracts/test/**"] },
});
