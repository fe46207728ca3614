/** What `npm run drill` runs, once drill.ts has read its command line (see there). */
import type { ChildProcess } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex, LocalAccount } from "viem";
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment, signExactPayment } from "../services/buyer/src/sdk/signPayment.ts";
import { RESERVATION_RETENTION_SECONDS } from "../services/facilitator/backgroundWork.ts";
import { createStore } from "../services/facilitator/store/createStore.ts";
import { purgeReservations } from "../services/facilitator/store/reservations.ts";
import type { HandlerCall } from "../services/gate/handler.ts";
import { decodeBase64Json } from "../services/protocol/base64.ts";
import { cancelAuthorizationTypes, tokenDomain } from "../services/protocol/typedData.ts";
import { stopChild } from "../services/stack/childProcess.ts";
import { callTool, connectInMemory } from "../testkit/buyer/connectBuyer.ts";
import { startCreatorRelay } from "../testkit/buyer/startCreatorRelay.ts";
import { deployCostlyWallet } from "../testkit/chain/costlyWallet.ts";
import { debitsOnChain } from "../testkit/chain/debitsOnChain.ts";
import { serveLaggingLogsRpc } from "../testkit/chain/laggingLogsRpc.ts";
import { devKey, ROLE, startLocalChain } from "../testkit/chain/localChain.ts";
import { facilitatorEnv, postJson, spawnFacilitator } from "../testkit/facilitator/startFacilitator.ts";
import { freePort } from "../testkit/freePort.ts";
import type { GateStack } from "../testkit/gate/gateStack.ts";
import { call, paymentHeader, startTestResource } from "../testkit/gate/gateStack.ts";
import { SPINNER, WAITING_ECHO } from "../testkit/host/handlerSources.ts";
import { bearer, registerSample, sampleBody, startTestHost } from "../testkit/host/testHost.ts";
import { sleep } from "../testkit/sleep.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

const DURATION_MS = envCount("DRILL_SECONDS", 40) * 1000;
const WORKERS = envCount("DRILL_WORKERS", 16);
const BUYERS = 8;
const CAP = 50_000n;
/**
 * How long a buyer keeps retrying one payment: longer than the facilitator's crash and restart on a busy machine (its
 * store recovers the log it wrote since its last checkpoint), as a buyer holding a committed payment should.
 */
const RETRY_FOR_MS = 180_000;
/** The escrow's ERC1271_GAS_LIMIT. */
const ERC1271_GAS_LIMIT = 500_000n;
/** Development accounts no role uses (they hold gas): the exact buyers who move funds away or cancel. */
const MOVER = 9;
const CANCELLER = 10;
/** The facilitator's SETTLEMENT: committed (the default, as shipped) or confirmed. */
const SETTLEMENT = process.env.DRILL_SETTLEMENT === "confirmed" ? "confirmed" : "committed";
/** A short lease, so that the restarted facilitator takes over the crashed one's commitments within the drill. */
const SETTLE_LEASE_SECONDS = 5;
/** The facilitator's ESCROW_BOOK_MARGIN_BLOCKS (its default): the book follows this far below the head. */
const BOOK_MARGIN_BLOCKS = 2;

const log = (line: string) => process.stderr.write(`[drill] ${line}\n`);

log("starting the local chain");
const chain = await startLocalChain();
const { escrow } = chain.addresses;
log(
  "serving the chain to the facilitator through an RPC whose logs lag its head by a block, every third head a block low",
);
const laggingRpc = await serveLaggingLogsRpc(chain.connection.provider, { logs: 1, lowHeadEvery: 3 });
/** Mines the blocks a deposit made while the facilitator runs needs to be past its escrow book's margin. */
const pastBookMargin = async () => {
  for (let i = 0; i < BOOK_MARGIN_BLOCKS; i++)
    await chain.connection.provider.request({ method: "evm_mine", params: [] });
};
const buyers: LocalAccount[] = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
const perBuyer = CAP * 2_000n;
await chain.contracts.token.write.mint([chain.address(ROLE.admin), perBuyer * BigInt(BUYERS)]);
await chain.contracts.token.write.approve([escrow, perBuyer * BigInt(BUYERS)]);
for (const buyer of buyers) await chain.contracts.escrow.write.depositFor([buyer.address, perBuyer]);
const walletOwner = privateKeyToAccount(generatePrivateKey());
log("deploying two contract-wallet buyers: ERC-1271 checks just under and just over the escrow's gas limit");
const heavyWallet = await deployCostlyWallet(chain, walletOwner, ERC1271_GAS_LIMIT - 20_000n, perBuyer);
const overLimitWallet = await deployCostlyWallet(chain, walletOwner, ERC1271_GAS_LIMIT + 20_000n, perBuyer);
const mover = privateKeyToAccount(devKey(MOVER));
const canceller = privateKeyToAccount(devKey(CANCELLER));

