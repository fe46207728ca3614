/** Chain id of the test network (and of the embedded local chain). */
export const CHAIN_ID = 5042002;

/**
 * The public test network the system runs on (`NETWORK=arc-testnet`): its JSON-RPC endpoint, chain id and the USDC
 * contract (its ERC-20 interface, 6 decimals; EIP-712 domain {@link TOKEN_DOMAIN_NAME}, {@link TOKEN_DOMAIN_VERSION}).
 * Gas is paid in USDC there (18 decimals as the native currency).
 */
export const TEST_NETWORK = {
  name: "arc-testnet",
  rpcUrl: "https://rpc.testnet.arc.network",
  chainId: CHAIN_ID,
  usdc: "0x3600000000000000000000000000000000000000",
} as const;

/** The test network's base fee never drops below this (wei of native USDC, 18 decimals); the embedded chain keeps it. */
export const BASE_FEE_FLOOR_WEI = 20_000_000_000n;

/** CAIP-2 name of the network every payment is bound to. */
export const NETWORK = "eip155:5042002";

/** The x402 protocol version; the quote's leading number. */
export const X402_VERSION = 2;

/** Scheme name of the gated, metered escrow debit. */
export const SCHEME_ESCROW = "service-escrow";

/** Scheme name of the flat EIP-3009 path. */
export const SCHEME_EXACT = "exact";

/** The only accepted agent card `protocolVersion`. */
export const CARD_PROTOCOL_VERSION = "0.3.0";

/** How long a settled result stays retrievable through `GET /results/:idemKey`. */
export const RESULT_TTL_SECONDS = 86_400;

/** How long a buyer's authorization must stay valid unless the quote says otherwise. */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 60;

/**
 * Longest window (`validBefore` - now) of an authorization a facilitator accepts, and so a buyer signs. A settlement
 * the chain does not confirm is retried until its `validBefore` (a debit already sent may land until then), so this
 * also bounds the retries of every payment; it is no longer than the facilitator's longest reservation.
 */
export const MAX_AUTHORIZATION_SECONDS = 3_600;

/**
 * Seconds a buyer's authorization outlives the quote's `maxTimeoutSeconds` at the least: the call, its verify and its
 * settlement fit inside the window with time to spare.
 */
export const SIGNING_MARGIN_SECONDS = 120;

/**
 * How long a gate asks a buyer's authorization to stay valid (the escrow entry's `extra.authorizationSeconds`) unless
 * configured otherwise: the longest a facilitator accepts, so a committed debit can be held until its batch pays.
 */
export const DEFAULT_AUTHORIZATION_SECONDS = MAX_AUTHORIZATION_SECONDS;

/** Default limit on a `POST /call` request body. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Request header carrying the base64 payment payload. */
export const HEADER_X_PAYMENT = "X-PAYMENT";

/** x402 v2 alias of {@link HEADER_X_PAYMENT}. */
export const HEADER_PAYMENT_SIGNATURE = "PAYMENT-SIGNATURE";

/** Response header carrying the base64 receipt. */
export const HEADER_X_PAYMENT_RESPONSE = "X-PAYMENT-RESPONSE";

/** x402 v2 alias of {@link HEADER_X_PAYMENT_RESPONSE}. */
export const HEADER_PAYMENT_RESPONSE = "PAYMENT-RESPONSE";

/** Response header carrying the base64 402 quote. */
export const HEADER_PAYMENT_REQUIRED = "PAYMENT-REQUIRED";

/** Alternative to `Authorization: Bearer` for per-resource caller tokens. */
export const HEADER_RESOURCE_AUTH = "X-Resource-Auth";

/** Placeholder for the card's `url` until deploy. */
export const PLACEHOLDER_CALL_URL = "{{CALL_URL}}";

/** Placeholder for the card's `x402.payTo` until deploy. */
export const PLACEHOLDER_RESOURCE_ID = "{{RESOURCE_ID}}";

/** Placeholder for the card's `identity.agentId` until deploy. */
export const PLACEHOLDER_AGENT_ID = "{{AGENT_ID}}";

/** Every card placeholder; a finalized card contains none of them. */
export const CARD_PLACEHOLDERS = [PLACEHOLDER_CALL_URL, PLACEHOLDER_RESOURCE_ID, PLACEHOLDER_AGENT_ID] as const;

/** EIP-712 domain name of the PaymentEscrow contract. */
export const ESCROW_DOMAIN_NAME = "ServiceEscrow";

/** EIP-712 domain version of the PaymentEscrow contract. */
export const ESCROW_DOMAIN_VERSION = "1";

/** EIP-712 domain name of the stablecoin. */
export const TOKEN_DOMAIN_NAME = "USDC";

