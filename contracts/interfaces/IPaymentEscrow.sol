// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Escrow of buyer funds, debited per call by the relayer and split between creator and treasury
interface IPaymentEscrow {
    /// @notice A buyer's signed cap for one call (EIP-712 `DebitAuthorization`).
    struct DebitAuthorization {
        address buyer;
        bytes32 resourceId;
        uint256 maxAmount;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
    }

    /// @notice One debit: the authorization, the amount actually charged (<= maxAmount), the signature.
    struct Debit {
        DebitAuthorization authorization;
        uint256 amount;
        bytes signature;
    }

    /// @notice The same debit in six static words, for `debitBatchCompact`: what most batches carry, in half the
    /// calldata. It holds exactly the information of a `Debit` whose values fit (validAfter and validBefore below 2^48,
    /// as ERC-4337 packs them; maxAmount and amount below 2^128) and whose signature is 65 bytes with v = 27 or 28 and
    /// s below 2^255: the escrow rebuilds the authorization and the 65 signature bytes from it, so the buyer's
    /// signature is checked against exactly what they signed.
    /// @param buyerWindow validAfter << 208 | validBefore << 160 | buyer.
    /// @param amounts maxAmount << 128 | amount.
    /// @param r The signature's r.
    /// @param vs The signature's s with v - 27 in the top bit (EIP-2098).
    struct CompactDebit {
        uint256 buyerWindow;
        bytes32 resourceId;
        bytes32 nonce;
        uint256 amounts;
        bytes32 r;
        bytes32 vs;
    }

    /// @notice The `exact` path: an EIP-3009 TransferWithAuthorization from the buyer to this escrow.
    struct ExactPayment {
        bytes32 resourceId;
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes signature;
    }

    /// @notice A buyer's escrow state as a facilitator needs it before reserving.
    /// @param balance The escrow balance.
    /// @param pendingWithdrawal The amount of a requested, not yet executed withdrawal.
    /// @param spendLimit The limit per period (0 = none).
    /// @param period The limit's period in seconds.
    /// @param windowStart When the current period started.
    /// @param spentInWindow Debited in the current period, as last recorded.
    /// @param pendingSpendLimit The limit of a requested tightening, not yet in force.
    /// @param pendingPeriod Its period in seconds.
    /// @param pendingEffectiveAt When anyone may apply it (0 when none is pending): a debit mined from then on may be
    ///        checked against it, so a facilitator counts it for an authorization valid past this time.
    /// @param nonceSpent Whether the nonce asked about is already spent.
    /// @param atBlock The number of the block the state was read in (`block.number`), so a reader can tell which
    ///        debits it already reflects.
    struct BuyerState {
        uint256 balance;
        uint256 pendingWithdrawal;
        uint256 spendLimit;
        uint256 period;
        uint256 windowStart;
        uint256 spentInWindow;
        uint256 pendingSpendLimit;
        uint256 pendingPeriod;
        uint256 pendingEffectiveAt;
        bool nonceSpent;
        uint256 atBlock;
    }

    /// @param buyer Whose balance grew.
    /// @param from Who paid the stablecoin in.
    /// @param amount The amount.
    /// @param balance The buyer's balance after.
    event Deposited(address indexed buyer, address indexed from, uint256 amount, uint256 balance);

    /// @param buyer The buyer.
    /// @param amount The amount requested.
    /// @param unlocksAt When `withdraw` may be called.
    event WithdrawalRequested(address indexed buyer, uint256 amount, uint256 unlocksAt);

    /// @param buyer The buyer.
    /// @param amount The amount paid out.
    /// @param balance The buyer's balance after.
    event Withdrawn(address indexed buyer, uint256 amount, uint256 balance);

    /// @notice Debits of one resource: one log per run of consecutive items for one resource in a batch (and one per
    /// `debit` or `settleExact`). Each debit's `amount` left its buyer's balance (or, for `settleExact`, arrived by its
    /// EIP-3009 transfer); floor(amount * feeBps / 10000) of it was credited to the treasury and the rest (the
    /// creator's share) to the resource's payout, as the registry named it in that transaction (`ResourceRegistered` /
    /// `PayoutUpdated`). The debits are packed, not indexed, so that a debit costs 68 bytes of log data instead of a
    /// log of its own: services/protocol/parseDebits.ts decodes them.
    /// @param resourceId The resource paid.
    /// @param feeBps The fee in force, in basis points.
    /// @param debits 68 bytes per debit, in order: the buyer (20 bytes), the nonce (32, the idemKey), the amount
    ///        (uint128, 16 bytes, big-endian).
    event BatchDebited(bytes32 indexed resourceId, uint16 feeBps, bytes debits);