const dataDir = mkdtempSync(join(tmpdir(), "drill-facilitator-"));
const facilitatorLogPath = join(tmpdir(), `drill-facilitator-${process.pid}.log`);
const facilitatorLog = createWriteStream(facilitatorLogPath);
const facilitatorPort = await freePort();
let facilitator: ChildProcess | undefined;
const startFacilitatorProcess = async () => {
  const started = await spawnFacilitator({
    ...facilitatorEnv(chain),
    RPC_URL: laggingRpc.url,
    ESCROW_BOOK_MARGIN_BLOCKS: String(BOOK_MARGIN_BLOCKS),
    PORT: String(facilitatorPort),
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    RECEIPT_TIMEOUT_MS: "3000",
    SETTLE_WAIT_MS: "3000",
    SETTLEMENT,
    SETTLE_LEASE_SECONDS: String(SETTLE_LEASE_SECONDS),
  });
  facilitator = started.child;
  // Its log, both runs of it, kept after the drill: what to read when an invariant fails.
  started.child.stdout?.pipe(facilitatorLog, { end: false });
  started.child.stderr?.pipe(facilitatorLog, { end: false });
  return started.url;
};
log("starting the facilitator (own process, PGlite on disk) and the echo gate (workerd)");
const facilitatorUrl = await startFacilitatorProcess();
const stack = {
  chain,
  buyer: buyers[0],
  facilitator: { url: facilitatorUrl },
} as unknown as GateStack;
const echo = await startTestResource(stack, { slug: "drill-echo", cap: CAP });

/**
 * The payer's own fault, applied by the handler of a second resource: the gate runs it after `/verify` accepted the
 * payment and before `/settle`, so the fault lands exactly in that window. Applied once per payment (not on retries).
 */
const faulted = new Set<string>();
async function breakPayment(fault: unknown, nonce: Hex): Promise<void> {
  if (faulted.has(nonce)) return;
  faulted.add(nonce);
  const { token } = chain.contracts;
  if (fault === "move-funds") {
    const wallet = chain.wallets[MOVER];
    if (!wallet) throw new Error("no wallet for the exact buyer who moves funds");
    const balance = await token.read.balanceOf([mover.address]);
    await token.write.transfer([chain.address(ROLE.other), balance], { account: wallet.account });
  } else if (fault === "cancel") {
    const signature = await canceller.signTypedData({
      domain: tokenDomain(chain.addresses.token),
      types: cancelAuthorizationTypes,
      primaryType: "CancelAuthorization",
      message: { authorizer: canceller.address, nonce },
    });
    await token.write.cancelAuthorization([getAddress(canceller.address), nonce, signature]);
  }
}
const faultHandler = async ({ body }: HandlerCall) => {
  if (typeof body.nonce === "string") await breakPayment(body.fault, body.nonce as Hex);
  return { status: 200, contentType: "application/json", body: Buffer.from(JSON.stringify({ ok: true })) };
};
const faulty = await startTestResource(stack, { slug: "drill-faulty", cap: CAP, handler: faultHandler });

/** The kind of the buyer who reuses a debited nonce after its reservation was purged (reusedNonce, below). */
const REUSED = "nonce reused after its purge";
/** Who paid: the load's EOA buyers, or one of the injected faulty buyers. */
type Kind =
  | "load"
  | "exact, funds moved after verify"
  | "exact, cancelled after verify"
  | WalletKind
  | typeof REUSED
  | typeof LYING
  | typeof VICTIM
  | typeof SPINNING;
type WalletKind = "wallet at the ERC-1271 limit" | "wallet over the ERC-1271 limit";
const KINDS: Kind[] = [
  "load",
  "exact, funds moved after verify",
  "exact, cancelled after verify",
  "wallet at the ERC-1271 limit",
  "wallet over the ERC-1271 limit",
  REUSED,
  "card lying about its receipt time",
  "victim of a spinning neighbour",
  "spinning neighbour's attack",
];
type Call = { kind: Kind; buyer: Hex; nonce: Hex; maxAmount: bigint; statuses: string[]; final: number };
const calls: Call[] = [];
const faults: string[] = [];
let stopLoad = false;

type Payload = Awaited<ReturnType<typeof signEscrowPayment>> | Awaited<ReturnType<typeof signExactPayment>>;
const validBefore = () => BigInt(Math.floor(Date.now() / 1000) + 600);
const signEscrow = (account: LocalAccount, resourceId: Hex) =>
  signEscrowPayment({ account, escrow, resourceId, maxAmount: CAP, validBefore: validBefore() });

