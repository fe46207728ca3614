import { join } from "node:path";
import { endpointLabel } from "../../http/rpcUrls.ts";
import { CHAIN_ID } from "../../protocol/constants.ts";
import { setAutomine } from "../childProcess.ts";
import { writeStackFile } from "../stackFile.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf } from "../stackRun.ts";

/**
 * The stack is ready: turns interval mining on, writes `stack.json` and prints where each part listens and what to
 * try first.
 * @example await writeStack(run)
 */
export async function writeStack(run: StackRun): Promise<void> {
  const { urls, env } = run;
  const stack = {
    chainId: CHAIN_ID,
    rpcUrl: urls.rpc,
    marketplaceUrl: urls.marketplace,
    facilitatorUrl: urls.facilitator,
    hostUrl: urls.host,
    indexerUrl: urls.indexer,
    ...(run.postgres ? { postgresUrl: env.DATABASE_URL } : {}),
    ...(run.studioBuyer ? { studioUrl: urls.studio, studioToken: run.tokens.studio } : {}),
    publishToken: run.tokens.publish,
    hostToken: run.tokens.host,
    contracts: contractsOf(run),
    buyers: run.buyers,
    resources: run.resources,
  };
  if (run.intervalMining) await setAutomine(urls.rpc, false);
  writeStackFile(run.stackDir, stack);
  const seconds = ((performance.now() - run.started) / 1000).toFixed(1);
  run.say(`ready in ${seconds}s; wrote ${join(env.STACK_DIR, "stack.json")}; logs in ${join(env.STACK_DIR, "logs")}`);
  process.stdout.write(
    [
      "",
      `  marketplace  ${urls.marketplace}/resources`,
      // A hosted provider's API key rides in the URL's path or query: only its host is printed.
      `  chain        ${run.external ? endpointLabel(urls.rpc) : urls.rpc} (chain id ${CHAIN_ID})`,
      `  indexer      ${urls.indexer}`,
      `  facilitator  ${urls.facilitator}`,
      `  host         ${urls.host}  (resources at ${urls.host}/r/<slug>)`,
      ...(run.postgres ? [`  postgres     ${env.DATABASE_URL}  (every store)`] : []),
      ...(run.studioBuyer ? [`  studio       ${urls.studio}  (bearer studioToken in stack.json)`] : []),
      "",
      `  resources    ${run.resources.map((r) => r.slug).join(", ") || "(none published)"}`,
      "",
      "  Pay for a call:  npm run demo",
      '  New endpoint:    npm run studio -- "Return the SHA-256 hex digest of a text"',
      "  Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
}
