import type { PublicClient } from "viem";
import { createPublicClient } from "viem";
import { redactedHttp } from "../http/rpcUrls.ts";
import { serviceChain } from "../protocol/chain.ts";
import type { StackFile } from "../stack/stackFile.ts";
import { readStackFile, StackFileError } from "../stack/stackFile.ts";
import { SetupError } from "./setupError.ts";

/** Where the studio deploys and publishes: the stack's URLs, tokens and contracts (fields of `stack.json`). */
export type StudioTarget = Pick<
  StackFile,
  "rpcUrl" | "hostUrl" | "hostToken" | "marketplaceUrl" | "publishToken" | "facilitatorUrl"
> & { contracts: Pick<StackFile["contracts"], "token" | "escrow" | "registry"> };

/** What {@link readStudioStack} throws. */
export type ReadStudioStackErrorType = SetupError;

/**
 * Reads the stack the studio works against: `{STACK_DIR}/stack.json` (default `.stack`), written by `npm start`.
 * @throws {SetupError} `no_stack`, naming the file and how to start the stack, when it is missing or not a stack file.
 * @example const stack = readStudioStack(process.env.STACK_DIR)
 */
export function readStudioStack(stackDir = ".stack"): StackFile {
  try {
    return readStackFile(stackDir);
  } catch (error) {
    if (!(error instanceof StackFileError)) throw error;
    throw new SetupError(
      "no_stack",
      error.shortMessage,
      "start the system first with `npm start` (in another terminal), or set STACK_DIR to its folder",
    );
  }
}

/**
 * The studio's reader of the chain at `rpcUrl`: its errors never carry the URL (a hosted provider's API key), so no
 * draft, event or terminal line shows it.
 * @example const client = studioChainClient(target.rpcUrl)
 */
export function studioChainClient(rpcUrl: string): PublicClient {
  return createPublicClient({ chain: serviceChain(rpcUrl), transport: redactedHttp(rpcUrl) }) as PublicClient;
}