/** Pays one call, retrying with the same payment while the answer says to (503, 409 `in_progress`, no answer). */
async function pay(kind: Kind, url: string, payload: Payload, body: Record<string, unknown>): Promise<void> {
  const { authorization } = payload;
  const record: Call = {
    kind,
    buyer: "buyer" in authorization ? authorization.buyer : authorization.from,
    nonce: authorization.nonce,
    maxAmount: BigInt("maxAmount" in authorization ? authorization.maxAmount : authorization.value),
    statuses: [],
    final: 0,
  };
  calls.push(record);
  const header = paymentHeader(payload);
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const answer = await call(url, body, { "X-PAYMENT": header }).catch(() => ({ status: 0, body: undefined }));
    const code = (answer.body as { error?: unknown } | undefined)?.error;
    const named = typeof code === "string" ? code : (code as { code?: unknown } | undefined)?.code;
    record.statuses.push(typeof named === "string" ? `${answer.status} ${named}` : String(answer.status));
    record.final = answer.status;
    const retry = answer.status === 503 || answer.status === 0 || (answer.status === 409 && named === "in_progress");
    if (!retry) return;
    if (stopLoad && attempt > 3) await sleep(1_000);
    else await sleep(500);
  }
}

async function worker(index: number): Promise<void> {
  let n = index;
  while (!stopLoad) {
    const payload = await signEscrow(buyers[n % BUYERS] as LocalAccount, echo.resourceId);
    await pay("load", echo.callUrl, payload, { n, pad: "x".repeat(n % 3_000) });
    n += WORKERS;
  }
}

/** An exact buyer who signs a payment of the cap (minted to him first) and breaks it after verify. */
async function exactFaults(kind: Kind, account: LocalAccount, fault: string, everyMs: number): Promise<void> {
  while (!stopLoad) {
    await chain.contracts.token.write.mint([account.address, CAP]);
    const payload = await signExactPayment({
      account,
      token: chain.addresses.token,
      escrow,
      value: CAP,
      validBefore: validBefore(),
      resourceId: faulty.resourceId,
    });
    await pay(kind, faulty.callUrl, payload, { fault, nonce: payload.authorization.nonce });
    await sleep(everyMs);
  }
}

/** A contract-wallet buyer paying echo alongside the load. */
async function walletPayer(kind: WalletKind, account: LocalAccount, everyMs: number): Promise<void> {
  let n = 0;
  while (!stopLoad) {
    await pay(kind, echo.callUrl, await signEscrow(account, echo.resourceId), { n: n++, wallet: true });
    await sleep(everyMs);
  }
}

/**
 * A load buyer reusing one of its nonces the escrow already debited, in a fresh authorization, once the facilitator
 * has purged that payment's finished reservation (a day after its window closed): it must be refused, never answered
 * 200. `paid` pays with a window of just over the gate's minimum at the start, `confirmed` waits until its debit is mined; while the facilitator is down after its
 * crash, `purged` runs the facilitator's own purge on its store as a day later, for that window only (every other
 * payment's window ends later); `reused` pays again with the nonce once it is back, beside the load that shares the
 * buyer's state snapshot.
 */
const reusedNonce = {
  /** The payment whose reservation and stored result were purged on purpose (lowercase nonce), once they are. */
  purgedNonce: undefined as string | undefined,
  async paid(): Promise<Payload> {
    const payload = await signEscrowPayment({
      account: buyers[0] as LocalAccount,
      escrow,
      resourceId: echo.resourceId,
      maxAmount: CAP,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 65),
    });
    await pay("load", echo.callUrl, payload, { purgedNonce: true });
    return payload;
  },
  async confirmed(payload: Payload): Promise<void> {
    const url = `http://127.0.0.1:${facilitatorPort}/results/${payload.authorization.nonce}`;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
      const stored = await fetch(url).catch(() => undefined);
      if (stored?.ok && ((await stored.json()) as { settlement?: string }).settlement === "confirmed") return;
    }
    log("the nonce-reuse payment was not confirmed within 30 s; the purge may find nothing");
  },
  async purged(payload: Payload): Promise<void> {
    const store = await createStore({ dataDir });
    const dayLater = Number(payload.authorization.validBefore) + RESERVATION_RETENTION_SECONDS;
    const purged = await purgeReservations(store, dayLater, RESERVATION_RETENTION_SECONDS);
    await store.close();
    if (purged > 0) reusedNonce.purgedNonce = payload.authorization.nonce.toLowerCase();
    faults.push(`a nonce reused after its reservation was purged (${purged} purged)`);
    log(`fault: ${purged} finished reservation purged as a day later; its nonce is reused next`);
  },
  async reused(payload: Payload): Promise<void> {
    const again = await signEscrowPayment({
      account: buyers[0] as LocalAccount,
      escrow,
      resourceId: echo.resourceId,
      maxAmount: CAP,
      validBefore: validBefore(),
      nonce: payload.authorization.nonce,
    });
    await pay(REUSED, echo.callUrl, again, { reused: true });
  },
};

