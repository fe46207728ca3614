// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";
import {IPaymentEscrow} from "./interfaces/IPaymentEscrow.sol";
import {IResourceRegistry} from "./interfaces/IResourceRegistry.sol";

/// @title Payment escrow for per-call debits
/// @notice Buyers deposit the stablecoin; the relayer debits a call's price under the buyer's signed
/// `DebitAuthorization` (EIP-712 domain "ServiceEscrow"/"1") and the amount is split in the same step:
/// treasury = floor(amount * feeBps / 10000), creator = the rest, credited to the resource's payout.
/// Shares are credited, then claimed (pull), so no debit ever calls out to a receiver.
/// Withdrawals take `WITHDRAWAL_DELAY`, longer than any reservation the facilitator holds, so funds
/// cannot leave from under a live reservation. Pausing stops debits, never withdrawals or claims.
contract PaymentEscrow is IPaymentEscrow, AccessControl, Pausable, ReentrancyGuard, EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant RELAYER_ROLE = keccak256("RELAYER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant DEBIT_AUTHORIZATION_TYPEHASH = keccak256(
        "DebitAuthorization(address buyer,bytes32 resourceId,uint256 maxAmount,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @inheritdoc IPaymentEscrow
    uint256 public constant WITHDRAWAL_DELAY = 1 days;
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

    /// @dev A batch's consecutive items for one resource: its payment target and the creator shares not yet credited.
    struct ResourceRun {
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

    /// @param token_ The stablecoin (EIP-3009).
    /// @param registry_ The resource registry that names each resource's payout and status.
    /// @param treasury_ Receives the fee share.
    /// @param feeBps_ The initial fee, below 5000.
    /// @param admin Holds DEFAULT_ADMIN_ROLE and PAUSER_ROLE.
    constructor(IERC20 token_, IResourceRegistry registry_, address treasury_, uint16 feeBps_, address admin)
        EIP712("ServiceEscrow", "1")
    {
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
            from, address(this), value, validAfter, validBefore, nonce, signature
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
        SpendLimit storage s = spendLimitOf[msg.sender];
        s.limit = uint128(limit > type(uint128).max ? type(uint128).max : limit);
        s.period = uint64(period > type(uint64).max ? type(uint64).max : period);
        emit SpendLimitSet(msg.sender, s.limit, s.period);
    }

    // ---------------------------------------------------------------- relayer

    /// @inheritdoc IPaymentEscrow
    function debit(Debit calldata item) external onlyRole(RELAYER_ROLE) whenNotPaused {
        (address payout, bool active) = registry.paymentTarget(item.authorization.resourceId);
        (bytes memory failure, uint256 creatorAmount, uint256 treasuryAmount) = _debit(item, payout, active, feeBps);
        if (failure.length != 0) _revertWith(failure);
        earningsOf[payout] += creatorAmount;
        earningsOf[treasury] += treasuryAmount;
    }

    /// @inheritdoc IPaymentEscrow
    /// @dev Consecutive items for one resource form a run: the registry is asked once per run and the run's creator
    /// shares are credited to its payout once, when the run ends. Nothing in the loop can change the registry (it is
    /// only read) or a payout's earnings (only credited here), so the result equals crediting item by item.
    function debitBatch(Debit[] calldata items) external onlyRole(RELAYER_ROLE) whenNotPaused returns (uint256 settled) {
        uint16 fee = feeBps;
        uint256 fees;
        ResourceRun memory run;
        for (uint256 i; i < items.length; ++i) {
            Debit calldata item = items[i];
            DebitAuthorization calldata a = item.authorization;
            if (i == 0 || a.resourceId != run.resourceId) {
                _endRun(run);
                run.resourceId = a.resourceId;
                (run.payout, run.active) = registry.paymentTarget(a.resourceId);
            }
            (bytes memory failure, uint256 creatorAmount, uint256 treasuryAmount) =
                _debit(item, run.payout, run.active, fee);
            if (failure.length != 0) {
                emit DebitSkipped(a.resourceId, a.buyer, a.nonce, failure);
                continue;
            }
            run.owed += creatorAmount;
            fees += treasuryAmount;
            ++settled;
        }
        _endRun(run);
        if (fees != 0) earningsOf[treasury] += fees;
    }

    /// @inheritdoc IPaymentEscrow
    function settleExact(ExactPayment calldata p) external onlyRole(RELAYER_ROLE) whenNotPaused nonReentrant {
        if (nonceUsed[p.from][p.nonce]) revert NonceAlreadyUsed(p.from, p.nonce);
        if (p.value == 0) revert ZeroAmount();
        (address payout, bool active) = registry.paymentTarget(p.resourceId);
        if (!active) revert ResourceInactive(p.resourceId);
        nonceUsed[p.from][p.nonce] = true;

        if (IERC3009(address(token)).authorizationState(p.from, p.nonce)) {
            // Front-run: someone already submitted the buyer's transfer to this escrow. Count it only if the
            // buyer signed exactly this transfer and its value sits here unaccounted for; nonceUsed
            // above makes sure the same funds are never counted twice.
            if (!_isValidSignature(p.from, _hashExactTransfer(p), p.signature)) {
                revert InvalidSignature(p.from);
            }
            uint256 unaccounted = token.balanceOf(address(this)) - totalLiabilities;
            if (unaccounted < p.value) revert UnaccountedFundsMissing(unaccounted, p.value);
        } else {
            IERC3009(address(token)).transferWithAuthorization(
                p.from, address(this), p.value, p.validAfter, p.validBefore, p.nonce, p.signature
            );
        }
        totalLiabilities += p.value;
        uint256 treasuryAmount = p.value * feeBps / BPS;
        uint256 creatorAmount = p.value - treasuryAmount;
        earningsOf[payout] += creatorAmount;
        earningsOf[treasury] += treasuryAmount;
        emit Debited(p.resourceId, p.from, p.nonce, p.value, payout, creatorAmount, treasuryAmount);
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
        state = BuyerState({
            balance: balanceOf[buyer],
            pendingWithdrawal: pendingWithdrawal[buyer].amount,
            spendLimit: s.limit,
            period: s.period,
            windowStart: s.windowStart,
            spentInWindow: s.spent,
            nonceSpent: nonceUsed[buyer][nonce],
            atBlock: block.number
        });
    }

    /// @inheritdoc IPaymentEscrow
    function hashDebitAuthorization(DebitAuthorization calldata a) public view returns (bytes32) {
        bytes32 structHash;
        bytes32 typeHash = DEBIT_AUTHORIZATION_TYPEHASH;
        // keccak256(abi.encode(typeHash, a.buyer, ..., a.nonce)) without allocating: the six fields are static words,
        // laid out in calldata exactly as abi.encode lays them out, so they are copied past the free memory pointer.
        // An address word with dirty high bits hashes differently from the address the buyer signed, so no signature
        // matches it (and `_debit` reads `a.buyer` first, which reverts on such a word).
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, typeHash)
            calldatacopy(add(m, 0x20), a, 0xc0)
            structHash := keccak256(m, 0xe0)
        }
        return _hashTypedDataV4(structHash);
    }

    /// @notice The EIP-712 domain separator buyers sign under.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ---------------------------------------------------------------- internals

    /// @dev One debit: every check in one place, then its effects. A failing check returns the ABI-encoded custom
    /// error (and changes nothing), so that `debit` reverts with it and `debitBatch` skips the item and reports it.
    /// `payout` and `active` are the registry's answer for the item's resource. Returns the creator's and the
    /// treasury's shares for the caller to credit.
    function _debit(Debit calldata item, address payout, bool active, uint16 fee)
        private
        returns (bytes memory failure, uint256 creatorAmount, uint256 treasuryAmount)
    {
        DebitAuthorization calldata a = item.authorization;
        address buyer = a.buyer;
        uint256 amount = item.amount;
        if (block.timestamp < a.validAfter) {
            return (abi.encodeWithSelector(AuthorizationNotYetValid.selector, a.validAfter, block.timestamp), 0, 0);
        }
        if (block.timestamp >= a.validBefore) {
            return (abi.encodeWithSelector(AuthorizationExpired.selector, a.validBefore, block.timestamp), 0, 0);
        }
        if (nonceUsed[buyer][a.nonce]) return (abi.encodeWithSelector(NonceAlreadyUsed.selector, buyer, a.nonce), 0, 0);
        if (amount == 0) return (abi.encodeWithSelector(ZeroAmount.selector), 0, 0);
        if (amount > a.maxAmount) {
            return (abi.encodeWithSelector(AmountExceedsMax.selector, amount, a.maxAmount), 0, 0);
        }
        if (!active) return (abi.encodeWithSelector(ResourceInactive.selector, a.resourceId), 0, 0);
        if (!_isValidSignature(buyer, hashDebitAuthorization(a), item.signature)) {
            return (abi.encodeWithSelector(InvalidSignature.selector, buyer), 0, 0);
        }
        uint256 balance = balanceOf[buyer];
        if (balance < amount) return (abi.encodeWithSelector(InsufficientEscrow.selector, buyer, balance, amount), 0, 0);
        SpendLimit storage s = spendLimitOf[buyer];
        uint256 limit = s.limit;
        bool windowExpired;
        if (limit != 0) {
            windowExpired = _windowExpired(s);
            uint256 spent = windowExpired ? 0 : s.spent;
            if (spent + amount > limit) {
                return (abi.encodeWithSelector(SpendLimitExceeded.selector, buyer, limit, spent, amount), 0, 0);
            }
        }

        nonceUsed[buyer][a.nonce] = true;
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
        treasuryAmount = amount * fee / BPS;
        creatorAmount = amount - treasuryAmount;
        emit Debited(a.resourceId, buyer, a.nonce, amount, payout, creatorAmount, treasuryAmount);
    }

    /// @dev A low-s ECDSA signature by the signer's key is accepted first: that covers an account that delegates to
    /// code (EIP-7702), whose key still signs for it, and it is the rule the facilitator checks off chain. Otherwise,
    /// for an account with code, ERC-1271 with at most ERC1271_GAS_LIMIT gas and only the first 32 bytes of its
    /// answer copied, so that a failing wallet costs a bounded amount and is skipped in a batch.
    function _isValidSignature(address signer, bytes32 hash, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError failure,) = ECDSA.tryRecoverCalldata(hash, signature);
        if (failure == ECDSA.RecoverError.NoError && recovered == signer) return true;
        if (signer.code.length == 0) return false;
        bytes memory data = abi.encodeCall(IERC1271.isValidSignature, (hash, signature));
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

    /// @dev Credits the run's creator shares to its payout.
    function _endRun(ResourceRun memory run) private {
        if (run.owed != 0) {
            earningsOf[run.payout] += run.owed;
            run.owed = 0;
        }
    }

    function _windowExpired(SpendLimit storage s) private view returns (bool) {
        return block.timestamp >= uint256(s.windowStart) + s.period;
    }

    function _hashExactTransfer(ExactPayment calldata p) private view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                TRANSFER_WITH_AUTHORIZATION_TYPEHASH, p.from, address(this), p.value, p.validAfter, p.validBefore, p.nonce
            )
        );
        return MessageHashUtils.toTypedDataHash(IERC20Permit(address(token)).DOMAIN_SEPARATOR(), structHash);
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
