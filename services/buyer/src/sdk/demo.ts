import { privateKeyToAccount } from "viem/accounts";
import { cardSchema } from "../../../protocol/schemas/card.ts";
import { indexRecordSchema } from "../../../protocol/schemas/indexRecord.ts";
import type { StackFile } from "../../../stack/stackFile.ts";
import { readStackFile, StackFileError, stackFilePath } from "../../../stack/stackFile.ts";
import { buyerChain } from "./buyerChain.ts";
import { payForCall } from "./payForCall.ts";

/**
 * `npm run demo`: a small buyer against the running stack (`npm start`). It discovers `echo` through
 * GET /resources, reads its card, gets the 402 quote, re-pins escrow, asset, payTo and cap against the chain
 * (never from the index row), signs, pays, and prints the quote, the receipt and the resource's revenue.
 */
let stack: StackFile;
try {
  stack = readStackFile(process.env.STACK_DIR ?? ".stack");
} catch (error) {
  if (!(error instanceof StackFileError)) throw error;
  process.stderr.write(`${error.shortMessage}: start the system first with \`npm start\` (in another terminal)\n`);
  process.exit(2);
}
const slug = process.argv[2] ?? "echo";
const show = (title: string, value: unknown) =>
  process.stdout.write(`\n== ${title}\n${JSON.stringify(value, null, 2)}\n`);

const index = (await (await fetch(`${stack.marketplaceUrl}/resources`)).json()) as unknown[];
const record = index.map((row) => indexRecordSchema.parse(row)).find((row) => row.slug === slug);
if (!record) {
  process.stderr.write(`no resource "${slug}" in ${stack.marketplaceUrl}/resources\n`);
  process.exit(1);
}
show(`index record of ${slug} (display only: nothing is signed against it)`, record);
const card = cardSchema.parse(await (await fetch(record.cardUrl)).json());
show("agent card", { name: card.name, url: card.url, x402: card.x402 });

const buyer = stack.buyers[0];
if (!buyer) {
  process.stderr.write(`no demo buyer in ${stackFilePath(process.env.STACK_DIR)}\n`);
  process.exit(2);
}
const result = await payForCall({
  chain: buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow }),
  account: privateKeyToAccount(buyer.privateKey),
  callUrl: card.url,
  body: { hello: "from the demo buyer", at: new Date().toISOString() },
});
show("402 quote", result.quote);
show("pinned against the chain", { ...result.terms, cap: result.terms.cap.toString() });
show("response", result.body);
show("receipt (X-PAYMENT-RESPONSE, decoded)", result.receipt);
const revenueUrl = `${stack.facilitatorUrl}/revenue/${result.terms.resourceId}`;
let revenue: { calls?: number; lastSettledAt?: string | null } = {};
for (let i = 0; i < 50; i++) {
  revenue = (await fetch(revenueUrl).then((r) => r.json())) as typeof revenue;
  if (revenue.lastSettledAt && Date.parse(revenue.lastSettledAt) >= Date.parse(result.receipt.settledAt) - 5_000) break;
  await new Promise((r) => setTimeout(r, 200));
}
show(`revenue of ${slug} (from the indexer's chain-derived projections)`, revenue);