const LYING = "card lying about its receipt time";

/**
 * The injection of a card that lies about its receipt time: a third resource, priced at its cap, whose creator points
 * its card at a relay of its own that rewrites every receipt's `settledAt` to 1970, paid in a loop by the real buyer MCP
 * server with an hourly budget of 3 calls, until the load stops and a call was refused. `settle` adds its payments to
 * the drill's (with the gate's answers as the relay saw them, retrying an unfinished one with the same payment); the
 * invariant is that the chain debited its buyer at most the budget, and that calls past it were refused.
 */
async function startLyingReceiptTime() {
  const price = 1_200n;
  const budget = 3n * price;
  const gate = await startTestResource(stack, { slug: "drill-lying", cap: price, base: 1_000n, perKB: 200n });
  const relay = await startCreatorRelay(chain, {
    resourceId: gate.resourceId,
    gateUrl: gate.url,
    mode: "rewrite-settled-at",
  });
  const key = generatePrivateKey();
  const buyer = privateKeyToAccount(key).address;
  await chain.contracts.token.write.mint([chain.address(ROLE.admin), price * 100n]);
  await chain.contracts.token.write.approve([escrow, price * 100n]);
  await chain.contracts.escrow.write.depositFor([buyer, price * 100n]);
  await pastBookMargin();
  const ledgerDir = mkdtempSync(join(tmpdir(), "drill-ledger-"));
  const mcp = await connectInMemory({
    BUYER_PRIVATE_KEY: key,
    RPC_URL: chain.rpcUrl,
    ESCROW_ADDRESS: escrow,
    MARKETPLACE_URL: "http://127.0.0.1:9",
    FACILITATOR_URL: facilitatorUrl,
    SERVICE_BUYER_DATA_DIR: ledgerDir,
    // The creator's relay and the gate listen on loopback: a local development stack.
    BUYER_ALLOW_PRIVATE_NETWORK: "on",
    SPEND_HOURLY_BUDGET: budget.toString(),
  });
  const outcomes = new Map<string, number>();
  return {
    async run() {
      for (let n = 0; !stopLoad || (!outcomes.has("spend_refused") && n < 40); n++) {
        const paid = await callTool(mcp.client, "call_resource", { resourceId: gate.resourceId, body: { n } });
        const outcome = paid.error?.code ?? "paid";
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        await sleep(250);
      }
    },
    async settle() {
      await mcp.close();
      for (const [nonce, seen] of relay.payments) {
        const last = seen.gateStatuses.at(-1);
        if (last === 503 || last === 409) await pay(LYING, gate.callUrl, decodeBase64Json(seen.header) as Payload, {});
        else
          calls.push({
            kind: LYING,
            buyer,
            nonce: nonce as Hex,
            maxAmount: price,
            statuses: seen.gateStatuses.map(String),
            final: last ?? 0,
          });
      }
      await relay.close();
      await gate.close();
      rmSync(ledgerDir, { recursive: true, force: true });
    },
    async invariant(): Promise<[string, boolean, string]> {
      const debited = (await debitsOnChain(chain, { buyer })).reduce((sum, d) => sum + d.amount, 0n);
      const refused = outcomes.get("spend_refused") ?? 0;
      const seen = [...outcomes].map(([outcome, count]) => `${count} ${outcome}`).join(", ");
      return [
        "a card lying about its receipt time (settledAt 1970) does not lift the buyer MCP's hourly budget",
        debited <= budget && refused > 0,
        `its buyer was debited ${debited} of a ${budget} budget on chain; calls: ${seen}`,
      ];
    },
  };
}
const lying = await startLyingReceiptTime();

/** The kinds of the spinning neighbour's payments: the victim's honest buyer, and the attacker's failing calls. */
const VICTIM = "victim of a spinning neighbour";
const SPINNING = "spinning neighbour's attack";

/**
 * The injection of a spinning neighbour: a resource host (real workerd, its sandbox watchdog at a 1 s stall) whose one
 * shard holds an honest victim, whose sample request waits 1 s, and an attacker's handler that spins on `{ spin: true }`.
 * Until the load stops, a buyer pays the victim back to back, and the attacker, every 1.5 s or so, pays the victim a
 * call that fails on its own input (a 400) and, while the victim's sample runs, its own handler a call that spins and
 * takes the shard down. The invariant: no strike queued against the victim (its sample runs alone, in a process of its
 * own), and every honest call to it answered 200 (a call the spin interrupted runs again alone).
 */
