#!/usr/bin/env node
import { runBuyerCli } from "../src/runBuyerCli.ts";

process.exitCode = await runBuyerCli(["mcp", ...process.argv.slice(2)]);
