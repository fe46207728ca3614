import { privateKeyToAccount } from "viem/accounts";
import { readStackFile } from "../../../stack/stackFile.ts";
import { buyerChain } from "./buyerChain.ts";
import { signPaymentHeader } from "./signPaymentHeader.ts";

/**
 * Prints an X-PAYMENT header value for one call to a resource of the running stack, signed by its first demo
 * buyer, with the cap read from the chain and a bitmap nonce (`signPaymentHeader`):
 * `node services/buyer/src/sdk/signHeader.ts echo`. For paying by hand with curl.
 */
const stack = readStackFile(process.env.STACK_DIR ?? ".stack");
const slug = process.argv[2] ?? "echo";
const resource = stack.resources.find((r) => r.slug === slug);
if (!resource) {
  process.stderr.write(`no resource "${slug}" in stack.json\n`);
  process.exit(2);
}
const buyer = stack.buyers[0];
if (!buyer) {
  process.stderr.write("no demo buyer in stack.json\n");
  process.exit(2);
}
const header = await signPaymentHeader({
  chain: buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow }),
  account: privateKeyToAccount(buyer.privateKey),
  resourceId: resource.resourceId,
});
process.stdout.write(`${header}\n`);