async function startSpinningNeighbour() {
  const hostDir = mkdtempSync(join(tmpdir(), "drill-host-"));
  const host = await startTestHost(stack, {
    DATA_DIR: hostDir,
    HANDLER_TIMEOUT_MS: "10000",
    SANDBOX_SHARDS: "1",
    SANDBOX_WATCHDOG_INTERVAL_MS: "100",
    SANDBOX_HEALTH_INTERVAL_MS: "250",
    SANDBOX_STALL_MS: "1000",
  });
  const sources = { "drill-victim": WAITING_ECHO, "drill-spinner": SPINNER };
  const ids = new Map<string, Hex>();
  for (const [slug, source] of Object.entries(sources)) {
    const sampleRequest = slug === "drill-victim" ? { waitMs: 1_000 } : {};
    const body = sampleBody(stack, "echo", { slug, source, sampleRequest });
    const deployed = await postJson(`${host.url}/deployments`, body, bearer);
    if (deployed.status !== 201) throw new Error(`deploying ${slug}: ${JSON.stringify(deployed.body)}`);
    ids.set(slug, await registerSample(stack, "echo", slug));
  }
  const payer = buyers[1] as LocalAccount;
  const paid = (kind: Kind, slug: string, body: Record<string, unknown>, nonces?: Hex[]) =>
    signEscrow(payer, ids.get(slug) as Hex).then((payload) => {
      nonces?.push(payload.authorization.nonce);
      return pay(kind, `${host.url}/r/${slug}/call`, payload, body);
    });
  const refusedNonces: Hex[] = [];
  let spins = 0;
  return {
    async run() {
      const honest = async () => {
        for (let n = 0; !stopLoad; n++) {
          await paid(VICTIM, "drill-victim", { n, waitMs: 20 });
          await sleep(100);
        }
      };
      const attack = async () => {
        while (!stopLoad) {
          const refused = paid(SPINNING, "drill-victim", { refuse: true }, refusedNonces);
          await sleep(300);
          await paid(SPINNING, "drill-spinner", { spin: true });
          spins++;
          await refused;
          await sleep(1_000);
        }
      };
      await Promise.all([honest(), attack()]);
    },
    async settle() {
      await host.stop();
      rmSync(hostDir, { recursive: true, force: true });
    },
    async invariant(): Promise<[string, boolean, string]> {
      let struck = 0;
      for (const idemKey of refusedNonces) {
        const again = await postJson(`http://127.0.0.1:${facilitatorPort}/release`, {
          idemKey,
          payer: payer.address,
          resourceId: ids.get("drill-victim"),
        });
        if ((again.body as { strikeRecorded?: unknown }).strikeRecorded === true) struck++;
      }
      const resource = await chain.contracts.registry.read.getResource([ids.get("drill-victim") as Hex]);
      const honest = calls.filter((c) => c.kind === VICTIM);
      const unanswered = honest.filter((c) => c.final !== 200).length;
      return [
        "a spinning neighbour strikes no one else: no strike against the victim, every honest call to it answered 200",
        struck === 0 && resource.strikes === 0 && unanswered === 0 && spins > 0 && honest.length > 0,
        `${spins} spins, each 0.3 s after a failed call to the victim (its 1 s sample then under way); ${refusedNonces.length} failed calls to the victim, ${struck} with a strike queued, ${resource.strikes} strikes on chain; ${honest.length - unanswered} of ${honest.length} honest calls answered 200`,
      ];
    },
  };
}
const neighbour = await startSpinningNeighbour();

/** Both RPC ports, the chain's and the lagging one the facilitator reads through, unreachable for `ms`. */
async function rpcDrop(ms: number): Promise<void> {
  await Promise.all([chain.rpc.stop(), laggingRpc.stop()]);
  await sleep(ms);
  await Promise.all([chain.rpc.resume(), laggingRpc.resume()]);
}

async function injectFaults(started: number): Promise<void> {
  const paidOnce = await reusedNonce.paid();
  // Mined before any fault: its window is just over the gate's minimum, and the purge must find it finished.
  await reusedNonce.confirmed(paidOnce);
  const at = async (ms: number) => sleep(Math.max(0, started + ms - Date.now()));
  await at(DURATION_MS * 0.2);
  faults.push("RPC drop, 4 s");
  log("fault: the RPC port drops for 4 s");
  await rpcDrop(4_000);
  await at(DURATION_MS * 0.45);
  faults.push("facilitator crash (SIGKILL) and restart on the same store");
  log("fault: the facilitator is killed and restarted");
  facilitator?.kill("SIGKILL");
  await sleep(1_000);
  await reusedNonce.purged(paidOnce);
  await startFacilitatorProcess();
  await reusedNonce.reused(paidOnce);
  await at(DURATION_MS * 0.7);
  faults.push("RPC drop, 2 s");
  log("fault: the RPC port drops for 2 s");
  await rpcDrop(2_000);
}