/** EIP-712 domain version of the stablecoin. */
export const TOKEN_DOMAIN_VERSION = "2";

/** Exclusive upper bound of the treasury fee, in basis points. */
export const FEE_BPS_LIMIT = 5000;

/** Most the escrow's admin may move the treasury fee in one change, in basis points (`PaymentEscrow.MAX_FEE_STEP`). */
export const MAX_FEE_STEP_BPS = 100;

/** Basis points in a whole. */
export const BPS = 10_000;

/** The test network's block time (ms): a block every ~0.5 s; the embedded chain's `CHAIN_MINING=interval` mines at it. */
export const BLOCK_TIME_MS = 500;

/** Decimals of the chain's native currency (Arc testnet pays gas in USDC with 18 decimals natively). */
export const NATIVE_DECIMALS = 18;

/** Decimals of the payment token (USDC's ERC-20: amounts on the wire are in these base units). */
export const TOKEN_DECIMALS = 6;

/**
 * Gas one settled debit is expected to cost inside a batch: what the treasury's share of a resource's price must pay
 * for (docs/protocol.md, "Price floor"). The marketplace's `SETTLEMENT_GAS_PER_DEBIT` setting overrides it. Set
 * above the costlier shape docs/gas.md measures, a batch of 50 debits from 50 buyers over 5 resources (15,361 per
 * item; one buyer's batch costs 9,989), so a listing at the floor pays for its settlement whoever its buyers are.
 */
export const SETTLEMENT_GAS_PER_DEBIT = 16_000;

/**
 * Gas a debit of any nonce that is not a bitmap nonce adds to {@link SETTLEMENT_GAS_PER_DEBIT}: such a nonce (32 random
 * bytes, as a stock client signs) is spent in a storage slot of its own, a fresh write and its cold access
 * (20,000 + 2,100; docs/gas.md measures 31,899 per debit of random nonces in a full batch of one buyer, against 9,992 for
 * bitmap nonces). The price floor a payment must meet at verify counts it (expectedDebitGas.ts).
 */
export const NONCE_SLOT_GAS = 22_100;

/**
 * Gas one `settleExact` transaction is expected to cost: a flat `exact` payment is settled alone, not in a batch, so
 * its treasury share must pay for all of it. Set above the costlier shape: docs/gas.md measures 143,461 with the
 * creator's and treasury's balances already written, and a creator's first settlement used 211,920
 * (verifyCoversSettlement.test.ts). The gate quotes an `exact` amount whose share covers it, and the facilitator refuses
 * an `exact` payment whose share does not, unless `EXACT_COVERS_SETTLEMENT` is off (docs/protocol.md, "Price floor").
 */
export const SETTLEMENT_GAS_EXACT = 215_000;

/** The operator's margin over the expected settlement cost, in basis points (2000 = 20%), unless configured. */
export const SETTLEMENT_MARGIN_BPS = 2_000;

/**
 * `POST /batch` of the facilitator (docs/protocol.md, "Facilitator batches"): at most this many verify, release and
 * settle calls in one batch, and at most {@link FACILITATOR_BATCH_MAX_BYTES} of JSON in its body; a gate sends a call
 * bigger than {@link FACILITATOR_BATCH_ITEM_MAX_BYTES} to its own route.
 */
export const FACILITATOR_BATCH_MAX_CALLS = 256;

/** Most bytes of a `POST /batch` body. */
export const FACILITATOR_BATCH_MAX_BYTES = 1_048_576;

/** Most bytes of one call's request body inside a batch; a bigger one goes to its own route. */
export const FACILITATOR_BATCH_ITEM_MAX_BYTES = 65_536;

/** Most bytes of a handler's response a gate takes and settles: the largest `maxResponseBytes` it accepts. */
export const MAX_RESPONSE_BYTES_LIMIT = 4_194_304;

/**
 * Most bytes of a request to one of the facilitator's own routes: a settle of the largest response a gate takes
 * (MAX_RESPONSE_BYTES_LIMIT, re-serialised compactly, so no larger) and its other fields. Anything less, and a paid
 * call whose response the gate accepted could never settle.
 */
export const FACILITATOR_CALL_MAX_BYTES = MAX_RESPONSE_BYTES_LIMIT + 65_536;

/**
 * Least bond a listing needs, in the stablecoin's base units (1 USDC): the marketplace's `MIN_BOND` unless set, and the
 * `minBond` of a registry deployed by `npm run deploy` or external `npm start` unless its parameters set one (the
 * embedded chain's registry asks none: ignition/modules/parts.ts).
 */
export const DEFAULT_MIN_BOND = 1_000_000n;
