/**
 * Fault drill (`npm run drill`): paid load against a local money path (Hardhat EDR chain served over a stoppable
 * RPC port, the facilitator in its own process on a PGlite directory, a gate in front of the echo sample in
 * workerd) while faults are injected: RPC drops and a facilitator crash (SIGKILL, restarted on the same store), and,
 * concurrently, buyers who break their own payments: exact payments whose funds are moved away after verify (the
 * settlement reverts), exact authorizations cancelled on the token after verify, and contract-wallet buyers whose
 * ERC-1271 check costs just under the escrow's gas limit (must settle beside honest buyers) or above it (refused at
 * verify), a card that lies about its receipt time (its creator's relay dates every receipt 1970) paid by the real
 * buyer MCP server under an hourly budget, and a spinning neighbour: a resource host whose one shard holds an honest
 * victim and an attacker's handler that spins while the victim's sample request runs. The facilitator reads the chain
 * through a load-balanced-like RPC whose logs lag its head by a block and every third head is a block low (its escrow
 * book follows two blocks below the head). Buyers retry a 503, a 409
 * `in_progress` or no answer with the same payment, as PROTOCOL.md tells them to. At the end it prints the calls answered per status and per kind of buyer, the debits
 * on chain and three invariants checked from the chain and the facilitator's store, over every payment, injected ones
 * included:
 * no debit without a 200, no 200 without exactly one debit, no buyer charged more than its signed caps (the one payment
 * whose reservation the drill purges on purpose has no stored result by design, and is checked on chain instead); and
 * writes the table into docs/benchmarks.md. Not a test: a benchmark-style script.
 */
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

parseCommandLine(
  `usage: npm run drill

Paid load against a local money path while faults are injected (RPC drops, a facilitator crash, an RPC whose logs
lag its head, a spinning neighbour) and buyers break
their own payments; prints the answers, the debits on chain and the invariants, and writes them into
docs/benchmarks.md. Environment: DRILL_SECONDS (40), DRILL_WORKERS (16), DRILL_SETTLEMENT (committed | confirmed),
DRILL_MACHINE_NOTE (a sentence about the machine).`,
  {},
);

// What it runs takes a second or more to load its imports: loaded after the command line, so that --help and a
// wrong option answer at once.
await import("./runDrill.ts");