log(`paid load: ${WORKERS} workers, ${BUYERS} buyers, ${DURATION_MS / 1000} s`);
const started = Date.now();
const load = Promise.all([
  ...Array.from({ length: WORKERS }, (_, i) => worker(i)),
  exactFaults("exact, funds moved after verify", mover, "move-funds", 1_000),
  exactFaults("exact, cancelled after verify", canceller, "cancel", 1_000),
  walletPayer("wallet at the ERC-1271 limit", heavyWallet, 250),
  walletPayer("wallet over the ERC-1271 limit", overLimitWallet, 2_000),
  lying.run(),
  neighbour.run(),
]);
await injectFaults(started);
await sleep(Math.max(0, started + DURATION_MS - Date.now()));
stopLoad = true;
await load;
await lying.settle();
await neighbour.settle();
log("load stopped; every unfinished payment was retried until it settled or was refused");

/** Where each answered payment's settlement stands on the facilitator (`GET /results`): committed, confirmed, failed. */
async function settlements(): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  for (const c of calls.filter((c) => c.final === 200)) {
    const stored = await fetch(`http://127.0.0.1:${facilitatorPort}/results/${c.nonce}`);
    states.set(
      c.nonce.toLowerCase(),
      stored.ok ? ((await stored.json()) as { settlement: string }).settlement : "none",
    );
  }
  return states;
}
const committedAnswers = calls.filter((c) => c.final === 200 && c.kind === "load").length;
log("waiting for every committed debit to be mined (the restarted facilitator drives the crashed one's)");
const drainDeadline = Date.now() + (SETTLE_LEASE_SECONDS + 60) * 1000;
let states = await settlements();
while ([...states.values()].includes("committed") && Date.now() < drainDeadline) {
  await sleep(500);
  states = await settlements();
}
/**
 * The payment whose reservation the drill purged on purpose (reusedNonce): its stored result went with it by design,
 * so it is checked on chain instead (one debit, by its buyer, within its cap) and its result must be gone.
 */
const isPurged = (c: Call) => c.nonce.toLowerCase() === reusedNonce.purgedNonce && c.kind === "load";
const notConfirmed = [...states.entries()].filter(
  ([nonce, state]) => nonce !== reusedNonce.purgedNonce && state !== "confirmed",
);

const debits = await debitsOnChain(chain);
const debitsByNonce = new Map<string, bigint[]>();
for (const d of debits) {
  const key = d.nonce.toLowerCase();
  debitsByNonce.set(key, [...(debitsByNonce.get(key) ?? []), d.amount]);
}
const byStatus = new Map<string, number>();
for (const c of calls) for (const s of c.statuses) byStatus.set(String(s), (byStatus.get(String(s)) ?? 0) + 1);
const finalByStatus = new Map<string, number>();
for (const c of calls) {
  const last = c.statuses.at(-1) ?? "none";
  finalByStatus.set(last, (finalByStatus.get(last) ?? 0) + 1);
}

const ok = calls.filter((c) => c.final === 200);
const okNonces = new Set(ok.map((c) => c.nonce.toLowerCase()));
const debitWithout200 = [...debitsByNonce.keys()].filter((nonce) => !okNonces.has(nonce));
const okWithoutOneDebit = ok.filter((c) => (debitsByNonce.get(c.nonce.toLowerCase()) ?? []).length !== 1);
const capOf = new Map(calls.map((c) => [c.nonce.toLowerCase(), c]));
const overCap = [...debitsByNonce.entries()].filter(([nonce, amounts]) =>
  amounts.some((a) => a > (capOf.get(nonce)?.maxAmount ?? 0n)),
);
const charged = new Map<string, bigint>();
const signed = new Map<string, bigint>();
for (const d of debits) {
  const buyer = d.buyer.toLowerCase();
  charged.set(buyer, (charged.get(buyer) ?? 0n) + d.amount);
}
for (const c of calls) {
  if (!debitsByNonce.has(c.nonce.toLowerCase())) continue;
  signed.set(c.buyer.toLowerCase(), (signed.get(c.buyer.toLowerCase()) ?? 0n) + c.maxAmount);
}
const buyerOverCaps = [...charged.entries()].filter(([buyer, total]) => total > (signed.get(buyer) ?? 0n));
const withoutResult = ok.filter((c) => !isPurged(c) && (states.get(c.nonce.toLowerCase()) ?? "none") === "none");
const purgedPaid = ok.filter(isPurged);
const purgedHeld = purgedPaid.every((c) => {
  const debited = debits.filter((d) => d.nonce.toLowerCase() === c.nonce.toLowerCase());
  return (
    states.get(c.nonce.toLowerCase()) === "none" &&
    debited.length === 1 &&
    debited[0]?.buyer.toLowerCase() === c.buyer.toLowerCase() &&
    (debited[0]?.amount ?? CAP + 1n) <= c.maxAmount
  );
});
/** Up to three of `failing`, by kind and nonce, so that a failing invariant names its payments. */
const named = (failing: Call[]) =>
  failing.length === 0
    ? ""
    : ` (${failing
        .slice(0, 3)
        .map((c) => `${c.kind} ${c.nonce.slice(0, 10)}…`)
        .join(", ")})`;
