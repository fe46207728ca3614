// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
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
/// on chain. Pausing stops debits, never withdrawals, spend limits or claims. The admin role moves only in two steps
/// with a delay (AccessControlDefaultAdminRules), longer than WITHDRAWAL_DELAY by default, so buyers see a new admin
/// coming in time to leave.
contract PaymentEscrow is IPaymentEscrow, AccessControlDefaultAdminRules, Pausable, ReentrancyGuard, EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant DEBIT_AUTHORIZATION_TYPEHASH = keccak256(
        "DebitAuthorization(address buyer,bytes32 resourceId,uint256 maxAmount,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice First four bytes of an `exact` nonce bound to a resource (`bytes4(keccak256("ServiceEscrow.exact.resource"))`);
    /// the next twelve are then the first twelve bytes of the only resource id it may pay.
    bytes4 public constant EXACT_NONCE_TAG = bytes4(keccak256("ServiceEscrow.exact.resource"));
    /// @dev A bitmap nonce is `BITMAP_NONCE_TAG` (four bytes), 24 zero bytes, then a uint32 index n: it spends bit
    /// n % 96 of the buyer's nonce word n / 96 instead of a storage slot of its own. Any other nonce (32 random bytes,
    /// which take this form with probability 2^-224) is spent in a slot of its own, as before. docs/protocol.md.
    bytes4 private constant BITMAP_NONCE_TAG = bytes4(keccak256("ServiceEscrow.bitmapNonce"));
    /// @dev A nonce shifted down by 32 bits equals this exactly when it is a bitmap nonce.
    uint256 private constant BITMAP_NONCE_HEAD = uint256(uint32(BITMAP_NONCE_TAG)) << 192;
    /// @dev Nonces per word of the bitmap: the low 96 bits of a buyer's account word.
    uint256 private constant WORD_BITS = 96;
    uint256 private constant BITS_MASK = (1 << 96) - 1;
    /// @dev The index of the account's current nonce word: 31 bits from bit 96.
    uint256 private constant WORD_SHIFT = 96;
    uint256 private constant WORD_MASK = (1 << 31) - 1;
    /// @dev Set in an account word while the buyer has a spend limit in force (so a debit reads the limit only then).
    uint256 private constant LIMITED = 1 << 127;
    /// @dev The balance is the account word's high 128 bits.
    uint256 private constant BALANCE_SHIFT = 128;
    /// @dev One entry of `BatchDebited.debits`: buyer (20 bytes), nonce (32), amount (16).
    uint256 private constant ENTRY_SIZE = 68;
    /// @dev The head of `BatchDebited`'s data before the entries: feeBps, the offset of `debits`, its length.
    uint256 private constant LOG_HEAD = 0x60;
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
    /// processed; the run of consecutive items for one resource: its payment target, the creator shares not yet
    /// credited and its `BatchDebited` entries so far (in memory from `logStart`: the three head words, then the
    /// entries up to `logEnd`); and the run of consecutive items for one buyer: the buyer's account word and spend
    /// limit as they will be stored when the run ends (`dirty`: something changed).
    struct Batch {
        uint16 fee;
        uint256 fees;
        uint256 settled;
        Item item;
        bytes32 resourceId;
        address payout;
        bool active;
        uint256 owed;
        uint256 logStart;
        uint256 logEnd;
        address buyer;
        uint256 account;
        bool dirty;
        uint256 limit;
        uint256 period;
        uint256 windowStart;
        uint256 spent;
    }

    IERC20 public immutable token;
    IResourceRegistry public immutable registry;

    address public treasury;
    uint16 public feeBps;
    uint64 public lastFeeChangeAt;
    /// @notice Sum of all buyer balances and unclaimed earnings: what the escrow owes.
    uint256 public totalLiabilities;

    /// @dev A buyer's account in one word, so that a debit reads and writes one slot of the buyer's: the balance
    /// (high 128 bits), `LIMITED` (bit 127), the index of the current nonce word (31 bits from bit 96) and its bits
    /// (low 96). Read through `balanceOf` and `nonceUsed`.
    mapping(address buyer => uint256) private accountOf;
    mapping(address account => uint256) public earningsOf;
    /// @dev Nonces that are not bitmap nonces, one slot each (and every `exact` nonce).
    mapping(address buyer => mapping(bytes32 nonce => bool)) private randomNonceUsed;
    /// @dev The bits of a buyer's nonce words other than the current one. A word is written here when a later word
    /// becomes current (which happens only in ascending order, so a word above the current one is never here yet).
    mapping(address buyer => mapping(uint256 word => uint256 bits)) private nonceWordOf;
    mapping(address buyer => PendingWithdrawal) public pendingWithdrawal;
    mapping(address buyer => SpendLimit) public spendLimitOf;
    /// @dev Read through `buyerState` (pendingSpendLimit, pendingPeriod, pendingEffectiveAt).
    mapping(address buyer => PendingSpendLimit) private pendingSpendLimitOf;

    /// @param token_ The stablecoin (EIP-3009).
    /// @param registry_ The resource registry that names each resource's payout and status.
    /// @param treasury_ Receives the fee share.
    /// @param feeBps_ The initial fee, below 5000.
    /// @param admin Holds DEFAULT_ADMIN_ROLE (the only one to hold it) and PAUSER_ROLE.
    /// @param adminDelay Seconds a transfer of DEFAULT_ADMIN_ROLE waits between its two steps.
    constructor(
        IERC20 token_,
        IResourceRegistry registry_,
        address treasury_,
        uint16 feeBps_,
        address admin,
        uint48 adminDelay
    ) AccessControlDefaultAdminRules(adminDelay, admin) EIP712("ServiceEscrow", "1") {
        if (address(token_) == address(0) || address(registry_) == address(0)) revert ZeroAddress();
        if (feeBps_ >= FEE_BPS_LIMIT) revert FeeTooHigh(feeBps_);
        token = token_;
        registry = registry_;
        feeBps = feeBps_;
        lastFeeChangeAt = uint64(block.timestamp);
        _setTreasury(treasury_);
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
        uint256 balance = accountOf[msg.sender] >> BALANCE_SHIFT;
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
        uint256 balance = accountOf[msg.sender] >> BALANCE_SHIFT;
        amount = pending.amount < balance ? pending.amount : balance;
        delete pendingWithdrawal[msg.sender];
        if (amount == 0) revert ZeroAmount();
        // Checks-effects-interactions: the balance and liabilities drop before the token is called. amount <= balance.
        accountOf[msg.sender] -= amount << BALANCE_SHIFT;
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
        Batch memory b = _openBatch(false, 1);
        _load(b.item, item);
        bytes memory failure = _batchItem(b, item.signature, true);
        if (failure.length != 0) _revertWith(failure);
        _closeBatch(b);
    }

    /// @inheritdoc IPaymentEscrow
    function debitBatch(Debit[] calldata items) external onlyRole(RELAYER_ROLE) whenNotPaused returns (uint256) {
        Batch memory b = _openBatch(false, items.length);
        for (uint256 i; i < items.length; ++i) {
            _load(b.item, items[i]);
            _skipIfFailed(b, _batchItem(b, items[i].signature, i == 0));
        }
        return _closeBatch(b);
    }

    /// @inheritdoc IPaymentEscrow
    function debitBatchCompact(
        CompactDebit[] calldata items
    ) external onlyRole(RELAYER_ROLE) whenNotPaused returns (uint256) {
        Batch memory b = _openBatch(true, items.length);
        for (uint256 i; i < items.length; ++i) {
            _loadCompact(b.item, items[i]);
            // no signature bytes: `packed` rebuilds them
            _skipIfFailed(b, _batchItem(b, msg.data[0:0], i == 0));
        }
        return _closeBatch(b);
    }

    /// @inheritdoc IPaymentEscrow
    function settleExact(ExactPayment calldata p) external onlyRole(RELAYER_ROLE) whenNotPaused nonReentrant {
        uint256 account = accountOf[p.from];
        (bool spent, bytes32 nonceSlot) = _nonceSpent(p.from, account, p.nonce);
        if (spent) revert NonceAlreadyUsed(p.from, p.nonce);
        if (p.value == 0) revert ZeroAmount();
        // The log carries amounts in 128 bits, as balances are.
        if (p.value > LOW_128) revert AmountTooLarge(p.value);
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
        uint256 spentAccount = _spendNonce(p.from, account, p.nonce, nonceSlot);
        if (spentAccount != account) accountOf[p.from] = spentAccount;
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
        emit BatchDebited(p.resourceId, feeBps, abi.encodePacked(p.from, p.nonce, uint128(p.value)));
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
        uint256 account = accountOf[buyer];
        (bool nonceSpent, ) = _nonceSpent(buyer, account, nonce);
        state = BuyerState({
            balance: account >> BALANCE_SHIFT,
            pendingWithdrawal: pendingWithdrawal[buyer].amount,
            spendLimit: s.limit,
            period: s.period,
            windowStart: s.windowStart,
            spentInWindow: s.spent,
            pendingSpendLimit: pending.limit,
            pendingPeriod: pending.period,
            pendingEffectiveAt: pending.effectiveAt,
            nonceSpent: nonceSpent,
            atBlock: block.number
        });
    }

    /// @inheritdoc IPaymentEscrow
    function balanceOf(address buyer) external view returns (uint256) {
        return accountOf[buyer] >> BALANCE_SHIFT;
    }

    /// @inheritdoc IPaymentEscrow
    function nonceUsed(address buyer, bytes32 nonce) external view returns (bool spent) {
        (spent, ) = _nonceSpent(buyer, accountOf[buyer], nonce);
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

    /// @dev A batch of `items` items; `packed`: they come as `CompactDebit`s. The `BatchDebited` data of its runs is
    /// built in memory reserved here: each run takes its head and its entries, and the last leaves a word of padding.
    function _openBatch(bool packed, uint256 items) private view returns (Batch memory b) {
        b.fee = feeBps;
        b.item = _newItem();
        b.item.packed = packed;
        uint256 logStart;
        assembly ("memory-safe") {
            logStart := mload(0x40)
            mstore(0x40, add(logStart, add(mul(items, add(LOG_HEAD, ENTRY_SIZE)), 0x20)))
        }
        b.logStart = logStart;
        b.logEnd = logStart + LOG_HEAD;
    }

    /// @dev Debits the batch's current item in memory, or returns the ABI-encoded custom error it fails with (and
    /// changes nothing). Consecutive items for one resource form a run: the registry is asked once per run, the run's
    /// creator shares are credited to its payout once and its debits are logged in one `BatchDebited`, when the run
    /// ends. Consecutive items of one buyer form a run too: the buyer's account word (balance and current nonce word)
    /// and spend limit are read when it starts and written when it ends. Nothing in a batch can change the registry
    /// (it is only read), a payout's earnings (only credited here) or a buyer's state (a signature check is a static
    /// call), so the result equals debiting item by item.
    function _batchItem(Batch memory b, bytes calldata signature, bool first) private returns (bytes memory) {
        Item memory d = b.item;
        if (first || d.resourceId != b.resourceId) {
            _endResourceRun(b);
            b.resourceId = d.resourceId;
            (b.payout, b.active) = registry.paymentTarget(d.resourceId);
        }
        if (first || d.buyer != b.buyer) {
            _endBuyerRun(b);
            _startBuyerRun(b, d.buyer);
        }
        address buyer = d.buyer;
        uint256 amount = d.amount;
        bytes32 nonce = d.nonce;
        if (block.timestamp < d.validAfter) {
            return abi.encodeWithSelector(AuthorizationNotYetValid.selector, d.validAfter, block.timestamp);
        }
        if (block.timestamp >= d.validBefore) {
            return abi.encodeWithSelector(AuthorizationExpired.selector, d.validBefore, block.timestamp);
        }
        uint256 account = b.account;
        (bool nonceSpent, bytes32 nonceSlot) = _nonceSpent(buyer, account, nonce);
        if (nonceSpent) return abi.encodeWithSelector(NonceAlreadyUsed.selector, buyer, nonce);
        if (amount == 0) return abi.encodeWithSelector(ZeroAmount.selector);
        if (amount > d.maxAmount) return abi.encodeWithSelector(AmountExceedsMax.selector, amount, d.maxAmount);
        if (!b.active) return abi.encodeWithSelector(ResourceInactive.selector, d.resourceId);
        if (!_isValidSignature(buyer, _digest(d), d.v, d.r, d.s, d.packed, signature)) {
            return abi.encodeWithSelector(InvalidSignature.selector, buyer);
        }
        uint256 balance = account >> BALANCE_SHIFT;
        if (balance < amount) return abi.encodeWithSelector(InsufficientEscrow.selector, buyer, balance, amount);
        if (b.limit != 0) {
            bytes memory overLimit = _countAgainstLimit(b, buyer, amount);
            if (overLimit.length != 0) return overLimit;
        }
        // balance >= amount was checked above.
        b.account = _spendNonce(buyer, account, nonce, nonceSlot) - (amount << BALANCE_SHIFT);
        b.dirty = true;
        uint256 treasuryAmount = (amount * b.fee) / BPS;
        // treasuryAmount <= amount, and the sums are bounded by the buyers' balances, far below 2^256.
        unchecked {
            b.owed += amount - treasuryAmount;
            b.fees += treasuryAmount;
            ++b.settled;
        }
        uint256 entry = b.logEnd;
        assembly ("memory-safe") {
            mstore(entry, shl(96, buyer))
            mstore(add(entry, 20), nonce)
            mstore(add(entry, 52), shl(128, amount))
        }
        b.logEnd = entry + ENTRY_SIZE;
        bytes memory none; // the empty bytes at 0x60: success allocates nothing
        return none;
    }

    /// @dev The batch's last check of an item of a buyer with a spend limit: its amount within the limit, counting the
    /// run's items before it; when it is, counts it (in memory, written when the run ends). Returns the failure, or
    /// nothing (empty bytes, not allocated).
    function _countAgainstLimit(
        Batch memory b,
        address buyer,
        uint256 amount
    ) private view returns (bytes memory failure) {
        uint256 limit = b.limit;
        bool windowExpired = block.timestamp >= b.windowStart + b.period;
        uint256 spentInWindow = windowExpired ? 0 : b.spent;
        if (spentInWindow + amount > limit) {
            return abi.encodeWithSelector(SpendLimitExceeded.selector, buyer, limit, spentInWindow, amount);
        }
        if (windowExpired) {
            b.windowStart = block.timestamp;
            b.spent = amount;
        } else {
            b.spent += amount;
        }
    }

    /// @dev Reports a failed batch item with `DebitSkipped`.
    function _skipIfFailed(Batch memory b, bytes memory failure) private {
        if (failure.length != 0) emit DebitSkipped(b.item.resourceId, b.item.buyer, b.item.nonce, failure);
    }

    function _closeBatch(Batch memory b) private returns (uint256 settled) {
        _endResourceRun(b);
        _endBuyerRun(b);
        if (b.fees != 0) earningsOf[treasury] += b.fees;
        return b.settled;
    }

    /// @dev Credits the current resource run's creator shares to its payout and logs its debits in one
    /// `BatchDebited`; the next run's data starts after them.
    function _endResourceRun(Batch memory b) private {
        if (b.owed != 0) {
            earningsOf[b.payout] += b.owed;
            b.owed = 0;
        }
        uint256 start = b.logStart;
        uint256 end = b.logEnd;
        uint256 length = end - start - LOG_HEAD;
        if (length == 0) return;
        bytes32 topic = BatchDebited.selector;
        bytes32 resourceId = b.resourceId;
        uint256 fee = b.fee;
        uint256 padded = (length + 31) & ~uint256(31);
        assembly ("memory-safe") {
            mstore(start, fee)
            mstore(add(start, 0x20), 0x40)
            mstore(add(start, 0x40), length)
            mstore(end, 0) // the padding after the last entry (the entries are four-byte aligned)
            log2(start, add(LOG_HEAD, padded), topic, resourceId)
        }
        b.logStart = end;
        b.logEnd = end + LOG_HEAD;
    }

    /// @dev Reads the buyer's account word and, when one is in force, spend limit.
    function _startBuyerRun(Batch memory b, address buyer) private view {
        uint256 account = accountOf[buyer];
        b.buyer = buyer;
        b.account = account;
        b.dirty = false;
        b.limit = 0;
        if (account & LIMITED != 0) {
            SpendLimit storage s = spendLimitOf[buyer];
            b.limit = s.limit;
            b.period = s.period;
            b.windowStart = s.windowStart;
            b.spent = s.spent;
        }
    }

    /// @dev Writes what the current buyer run changed: the account word and the spend limit's window.
    function _endBuyerRun(Batch memory b) private {
        if (!b.dirty) return;
        address buyer = b.buyer;
        accountOf[buyer] = b.account;
        if (b.limit != 0) {
            SpendLimit storage s = spendLimitOf[buyer];
            // windowStart is a timestamp far below 2^64.
            s.windowStart = uint64(b.windowStart);
            s.spent = b.spent;
        }
        b.dirty = false;
    }

    /// @dev Whether `nonce` is spent for `buyer`, whose account word is `account`; for a nonce that is not a bitmap
    /// nonce also where it is recorded (`randomNonceUsed[buyer][nonce]`, hashed once for its read and its write).
    function _nonceSpent(
        address buyer,
        uint256 account,
        bytes32 nonce
    ) private view returns (bool spent, bytes32 nonceSlot) {
        if (uint256(nonce) >> 32 != BITMAP_NONCE_HEAD) {
            nonceSlot = _nonceSlot(buyer, nonce);
            assembly ("memory-safe") {
                spent := sload(nonceSlot)
            }
            return (spent, nonceSlot);
        }
        (uint256 word, uint256 bit) = _wordAndBit(nonce);
        uint256 current = (account >> WORD_SHIFT) & WORD_MASK;
        // A word above the current one has never been written (words become current in ascending order).
        if (word > current) return (false, 0);
        uint256 bits = word == current ? account : nonceWordOf[buyer][word];
        return ((bits >> bit) & 1 != 0, 0);
    }

    /// @dev Spends `nonce` (which `_nonceSpent` found unspent) and returns the buyer's account word after it. A bitmap
    /// nonce of the current word sets its bit in the account word; one of an earlier word, in `nonceWordOf`; one of a
    /// later word makes that word current, and the bits of the word it replaces go to `nonceWordOf`.
    function _spendNonce(address buyer, uint256 account, bytes32 nonce, bytes32 nonceSlot) private returns (uint256) {
        if (nonceSlot != 0) {
            assembly ("memory-safe") {
                sstore(nonceSlot, 1)
            }
            return account;
        }
        (uint256 word, uint256 bit) = _wordAndBit(nonce);
        uint256 current = (account >> WORD_SHIFT) & WORD_MASK;
        if (word == current) return account | (1 << bit);
        if (word < current) {
            nonceWordOf[buyer][word] |= 1 << bit;
            return account;
        }
        uint256 bits = account & BITS_MASK;
        if (bits != 0) nonceWordOf[buyer][current] = bits;
        return (account & ~(BITS_MASK | (WORD_MASK << WORD_SHIFT))) | (word << WORD_SHIFT) | (1 << bit);
    }

    /// @dev The word and bit a bitmap nonce's index (its low 32 bits) names.
    function _wordAndBit(bytes32 nonce) private pure returns (uint256 word, uint256 bit) {
        uint256 index = uint32(uint256(nonce));
        return (index / WORD_BITS, index % WORD_BITS);
    }

    /// @dev Where `randomNonceUsed[buyer][nonce]` is stored (Solidity's layout of nested mappings), so that a debit
    /// reads and writes the slot without hashing it twice, and writes it without first reading it again. Never zero.
    function _nonceSlot(address buyer, bytes32 nonce) private pure returns (bytes32 slot) {
        assembly ("memory-safe") {
            mstore(0x00, buyer)
            mstore(0x20, randomNonceUsed.slot)
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
    /// the 65 bytes r, s, v that a compact item was packed from. A check that fails without having had its
    /// ERC1271_GAS_LIMIT reverts SignatureCheckOutOfGas: the transaction was short of gas, the signature may be good.
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
        if (success && returnSize >= 0x20 && returnValue == bytes32(IERC1271.isValidSignature.selector)) return true;
        // With G gas at the call the wallet gets min(ERC1271_GAS_LIMIT, G - G/64). Given less than the limit, it had
        // G - G/64 < ERC1271_GAS_LIMIT, so once it has used what it got at most G/64 < ERC1271_GAS_LIMIT/63 is left;
        // given the limit, G - ERC1271_GAS_LIMIT >= ERC1271_GAS_LIMIT/63 is left, less the few opcodes since the call
        // (which at worst blames a wallet that had its limit on the gas: a retry with more gas then skips it).
        if (gasleft() < ERC1271_GAS_LIMIT / 63) revert SignatureCheckOutOfGas(signer);
        return false;
    }

    /// @dev Puts a limit in force; the current window (its start and what it has spent) carries over. The account's
    /// `LIMITED` flag says whether there is one, so that a debit of a buyer without a limit does not read it.
    function _setSpendLimit(address buyer, SpendLimit storage s, uint128 limit, uint64 period) private {
        s.limit = limit;
        s.period = period;
        uint256 account = accountOf[buyer];
        uint256 flagged = limit == 0 ? account & ~LIMITED : account | LIMITED;
        if (flagged != account) accountOf[buyer] = flagged;
        emit SpendLimitSet(buyer, limit, period);
    }

    function _pullDeposit(address buyer, uint256 amount) private {
        if (amount == 0) revert ZeroAmount();
        token.safeTransferFrom(msg.sender, address(this), amount);
        _credit(buyer, msg.sender, amount);
    }

    function _credit(address buyer, address from, uint256 amount) private {
        uint256 account = accountOf[buyer];
        uint256 balance = (account >> BALANCE_SHIFT) + amount;
        if (balance > LOW_128) revert AmountTooLarge(balance);
        accountOf[buyer] = (account & LOW_128) | (balance << BALANCE_SHIFT);
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
