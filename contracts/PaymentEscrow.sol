// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";
import {IPaymentEscrow} from "./interfaces/IPaymentEscrow.sol";
import {IResourceRegistry} from "./interfaces/IResourceRegistry.sol";

/// @title Payment escrow for per-call debits
/// @notice Buyers deposit the stablecoin; the relayer debits a call's price under the buyer's signed
/// `DebitAuthorization` (EIP-712 domain "ServiceEscrow"/"1") and the amount is split in the same step:
/// treasury = floor(amount * feeBps / 10000), creator = the rest, credited to the resource's payout.
/// Shares are credited, then claimed (pull), so no debit ever calls out to a receiver.
/// Withdrawals take `WITHDRAWAL_DELAY`, longer than any reservation the facilitator holds, so funds
/// cannot leave from under a live reservation. A tighter spend limit likewise waits `SPEND_LIMIT_DELAY` before it
/// may be applied, so that nothing a buyer does after the facilitator committed a debit can make that debit fail
/// on chain. Pausing stops debits, never withdrawals, spend limits or claims.
contract PaymentEscrow is IPaymentEscrow, AccessControl, Pausable, ReentrancyGuard, EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant DEBIT_AUTHORIZATION_TYPEHASH = keccak256(
        "DebitAuthorization(address buyer,bytes32 resourceId,uint256 maxAmount,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice First four bytes of an `exact` nonce bound to a resource (`bytes4(keccak256("ServiceEscrow.exact.resource"))`);
    /// the next twelve are then the first twelve bytes of the only resource id it may pay.
    bytes4 public constant EXACT_NONCE_TAG = bytes4(keccak256("ServiceEscrow.exact.resource"));
    /// @inheritdoc IPaymentEscrow
    uint256 public constant WITHDRAWAL_DELAY = 1 days;
    /// @dev How long a tightening of a spend limit waits before `applySpendLimit` may put it in force. Not a public
    /// getter, nor is the pending change (`buyerState` shows it): each getter lengthens the selector dispatch of every
    /// `debit` and batch by up to 22 gas (docs/gas.md).
    uint256 private constant SPEND_LIMIT_DELAY = WITHDRAWAL_DELAY;
    uint16 public constant BPS = 10_000;
    /// @notice The fee is always strictly below this (50%): the creator keeps the majority.
    uint16 public constant FEE_BPS_LIMIT = 5_000;
    /// @notice Largest change of the fee in one step, in basis points.
    uint16 public constant MAX_FEE_STEP = 100;
    /// @notice Shortest time between two fee changes.
    uint256 public constant FEE_CHANGE_INTERVAL = 1 days;
    /// @notice Most gas a contract buyer's ERC-1271 `isValidSignature` may use in a debit, so that one hostile
    /// wallet cannot burn the gas of a whole batch (an unbounded call takes 63/64 of what is left).
    uint256 public constant ERC1271_GAS_LIMIT = 500_000;
    /// @dev The low 128 bits of a word, where `CompactDebit` keeps the amount.
    uint256 private constant LOW_128 = type(uint128).max;
    /// @dev A 48-bit field of `CompactDebit.buyerWindow` (validBefore), once shifted down.
    uint256 private constant LOW_48 = type(uint48).max;
    /// @dev The bits of an EIP-2098 `vs` that hold s.
    bytes32 private constant S_MASK = bytes32(type(uint256).max >> 1);
    /// @dev The largest s a signature may have: half the secp256k1 group order (EIP-2).
    uint256 private constant SECP256K1_HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    struct PendingWithdrawal {
        uint192 amount;
        uint64 unlocksAt;
    }

    struct SpendLimit {
        uint128 limit;
        uint64 period;
        uint64 windowStart;
        uint256 spent;
    }

    /// @dev A requested tightening of a spend limit and when `applySpendLimit` may put it in force (0: none).
    struct PendingSpendLimit {
        uint128 limit;
        uint64 period;
        uint64 effectiveAt;
    }

    /// @dev One debit, decoded from either encoding (`Debit` or `CompactDebit`). The first seven words are the
    /// preimage of the authorization's EIP-712 struct hash: the type hash, then the six fields, one word each, as
    /// `abi.encode` lays them out. `v`, `r`, `s` are the signature's parts (v = 0 when it is not 65 bytes long);
    /// `packed` says that they are all there is of it (a `CompactDebit`), so a contract wallet is shown them.
    struct Item {
        bytes32 typeHash;
        address buyer;
        bytes32 resourceId;
        uint256 maxAmount;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint256 amount;
        uint8 v;
        bytes32 r;
        bytes32 s;
        bool packed;
    }

    /// @dev A batch in progress: the fee read once, the treasury's fees and the count so far, the item being
    /// processed, and the run of consecutive items for one resource: its payment target and the creator shares not
    /// yet credited.
    struct Batch {
        uint16 fee;
        uint256 fees;
        uint256 settled;
        Item item;
        bytes32 resourceId;
        address payout;
        bool active;
        uint256 owed;
    }

    IERC20 public immutable token;
    IResourceRegistry public immutable registry;

    address public treasury;
    uint16 public feeBps;
    uint64 public lastFeeChangeAt;
    /// @notice Sum of all buyer balances and unclaimed earnings: what the escrow owes.
    uint256 public totalLiabilities;

    mapping(address buyer => uint256) public balanceOf;
    mapping(address account => uint256) public earningsOf;
    mapping(address buyer => mapping(bytes32 nonce => bool)) public nonceUsed;
    mapping(address buyer => PendingWithdrawal) public pendingWithdrawal;
    mapping(address buyer => SpendLimit) public spendLimitOf;
    /// @dev Read through `buyerState` (pendingSpendLimit, pendingPeriod, pendingEffectiveAt).
    mapping(address buyer => PendingSpendLimit) private pendingSpendLimitOf;

    /// @param token_ The stablecoin (EIP-3009).
    /// @param registry_ The resource registry that names each resource's payout and status.
    /// @param treasury_ Receives the fee share.
    /// @param feeBps_ The initial fee, below 5000.
    /// @param admin Holds DEFAULT_ADMIN_ROLE and PAUSER_ROLE.
    constructor(
        IERC20 token_,
        IResourceRegistry registry_,
        address treasury_,
        uint16 feeBps_,
        address admin
    ) EIP712("ServiceEscrow", "1") {
        if (address(token_) == address(0) || address(registry_) == address(0) || admin == address(0)) {
            revert ZeroAddress();
        }
        if (feeBps_ >= FEE_BPS_LIMIT) revert FeeTooHigh(feeBps_);
        token = token_;
        registry = registry_;
        feeBps = feeBps_;
        lastFeeChangeAt = uint64(block.timestamp);
        _setTreasury(treasury_);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(PAUSER_ROLE, admin);
    }

    // ---------------------------------------------------------------- buyers

    /// @inheritdoc IPaymentEscrow
    function deposit(uint256 amount) external nonReentrant {
        _pullDeposit(msg.sender, amount);
    }

    /// @inheritdoc IPaymentEscrow
    function depositFor(address buyer, uint256 amount) external nonReentrant {
        if (buyer == address(0)) revert ZeroAddress();
        _pullDeposit(buyer, amount);
    }

    /// @inheritdoc IPaymentEscrow
    function depositWithAuthorization(
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external nonReentrant {
        if (value == 0) revert ZeroAmount();
        IERC3009(address(token)).receiveWithAuthorization(
            from,
            address(this),
            value,
            validAfter,
            validBefore,
            nonce,
            signature
        );
        _credit(from, from, value);
    }

    /// @inheritdoc IPaymentEscrow
    function requestWithdrawal(uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        uint256 balance = balanceOf[msg.sender];
        if (amount > balance) revert InsufficientEscrow(msg.sender, balance, amount);
        uint256 unlocksAt = block.timestamp + WITHDRAWAL_DELAY;
        // amount <= balance <= token supply, far below 2^192; unlocksAt is a timestamp far below 2^64.
        pendingWithdrawal[msg.sender] = PendingWithdrawal(uint192(amount), uint64(unlocksAt));
        emit WithdrawalRequested(msg.sender, amount, unlocksAt);
    }

    /// @inheritdoc IPaymentEscrow
    function withdraw() external nonReentrant returns (uint256 amount) {
        PendingWithdrawal memory pending = pendingWithdrawal[msg.sender];
        if (pending.unlocksAt == 0 || block.timestamp < pending.unlocksAt) {
            revert WithdrawalLocked(msg.sender, pending.unlocksAt);
        }
        uint256 balance = balanceOf[msg.sender];
        amount = pending.amount < balance ? pending.amount : balance;
        delete pendingWithdrawal[msg.sender];
        if (amount == 0) revert ZeroAmount();
        // Checks-effects-interactions: the balance and liabilities drop before the token is called.
        balanceOf[msg.sender] = balance - amount;
        totalLiabilities -= amount;
        emit Withdrawn(msg.sender, amount, balance - amount);
        token.safeTransfer(msg.sender, amount);
    }

    /// @inheritdoc IPaymentEscrow
    function setSpendLimit(uint256 limit, uint256 period) external {
        if (limit != 0 && period == 0) revert ZeroAmount();
        uint128 newLimit = uint128(limit > type(uint128).max ? type(uint128).max : limit);
        uint64 newPeriod = uint64(period > type(uint64).max ? type(uint64).max : period);
        SpendLimit storage s = spendLimitOf[msg.sender];
        // No limit, or one no lower over a window that ends no later: no debit check is stricter than before.
        if (newLimit == 0 || (s.limit != 0 && newLimit >= s.limit && newPeriod <= s.period)) {
            delete pendingSpendLimitOf[msg.sender];
            _setSpendLimit(msg.sender, s, newLimit, newPeriod);
            return;
        }
        uint256 effectiveAt = block.timestamp + SPEND_LIMIT_DELAY;
        // effectiveAt is a timestamp far below 2^64.
        pendingSpendLimitOf[msg.sender] = PendingSpendLimit(newLimit, newPeriod, uint64(effectiveAt));
        emit SpendLimitChangeRequested(msg.sender, newLimit, newPeriod, effectiveAt);
    }

    /// @inheritdoc IPaymentEscrow
    function applySpendLimit(address buyer) external {
        PendingSpendLimit memory pending = pendingSpendLimitOf[buyer];
        if (pending.effectiveAt == 0 || block.timestamp < pending.effectiveAt) {
            revert SpendLimitChangeNotDue(buyer, pending.effectiveAt);
        }
        delete pendingSpendLimitOf[buyer];
        _setSpendLimit(buyer, spendLimitOf[buyer], pending.limit, pending.period);
    }

    // ---------------------------------------------------------------- relayer

    /// @inheritdoc IPaymentEscrow
    function debit(Debit calldata item) external onlyRole(RELAYER_ROLE) whenNotPaused {
        Item memory d = _newItem();
        _load(d, item);
        (address payout, bool active) = registry.paymentTarget(d.resourceId);
        (bytes memory failure, uint256 treasuryAmount) = _debit(d, item.signature, active, feeBps);
        if (failure.length != 0) _revertWith(failure);
        earningsOf[payout] += d.amount - treasuryAmount;
        earningsOf[treasury] += treasuryAmount;
    }

    /// @inheritdoc IPaymentEscrow
    function debitBatch(Debit[] calldata items) external onlyRole(RELAYER_ROLE) whenNotPaused returns (uint256) {
        Batch memory b = _openBatch(false);
        for (uint256 i; i < items.length; ++i) {
            _load(b.item, items[i]);
            _batchItem(b, items[i].signature, i == 0);
        }
        return _closeBatch(b);
    }

    /// @inheritdoc IPaymentEscrow
    function debitBatchCompact(
        CompactDebit[] calldata items
    ) external onlyRole(RELAYER_ROLE) whenNotPaused returns (uint256) {
        Batch memory b = _openBatch(true);
        for (uint256 i; i < items.length; ++i) {
            _loadCompact(b.item, items[i]);
            _batchItem(b, msg.data[0:0], i == 0); // no signature bytes: `packed` rebuilds them
        }
        return _closeBatch(b);
    }

    /// @inheritdoc IPaymentEscrow
    function settleExact(ExactPayment calldata p) external onlyRole(RELAYER_ROLE) whenNotPaused nonReentrant {
        if (nonceUsed[p.from][p.nonce]) revert NonceAlreadyUsed(p.from, p.nonce);
        if (p.value == 0) revert ZeroAmount();
        if (bytes4(p.nonce) == EXACT_NONCE_TAG && bytes12(p.nonce << 32) != bytes12(p.resourceId)) {
            revert NonceBoundToOtherResource(p.nonce, p.resourceId);
        }
        // A used authorization was cancelled, spent on a transfer elsewhere, or submitted to the token by someone else:
        // the chain cannot tell these apart, so none of them is credited from funds held here (recoverSurplus).
        if (IERC3009(address(token)).authorizationState(p.from, p.nonce)) {
            revert AuthorizationAlreadyUsed(p.from, p.nonce);
        }
        (address payout, bool active) = registry.paymentTarget(p.resourceId);
        if (!active) revert ResourceInactive(p.resourceId);
        nonceUsed[p.from][p.nonce] = true;
        // The token moves exactly `value` from `from` to this escrow, or reverts: the payment is credited only from
        // its own transfer.
        IERC3009(address(token)).transferWithAuthorization(
            p.from,
            address(this),
            p.value,
            p.validAfter,
            p.validBefore,
            p.nonce,
            p.signature
        );
        totalLiabilities += p.value;
        uint256 treasuryAmount = (p.value * feeBps) / BPS;
        uint256 creatorAmount = p.value - treasuryAmount;
        earningsOf[payout] += creatorAmount;
        earningsOf[treasury] += treasuryAmount;
        emit Debited(p.resourceId, p.from, p.nonce, p.value, treasuryAmount);
    }

    // ---------------------------------------------------------------- earnings

    /// @inheritdoc IPaymentEscrow
    function claim(address to) external nonReentrant returns (uint256 amount) {
        if (to == address(0)) revert ZeroAddress();
        amount = earningsOf[msg.sender];
        if (amount == 0) revert ZeroAmount();
        earningsOf[msg.sender] = 0;
        totalLiabilities -= amount;
        emit EarningsClaimed(msg.sender, to, amount);
        token.safeTransfer(to, amount);
    }

    // ---------------------------------------------------------------- admin

    /// @notice Moves the fee by at most MAX_FEE_STEP, at most once per FEE_CHANGE_INTERVAL, below FEE_BPS_LIMIT.
    function setFee(uint16 newFeeBps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (newFeeBps >= FEE_BPS_LIMIT) revert FeeTooHigh(newFeeBps);
        uint16 old = feeBps;
        uint16 step = newFeeBps > old ? newFeeBps - old : old - newFeeBps;
        if (step > MAX_FEE_STEP) revert FeeStepTooLarge(old, newFeeBps);
        uint256 nextChangeAt = uint256(lastFeeChangeAt) + FEE_CHANGE_INTERVAL;
        if (block.timestamp < nextChangeAt) revert FeeChangeTooSoon(nextChangeAt);
        feeBps = newFeeBps;
        lastFeeChangeAt = uint64(block.timestamp);
        emit FeeChanged(old, newFeeBps);
    }

    /// @notice Sets where future fees are credited; earnings already credited stay with the old treasury.
    function setTreasury(address treasury_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setTreasury(treasury_);
    }

    /// @inheritdoc IPaymentEscrow
    function recoverSurplus(address to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        // totalLiabilities never exceeds the balance: every increase of it follows tokens arriving here.
        uint256 surplus = token.balanceOf(address(this)) - totalLiabilities;
        if (amount > surplus) revert SurplusTooLow(surplus, amount);
        emit SurplusRecovered(to, amount);
        token.safeTransfer(to, amount);
    }

    /// @notice Stops debits and exact settlements. Pauser only.
    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    /// @notice Resumes debits. Pauser only.
    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IPaymentEscrow
    function buyerState(address buyer, bytes32 nonce) external view returns (BuyerState memory state) {
        SpendLimit storage s = spendLimitOf[buyer];
        PendingSpendLimit storage pending = pendingSpendLimitOf[buyer];
        state = BuyerState({
            balance: balanceOf[buyer],
            pendingWithdrawal: pendingWithdrawal[buyer].amount,
            spendLimit: s.limit,
            period: s.period,
            windowStart: s.windowStart,
            spentInWindow: s.spent,
            pendingSpendLimit: pending.limit,
            pendingPeriod: pending.period,
            pendingEffectiveAt: pending.effectiveAt,
            nonceSpent: nonceUsed[buyer][nonce],
            atBlock: block.number
        });
    }

    /// @inheritdoc IPaymentEscrow
    function hashDebitAuthorization(DebitAuthorization calldata a) external view returns (bytes32) {
        Item memory d = _newItem();
        _loadAuthorization(d, a);
        return _digest(d);
    }

    /// @notice The EIP-712 domain separator buyers sign under.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ---------------------------------------------------------------- internals

    /// @dev One debit: every check in one place, then its effects. A failing check returns the ABI-encoded custom
    /// error (and changes nothing), so that `debit` reverts with it and a batch skips the item and reports it.
    /// `active` is the registry's answer for the item's resource; `signature` is the signature as sent (unused for a
    /// packed item). Returns the treasury's share; the creator's is the rest of `d.amount`.
    function _debit(
        Item memory d,
        bytes calldata signature,
        bool active,
        uint16 fee
    ) private returns (bytes memory failure, uint256 treasuryAmount) {
        address buyer = d.buyer;
        uint256 amount = d.amount;
        bytes32 nonce = d.nonce;
        if (block.timestamp < d.validAfter) {
            return (abi.encodeWithSelector(AuthorizationNotYetValid.selector, d.validAfter, block.timestamp), 0);
        }
        if (block.timestamp >= d.validBefore) {
            return (abi.encodeWithSelector(AuthorizationExpired.selector, d.validBefore, block.timestamp), 0);
        }
        bytes32 nonceSlot = _nonceSlot(buyer, nonce);
        bool nonceSpent;
        assembly ("memory-safe") {
            nonceSpent := sload(nonceSlot)
        }
        if (nonceSpent) return (abi.encodeWithSelector(NonceAlreadyUsed.selector, buyer, nonce), 0);
        if (amount == 0) return (abi.encodeWithSelector(ZeroAmount.selector), 0);
        if (amount > d.maxAmount) return (abi.encodeWithSelector(AmountExceedsMax.selector, amount, d.maxAmount), 0);
        if (!active) return (abi.encodeWithSelector(ResourceInactive.selector, d.resourceId), 0);
        if (!_isValidSignature(buyer, _digest(d), d.v, d.r, d.s, d.packed, signature)) {
            return (abi.encodeWithSelector(InvalidSignature.selector, buyer), 0);
        }
        uint256 balance = balanceOf[buyer];
        if (balance < amount) return (abi.encodeWithSelector(InsufficientEscrow.selector, buyer, balance, amount), 0);
        SpendLimit storage s = spendLimitOf[buyer];
        uint256 limit = s.limit;
        bool windowExpired;
        if (limit != 0) {
            windowExpired = _windowExpired(s);
            uint256 spentInWindow = windowExpired ? 0 : s.spent;
            if (spentInWindow + amount > limit) {
                return (abi.encodeWithSelector(SpendLimitExceeded.selector, buyer, limit, spentInWindow, amount), 0);
            }
        }

        assembly ("memory-safe") {
            sstore(nonceSlot, 1)
        }
        // balance >= amount was checked above.
        unchecked {
            balanceOf[buyer] = balance - amount;
        }
        if (limit != 0) {
            if (windowExpired) {
                s.windowStart = uint64(block.timestamp);
                s.spent = amount;
            } else {
                s.spent += amount;
            }
        }
        treasuryAmount = (amount * fee) / BPS;
        emit Debited(d.resourceId, buyer, nonce, amount, treasuryAmount);
    }

    /// @dev `packed`: the batch's items come as `CompactDebit`s.
    function _openBatch(bool packed) private view returns (Batch memory b) {
        b.fee = feeBps;
        b.item = _newItem();
        b.item.packed = packed;
    }

    /// @dev Debits the batch's current item, or skips it with `DebitSkipped`. Consecutive items for one resource form
    /// a run: the registry is asked once per run and the run's creator shares are credited to its payout once, when
    /// the run ends. Nothing in a batch can change the registry (it is only read) or a payout's earnings (only
    /// credited here), so the result equals crediting item by item.
    function _batchItem(Batch memory b, bytes calldata signature, bool first) private {
        Item memory d = b.item;
        if (first || d.resourceId != b.resourceId) {
            _endRun(b);
            b.resourceId = d.resourceId;
            (b.payout, b.active) = registry.paymentTarget(d.resourceId);
        }
        (bytes memory failure, uint256 treasuryAmount) = _debit(d, signature, b.active, b.fee);
        if (failure.length != 0) {
            emit DebitSkipped(d.resourceId, d.buyer, d.nonce, failure);
            return;
        }
        // treasuryAmount <= amount, and the sums are bounded by the buyers' balances, far below 2^256.
        unchecked {
            b.owed += d.amount - treasuryAmount;
            b.fees += treasuryAmount;
            ++b.settled;
        }
    }

    function _closeBatch(Batch memory b) private returns (uint256 settled) {
        _endRun(b);
        if (b.fees != 0) earningsOf[treasury] += b.fees;
        return b.settled;
    }

    /// @dev Credits the current run's creator shares to its payout.
    function _endRun(Batch memory b) private {
        if (b.owed != 0) {
            earningsOf[b.payout] += b.owed;
            b.owed = 0;
        }
    }

    /// @dev Where `nonceUsed[buyer][nonce]` is stored (Solidity's layout of nested mappings), so that a debit reads
    /// and writes the slot without hashing it twice, and writes it without first reading it again.
    function _nonceSlot(address buyer, bytes32 nonce) private pure returns (bytes32 slot) {
        assembly ("memory-safe") {
            mstore(0x00, buyer)
            mstore(0x20, nonceUsed.slot)
            mstore(0x20, keccak256(0x00, 0x40))
            mstore(0x00, nonce)
            slot := keccak256(0x00, 0x40)
        }
    }

    function _newItem() private pure returns (Item memory d) {
        d.typeHash = DEBIT_AUTHORIZATION_TYPEHASH;
    }

    function _loadAuthorization(Item memory d, DebitAuthorization calldata a) private pure {
        d.buyer = a.buyer;
        d.resourceId = a.resourceId;
        d.maxAmount = a.maxAmount;
        d.validAfter = a.validAfter;
        d.validBefore = a.validBefore;
        d.nonce = a.nonce;
    }

    function _load(Item memory d, Debit calldata item) private pure {
        _loadAuthorization(d, item.authorization);
        d.amount = item.amount;
        (d.v, d.r, d.s) = _splitSignature(item.signature);
    }

    /// @dev Unpacks a `CompactDebit`; see its definition for the layout.
    function _loadCompact(Item memory d, CompactDebit calldata c) private pure {
        uint256 buyerWindow = c.buyerWindow;
        d.buyer = address(uint160(buyerWindow));
        d.validBefore = (buyerWindow >> 160) & LOW_48;
        d.validAfter = buyerWindow >> 208;
        d.resourceId = c.resourceId;
        d.nonce = c.nonce;
        uint256 amounts = c.amounts;
        d.maxAmount = amounts >> 128;
        d.amount = amounts & LOW_128;
        bytes32 vs = c.vs;
        d.r = c.r;
        d.s = vs & S_MASK;
        d.v = uint8(uint256(vs) >> 255) + 27;
    }

    /// @dev The EIP-712 digest of the item's authorization: its struct hash is one keccak over the first seven words.
    function _digest(Item memory d) private view returns (bytes32) {
        bytes32 structHash;
        assembly ("memory-safe") {
            structHash := keccak256(d, 0xe0)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @dev The key that signed `hash` with (v, r, s), or address(0): also for an s in the upper half of the curve
    /// order (the malleable twin of a valid signature), and for a v other than 27 or 28 (the precompile's rule).
    function _recover(bytes32 hash, uint8 v, bytes32 r, bytes32 s) private view returns (address signer) {
        if (uint256(s) > SECP256K1_HALF_ORDER) return address(0);
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, hash)
            mstore(add(m, 0x20), v)
            mstore(add(m, 0x40), r)
            mstore(add(m, 0x60), s)
            mstore(0x00, 0)
            // The precompile returns nothing for a signature it cannot recover from; 0x00 then stays zero.
            pop(staticcall(gas(), 0x01, m, 0x80, 0x00, 0x20))
            signer := mload(0x00)
        }
    }

    /// @dev A 65-byte signature's parts; (0, 0, 0) for any other length, which no key recovers from.
    function _splitSignature(bytes calldata signature) private pure returns (uint8 v, bytes32 r, bytes32 s) {
        if (signature.length != 65) return (0, 0, 0);
        assembly ("memory-safe") {
            r := calldataload(signature.offset)
            s := calldataload(add(signature.offset, 0x20))
            v := byte(0, calldataload(add(signature.offset, 0x40)))
        }
    }

    /// @dev A low-s ECDSA signature by the signer's key is accepted first: that covers an account that delegates to
    /// code (EIP-7702), whose key still signs for it, and it is the rule the facilitator checks off chain. Otherwise,
    /// for an account with code, ERC-1271 with at most ERC1271_GAS_LIMIT gas and only the first 32 bytes of its
    /// answer copied, so that a failing wallet costs a bounded amount and is skipped in a batch. The wallet is shown
    /// `signature` as sent (an empty one too: some wallets answer it for a hash they approved), or, when `packed`,
    /// the 65 bytes r, s, v that a compact item was packed from.
    function _isValidSignature(
        address signer,
        bytes32 hash,
        uint8 v,
        bytes32 r,
        bytes32 s,
        bool packed,
        bytes calldata signature
    ) private view returns (bool) {
        address recovered = _recover(hash, v, r, s);
        if (recovered != address(0) && recovered == signer) return true;
        if (signer.code.length == 0) return false;
        bytes memory data =
            packed
                ? abi.encodeCall(IERC1271.isValidSignature, (hash, abi.encodePacked(r, s, v)))
                : abi.encodeCall(IERC1271.isValidSignature, (hash, signature));
        bool success;
        uint256 returnSize;
        bytes32 returnValue;
        assembly ("memory-safe") {
            success := staticcall(ERC1271_GAS_LIMIT, signer, add(data, 0x20), mload(data), 0x00, 0x20)
            returnSize := returndatasize()
            returnValue := mload(0x00)
        }
        return success && returnSize >= 0x20 && returnValue == bytes32(IERC1271.isValidSignature.selector);
    }

    /// @dev Puts a limit in force; the current window (its start and what it has spent) carries over.
    function _setSpendLimit(address buyer, SpendLimit storage s, uint128 limit, uint64 period) private {
        s.limit = limit;
        s.period = period;
        emit SpendLimitSet(buyer, limit, period);
    }

    function _windowExpired(SpendLimit storage s) private view returns (bool) {
        return block.timestamp >= uint256(s.windowStart) + s.period;
    }

    function _pullDeposit(address buyer, uint256 amount) private {
        if (amount == 0) revert ZeroAmount();
        token.safeTransferFrom(msg.sender, address(this), amount);
        _credit(buyer, msg.sender, amount);
    }

    function _credit(address buyer, address from, uint256 amount) private {
        uint256 balance = balanceOf[buyer] + amount;
        balanceOf[buyer] = balance;
        totalLiabilities += amount;
        emit Deposited(buyer, from, amount, balance);
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert ZeroAddress();
        treasury = treasury_;
        emit TreasuryChanged(treasury_);
    }

    function _revertWith(bytes memory failure) private pure {
        assembly ("memory-safe") {
            revert(add(failure, 32), mload(failure))
        }
    }
}