const callOf = new Map(calls.filter((c) => c.final === 200).map((c) => [c.nonce.toLowerCase(), c]));

const broken = calls.filter((c) => !["load", "wallet at the ERC-1271 limit", REUSED, LYING, VICTIM].includes(c.kind));
const reuses = calls.filter((c) => c.kind === REUSED);
const reusesPaid = reuses.filter((c) => c.final === 200 || (debitsByNonce.get(c.nonce.toLowerCase()) ?? []).length > 1);
const brokenPaid = broken.filter((c) => c.final === 200 || debitsByNonce.has(c.nonce.toLowerCase()));
const brokenAtSettle = broken.filter((c) => c.statuses[0] === "409 settlement_failed").length;
const heavy = calls.filter((c) => c.kind === "wallet at the ERC-1271 limit");
const heavyPaid = heavy.filter((c) => c.final === 200).length;
const isHeavy = (buyer: unknown) => String(buyer).toLowerCase() === heavyWallet.address.toLowerCase();
const heavyTxs = new Set(debits.filter((d) => isHeavy(d.buyer)).map((d) => d.transactionHash));
const sharedTxs = [...heavyTxs].filter((tx) => debits.some((d) => d.transactionHash === tx && !isHeavy(d.buyer)));

const invariants: [string, boolean, string][] = [
  ["no debit without a 200", debitWithout200.length === 0, `${debitWithout200.length} debits without a 200`],
  [
    "no 200 without exactly one debit (chain) and its stored result (facilitator store), but for the one payment whose reservation the drill purges on purpose: its result purged with it, its one debit checked on chain",
    okWithoutOneDebit.length === 0 && withoutResult.length === 0 && purgedPaid.length === 1 && purgedHeld,
    `${okWithoutOneDebit.length} without exactly one debit${named(okWithoutOneDebit)}, ${withoutResult.length} without a stored result${named(withoutResult)}; ${purgedPaid.length} purged on purpose, ${purgedHeld ? "its result gone and one debit on chain by its buyer within its cap" : "**not** as purged or debited as it should be"}`,
  ],
  [
    `every answered payment's settlement confirmed on chain (SETTLEMENT=${SETTLEMENT}); the purged one's by its debit on chain (above)`,
    notConfirmed.length === 0,
    `${notConfirmed.length} of ${states.size - purgedPaid.length} answered payments with a stored result not confirmed (committed, failed or missing) after the drain${named(notConfirmed.map(([nonce]) => callOf.get(nonce) as Call))}`,
  ],
  [
    "no buyer charged more than its signed caps",
    overCap.length === 0 && buyerOverCaps.length === 0,
    `${overCap.length} debits over their cap, ${buyerOverCaps.length} buyers over the sum of their caps`,
  ],
  [
    "every broken payment (funds moved, authorization cancelled, wallet over the gas limit) refused and never debited; the wallet at the limit paid",
    brokenPaid.length === 0 && broken.length > 0 && heavyPaid > 0,
    `${broken.length} broken payments, ${brokenAtSettle} refused at settle with 409 settlement_failed, ${brokenPaid.length} answered 200 or debited; ${heavyPaid} of ${heavy.length} at-limit wallet payments answered 200, settled in ${heavyTxs.size} transactions, ${sharedTxs.length} of them batches shared with EOA buyers`,
  ],
  [
    "a debited nonce reused after its reservation was purged refused, never answered 200 or debited again",
    reuses.length > 0 && reusesPaid.length === 0,
    `${reuses.length} reuses, answered ${reuses.map((c) => c.statuses.at(-1)).join(", ")}`,
  ],
  await lying.invariant(),
  await neighbour.invariant(),
];

