#!/usr/bin/env node
import { runBuyerCli } from "../src/runBuyerCli.ts";

process.exitCode = await runBuyerCli(process.argv.slice(2));