    /// @notice An item of a batch failed and was skipped; the rest of the batch went through.
    /// @param resourceId The resource of the skipped item.
    /// @param buyer The buyer of the skipped item.
    /// @param nonce The nonce of the skipped item (not spent).
    /// @param reason The ABI-encoded custom error the item would have reverted with.
    event DebitSkipped(bytes32 indexed resourceId, address indexed buyer, bytes32 indexed nonce, bytes reason);

    /// @param account The creator payout or treasury account.
    /// @param to Where the earnings were sent.
    /// @param amount The amount.
    event EarningsClaimed(address indexed account, address indexed to, uint256 amount);

    /// @notice A spend limit is now in force (and no change of it is pending any more); the current window carries
    /// over.
    /// @param buyer The buyer.
    /// @param limit Most the buyer may be debited per period (0 = no limit).
    /// @param period The period length in seconds.
    event SpendLimitSet(address indexed buyer, uint256 limit, uint256 period);

    /// @notice A tightening of a spend limit was requested; the limit in force stays until `applySpendLimit` is
    /// called at or after `effectiveAt`. Replaces an earlier request.
    /// @param buyer The buyer.
    /// @param limit The limit asked for (clamped to uint128).
    /// @param period The period asked for, in seconds (clamped to uint64).
    /// @param effectiveAt When anyone may apply it.
    event SpendLimitChangeRequested(address indexed buyer, uint256 limit, uint256 period, uint256 effectiveAt);

    /// @param oldFeeBps The previous fee.
    /// @param newFeeBps The new fee.
    event FeeChanged(uint16 oldFeeBps, uint16 newFeeBps);

    /// @param treasury The new treasury.
    event TreasuryChanged(address treasury);

    /// @notice Surplus stablecoin (held beyond what the escrow owes) was returned.
    /// @param to Who received it.
    /// @param amount How much.
    event SurplusRecovered(address indexed to, uint256 amount);

    /// @notice A zero address where one is required.
    error ZeroAddress();
    /// @notice A zero amount where a positive one is required.
    error ZeroAmount();
    /// @param feeBps The fee asked for; it must be below 5000.
    error FeeTooHigh(uint16 feeBps);
    /// @param oldFeeBps The current fee.
    /// @param newFeeBps The fee asked for, further from the current one than one step allows.
    error FeeStepTooLarge(uint16 oldFeeBps, uint16 newFeeBps);
    /// @param nextChangeAt When the fee may change again.
    error FeeChangeTooSoon(uint256 nextChangeAt);
    /// @param validAfter The authorization's start.
    /// @param now_ The block timestamp.
    error AuthorizationNotYetValid(uint256 validAfter, uint256 now_);
    /// @param validBefore The authorization's end.
    /// @param now_ The block timestamp.
    error AuthorizationExpired(uint256 validBefore, uint256 now_);
    /// @param buyer The buyer.
    /// @param nonce The nonce already spent.
    error NonceAlreadyUsed(address buyer, bytes32 nonce);
    /// @param amount The amount asked for.
    /// @param maxAmount The cap the buyer signed.
    error AmountExceedsMax(uint256 amount, uint256 maxAmount);
    /// @param resourceId The resource that is unknown or inactive.
    error ResourceInactive(bytes32 resourceId);
    /// @param buyer The account the signature should come from.
    error InvalidSignature(address buyer);
    /// @notice A contract buyer's ERC-1271 check failed with too little gas left for it to have been given
    /// ERC1271_GAS_LIMIT (the 63/64 rule): the transaction's gas limit decided it, not the signature, and the same
    /// transaction with more gas may succeed. The whole transaction reverts, a batch too, so no valid debit is skipped.
    /// @param buyer The contract buyer whose check ran short of gas.
    error SignatureCheckOutOfGas(address buyer);
    /// @param buyer The buyer.
    /// @param balance The buyer's escrow balance.
    /// @param needed The amount needed.
    error InsufficientEscrow(address buyer, uint256 balance, uint256 needed);
    /// @param buyer The buyer.
    /// @param limit The buyer's limit per period.
    /// @param spent Already spent in this period.
    /// @param amount The amount that would pass the limit.
    error SpendLimitExceeded(address buyer, uint256 limit, uint256 spent, uint256 amount);
    /// @param buyer The buyer.
    /// @param unlocksAt When the withdrawal may happen (0 when none was requested).
    error WithdrawalLocked(address buyer, uint256 unlocksAt);
    /// @param buyer The buyer.
    /// @param effectiveAt When the pending spend-limit change may be applied (0 when none is pending).
    error SpendLimitChangeNotDue(address buyer, uint256 effectiveAt);
    /// @param from The payer of the `exact` payment.
    /// @param nonce Its EIP-3009 nonce, already used at the token (cancelled, or transferred without this escrow).
    error AuthorizationAlreadyUsed(address from, bytes32 nonce);
    /// @param nonce An `exact` nonce tagged with EXACT_NONCE_TAG, which names another resource.
    /// @param resourceId The resource it was presented for.
    error NonceBoundToOtherResource(bytes32 nonce, bytes32 resourceId);
    /// @param amount A deposit that would take a balance to 2^128 or more, or an `exact` payment of that much.
    error AmountTooLarge(uint256 amount);
    /// @param surplus Stablecoin held beyond what the escrow owes.
    /// @param amount The amount asked for.
    error SurplusTooLow(uint256 surplus, uint256 amount);