const statusRows = [...byStatus.entries()]
  .sort(([a], [b]) => Number(a) - Number(b))
  .map(
    ([status, count]) => `| ${status === "0" ? "no answer" : status} | ${count} | ${finalByStatus.get(status) ?? 0} |`,
  )
  .join("\n");
const kindRows = [...new Set(calls.map((c) => c.statuses.at(-1) ?? "none"))]
  .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
  .map((status) => {
    const cells = KINDS.map((kind) => calls.filter((c) => c.kind === kind && c.statuses.at(-1) === status).length);
    return `| ${status === "0" ? "no answer" : status} | ${cells.join(" | ")} |`;
  })
  .join("\n");
const firstRows = [...new Set(calls.map((c) => c.statuses[0] ?? "none"))]
  .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
  .map((status) => {
    const cells = KINDS.map((kind) => calls.filter((c) => c.kind === kind && c.statuses[0] === status).length);
    return `| ${status === "0" ? "no answer" : status} | ${cells.join(" | ")} |`;
  })
  .join("\n");
const note = process.env.DRILL_MACHINE_NOTE ? ` ${process.env.DRILL_MACHINE_NOTE}` : "";
const markdown = `## Fault drill (\`npm run drill\`)

Machine: ${machineLine()}.${note}

Settlement: \`SETTLEMENT=${SETTLEMENT}\`${SETTLEMENT === "committed" ? ` (escrow calls answered before their debit is mined; ${committedAnswers} load calls answered 200; the facilitator's settle lease is ${SETTLE_LEASE_SECONDS} s so that the restart takes over the crashed instance's commitments within the drill)` : ""}.

${WORKERS} workers and ${BUYERS} EOA buyers paying echo for ${DURATION_MS / 1000} s
(Hardhat EDR chain behind a stoppable RPC port, the facilitator in its own process on PGlite on disk, the gate in
front of workerd). All the time, the facilitator reads the chain through an RPC proxy whose logs lag its head by a
block and every third head is a block low, as a load-balanced provider's nodes lag one another (its escrow book
follows ${BOOK_MARGIN_BLOCKS} blocks below the head: \`ESCROW_BOOK_MARGIN_BLOCKS\`, the default; ${laggingRpc.calls("eth_getLogs")} log reads
and ${laggingRpc.calls("eth_blockNumber")} head reads went through it). Faults injected, in order: ${faults.join("; ")}. Concurrently, all the time: an exact buyer who
moves his funds away after verify (the settlement reverts), an exact buyer who cancels his authorization on the token
after verify (EIP-3009 \`cancelAuthorization\`), one payment each per second, both through a second gate whose handler
applies the fault (so it lands between \`/verify\` and \`/settle\`); a contract-wallet buyer whose ERC-1271 check
burns just under the escrow's 500k gas limit, paying echo every 250 ms beside the load; and one whose check burns
over it, every 2 s; and a card that lies about its receipt time (its creator's relay dates every receipt 1970), paid
every 250 ms by the buyer MCP server under an hourly budget of 3 calls; and a spinning neighbour: on a resource host
whose one shard holds an honest victim (its sample request waits 1 s) and an attacker's handler, a buyer pays the
victim back to back while the attacker, every 1.5 s or so, pays the victim a call that fails on its own input and,
while the victim's sample runs, makes its own handler spin (the attacker's calls are counted with the broken
payments: refused, never debited). A buyer retries a 503, a 409 \`in_progress\` or no answer with the same payment, for up
to ${RETRY_FOR_MS / 60_000} minutes.

| status (error code) | answers | final answers (one per payment) |
|---|---|---|
${statusRows}

First and final answer per payment, by kind of buyer:

| first answer | ${KINDS.join(" | ")} |
|---|${KINDS.map(() => "---").join("|")}|
${firstRows}

| final answer | ${KINDS.join(" | ")} |
|---|${KINDS.map(() => "---").join("|")}|
${kindRows}

Payments: ${calls.length}; debits on chain: ${debits.length}.

| invariant (over every payment, injected ones included) | holds | detail |
|---|---|---|
${invariants.map(([name, holds, detail]) => `| ${name} | ${holds ? "yes" : "**NO**"} | ${detail} |`).join("\n")}
`;
process.stdout.write(`${markdown}\n`);
writeBenchSection("drill", markdown);

await echo.close();
await faulty.close();
if (facilitator) await stopChild(facilitator);
await laggingRpc.close();
await chain.close();
rmSync(dataDir, { recursive: true, force: true });
facilitatorLog.end();
log(`the facilitator's log: ${facilitatorLogPath}`);
process.exit(invariants.every(([, holds]) => holds) ? 0 : 1);
