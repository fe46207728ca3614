#!/usr/bin/env node
import { checkNodeVersion } from "../src/checkNodeVersion.ts";

const refusal = checkNodeVersion(process.versions.node, "service-plugins");
if (refusal) {
  process.stderr.write(refusal);
  process.exit(1);
}
const { runPluginsCli } = await import("../src/plugins/cli.ts");
process.exitCode = await runPluginsCli(process.argv.slice(2));
