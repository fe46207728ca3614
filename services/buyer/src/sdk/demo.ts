import { privateKeyToAccount } from "viem/accounts";
import { cardSchema } from "../../../protocol/schemas/card.ts";
import { indexRecordSchema } from "../../../protocol/schemas/indexRecord.ts";
import type { StackFile } from "../../../stack/stackFile.ts";
import { readStackFile, StackFileError, stackFilePath } from "../../../stack/stackFile.ts";
import { buyerChain } from "./buyerChain.ts";
import { exampleRequests } from "./exampleRequests.ts";
import { payForCall } from "./payForCall.ts";

/**
 * `npm run demo [-- <slug>]`: a small buyer against the running stack (`npm start`). It discovers the resource
 * (`echo` by default) through GET /resources, reads its card, takes the request of the card's first example call
 * (`skills[].examples`), gets the 402 quote, re-pins escrow, asset, payTo and cap against the chain (never from the
 * index row), signs, pays, and prints the quote, the receipt and the resource's revenue. A stack that is not
 * answering (stopped, with its stack.json left behind) is told apart from a missing one; both say to start it.
 */
const stackDir = process.env.STACK_DIR || ".stack";
const startFirst = "start the system first with `npm start` (in another terminal)";
let stack: StackFile;
try {
  stack = readStackFile(stackDir);
} catch (error) {
  if (!(error instanceof StackFileError)) throw error;
  process.stderr.write(`${error.shortMessage}: ${startFirst}\n`);
  process.exit(2);
}
const slug = process.argv[2] ?? "echo";
const show = (title: string, value: unknown) =>
  process.stdout.write(`\n== ${title}\n${JSON.stringify(value, null, 2)}\n`);

let listed: Response;
try {
  listed = await fetch(`${stack.marketplaceUrl}/resources`);
} catch (error) {
  process.stderr.write(
    `the stack of ${stackFilePath(stackDir)} is not running (its marketplace ${stack.marketplaceUrl} does not answer: ${causeOf(error)}): ${startFirst}\n`,
  );
  process.exit(2);
}
const index = (await listed.json()) as unknown[];
const records = index.map((row) => indexRecordSchema.parse(row));
const record = records.find((row) => row.slug === slug);
if (!record) {
  const slugs = records.map((row) => row.slug).join(", ");
  process.stderr.write(`no resource "${slug}" in ${stack.marketplaceUrl}/resources (listed: ${slugs || "none"})\n`);
  process.exit(1);
}
show(`index record of ${slug} (display only: nothing is signed against it)`, record);
const card = cardSchema.parse(await (await fetch(record.cardUrl)).json());
show("agent card", { name: card.name, url: card.url, x402: card.x402 });

const buyer = stack.buyers[0];
if (!buyer) {
  process.stderr.write(`no demo buyer in ${stackFilePath(stackDir)}\n`);
  process.exit(2);
}
const result = await payForCall({
  // `npm start` serves every part on 127.0.0.1: the local development stack is what may be reached on loopback.
  chain: buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow, allowPrivateAddresses: true }),
  account: privateKeyToAccount(buyer.privateKey),
  callUrl: card.url,
  body: exampleRequests(card)[0] ?? { hello: "from the demo buyer", at: new Date().toISOString() },
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

/** The innermost cause of a failed fetch, on one line (`ECONNREFUSED …`). */
function causeOf(error: unknown): string {
  let inner = error as { cause?: unknown; message?: string; code?: string };
  while (inner.cause) inner = inner.cause as typeof inner;
  return (inner.code ?? inner.message ?? String(inner)).split("\n")[0] ?? "";
}
