import { privateKeyToAccount } from "viem/accounts";
import { abiOf } from "../../../protocol/artifacts.ts";
import { encodeBase64Json } from "../../../protocol/base64.ts";
import { readStackFile } from "../../../stack/stackFile.ts";
import { buyerChain } from "./buyerChain.ts";
import { signEscrowPayment } from "./signPayment.ts";

/**
 * Prints an X-PAYMENT header value for one call to a resource of the running stack, signed by its first demo
 * buyer, with the cap read from the chain: `node services/buyer/signHeader.ts echo`. For paying by hand with curl.
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
const chain = buyerChain({ rpcUrl: stack.rpcUrl, escrow: stack.contracts.escrow });
const registry = await chain.publicClient.readContract({
  address: chain.escrow,
  abi: abiOf("PaymentEscrow"),
  functionName: "registry",
});
const onChain = await chain.publicClient.readContract({
  address: registry,
  abi: abiOf("ResourceRegistry"),
  functionName: "getResource",
  args: [resource.resourceId],
});
const payload = await signEscrowPayment({
  account: privateKeyToAccount(buyer.privateKey),
  escrow: chain.escrow,
  resourceId: resource.resourceId,
  maxAmount: onChain.pricing.max,
  validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
});
process.stdout.write(`${encodeBase64Json(payload)}\n`);