    /// @notice Longest a buyer must wait between `requestWithdrawal` and `withdraw`.
    function WITHDRAWAL_DELAY() external view returns (uint256);

    /// @notice Adds `amount` to the caller's balance (stablecoin `transferFrom` the caller).
    function deposit(uint256 amount) external;

    /// @notice Adds `amount` to `buyer`'s balance, paid by the caller.
    function depositFor(address buyer, uint256 amount) external;

    /// @notice Adds `value` to `from`'s balance with `from`'s EIP-3009 ReceiveWithAuthorization (to = this).
    function depositWithAuthorization(
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;

    /// @notice Starts the delay after which `amount` may be withdrawn; replaces an earlier request.
    function requestWithdrawal(uint256 amount) external;

    /// @notice Pays out the requested amount (or the balance, if less) once the delay has passed.
    function withdraw() external returns (uint256 amount);

    /// @notice Sets the caller's spend limit: at most `limit` debited per `period` seconds (0 = none); values above
    /// uint128 (limit) and uint64 (period) are clamped, and a limit without a period reverts `ZeroAmount`.
    /// A change that only loosens (no limit, or a limit at least the current non-zero one over a period no longer)
    /// is in force at once (`SpendLimitSet`) and cancels a pending change. Any other (a lower limit, a longer period,
    /// a first limit) is only requested (`SpendLimitChangeRequested`, replacing an earlier request) and may be applied
    /// a day later (`WITHDRAWAL_DELAY`) with `applySpendLimit`: committed settlement debits a call after it was served,
    /// and nothing a buyer does after the facilitator committed a debit may make that debit fail on chain. The day is
    /// far longer than any authorization the facilitator accepts, so every debit it committed before the request is
    /// mined or expired by then. `buyerState` shows a pending change.
    function setSpendLimit(uint256 limit, uint256 period) external;

    /// @notice Puts `buyer`'s pending spend-limit change in force (`SpendLimitSet`) once its delay has passed; anyone
    /// may call it. Reverts `SpendLimitChangeNotDue` before then or when none is pending.
    function applySpendLimit(address buyer) external;

    /// @notice Debits `debit.amount` under the buyer's signed authorization and splits it. Relayer only.
    function debit(Debit calldata debit) external;

    /// @notice Debits many authorizations; a failing item is skipped (`DebitSkipped`), never the batch.
    /// @return settled How many items were debited.
    function debitBatch(Debit[] calldata debits) external returns (uint256 settled);

    /// @notice `debitBatch` for items in the compact encoding; same checks, same outcome, same events.
    /// @return settled How many items were debited.
    function debitBatchCompact(CompactDebit[] calldata debits) external returns (uint256 settled);

    /// @notice Settles an `exact` payment: pulls its EIP-3009 transfer into the escrow and splits it. An authorization
    /// already used at the token (cancelled, front-run or spent elsewhere) is refused; a nonce tagged with
    /// EXACT_NONCE_TAG pays only the resource it names.
    function settleExact(ExactPayment calldata payment) external;

    /// @notice Sends `amount` of the stablecoin held beyond `totalLiabilities` (funds that reached the escrow outside
    /// a deposit or settlement: a plain transfer, a front-run `exact` transfer) to `to`, their owner as the token's
    /// `Transfer` logs show. Admin only; never touches what the escrow owes.
    function recoverSurplus(address to, uint256 amount) external;

    /// @notice Sends the caller's earnings (creator shares or treasury fees) to `to`.
    function claim(address to) external returns (uint256 amount);

    /// @notice A buyer's escrow balance (below 2^128).
    function balanceOf(address buyer) external view returns (uint256);

    /// @notice Whether `nonce` is spent for `buyer`: a bitmap nonce (docs/protocol.md) as a bit of the buyer's nonce
    /// words, any other as a slot of its own.
    function nonceUsed(address buyer, bytes32 nonce) external view returns (bool);

    /// @notice Everything a facilitator reads before reserving a buyer's payment, in one call.
    /// @param buyer The buyer.
    /// @param nonce The payment's nonce.
    function buyerState(address buyer, bytes32 nonce) external view returns (BuyerState memory);

    /// @notice The EIP-712 digest a buyer signs for `authorization`.
    function hashDebitAuthorization(DebitAuthorization calldata authorization) external view returns (bytes32);
}
