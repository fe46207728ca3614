import { createConfig } from "ponder";
import { abiOf } from "../services/protocol/artifacts.ts";
import { CHAIN_ID } from "../services/protocol/constants.ts";
import { readDeployment } from "./deployment.ts";

/**
 * The indexer of chain 5042002: ResourceRegistry, PaymentEscrow and the ERC-8004 IdentityRegistry, at the addresses
 * and from the blocks of the Ignition deployment output named by DEPLOYED_ADDRESSES, with ABIs from Hardhat's
 * artifacts. PGlite in PONDER_PGLITE_DIR (default .ponder/pglite) unless DATABASE_URL names a PostgreSQL database.
 * Realtime polling defaults to 250 ms (Ponder's own default is 1000 ms): it is most of the time from a block to its
 * listing, and the target for that is 1 s at p95 (docs/benchmarks.md).
 */
const rpc = process.env.RPC_URL ?? process.env.PONDER_RPC_URL_5042002;
if (!rpc) throw new Error("RPC_URL (or PONDER_RPC_URL_5042002) must name the JSON-RPC endpoint of chain 5042002");

const deployment = readDeployment(process.env.DEPLOYED_ADDRESSES || undefined);
const flag = (value: string | undefined) => value === "1" || value === "true";

export default createConfig({
  database: process.env.DATABASE_URL
    ? { kind: "postgres", connectionString: process.env.DATABASE_URL }
    : { kind: "pglite", directory: process.env.PONDER_PGLITE_DIR || ".ponder/pglite" },
  chains: {
    service: {
      id: CHAIN_ID,
      rpc,
      pollingInterval: Number(process.env.PONDER_POLLING_MS ?? 250),
      disableCache: flag(process.env.PONDER_DISABLE_CACHE),
    },
  },
  contracts: {
    ResourceRegistry: { chain: "service", abi: abiOf("ResourceRegistry"), ...deployment.ResourceRegistry },
    PaymentEscrow: { chain: "service", abi: abiOf("PaymentEscrow"), ...deployment.PaymentEscrow },
    IdentityRegistry: { chain: "service", abi: abiOf("IdentityRegistry"), ...deployment.IdentityRegistry },
  },
});
