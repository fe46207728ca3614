#!/usr/bin/env node
import { checkNodeVersion } from "../src/checkNodeVersion.ts";

const refusal = checkNodeVersion(process.versions.node, "service-buyer");
if (refusal) {
  process.stderr.write(refusal);
  process.exit(1);
}
const { runBuyerCli } = await import("../src/runBuyerCli.ts");
process.exitCode = await runBuyerCli(process.argv.slice(2));
