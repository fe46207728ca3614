#!/usr/bin/env node
import { runPluginsCli } from "../src/plugins/cli.ts";

process.exitCode = await runPluginsCli(process.argv.slice(2));
