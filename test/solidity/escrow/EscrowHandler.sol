// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../../contracts/interfaces/IPaymentEscrow.sol";
import {Signatures} from "../Signatures.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {EscrowActors} from "./EscrowActors.sol";
import {IEscrow} from "./IEscrow.sol";

/// @notice What the invariant fuzzer calls on the escrow: every way in (deposit, depositFor,
/// depositWithAuthorization), every way to pay (debit, debitBatch, debitBatchCompact, settleExact, a front-run
/// `exact` transfer), every way out (withdrawal, claim, surplus recovery), spend limits, pause, fee, treasury,
/// resources going inactive or changing payout, and time. Each action keeps ghost variables from what the chain
/// reports, and counts every outcome that breaks a property; EscrowInvariants.t.sol checks them (E1..E10,
/// docs/audit/invariants.md). No action reverts: the run fails on a revert (`failOnRevert`), so a broken handler
/// cannot pass unnoticed.
contract EscrowHandler is EscrowActors {
    error Simulated(bytes32 digest);

    /// @notice A buyer's spend limit in force, and its current window, as the model keeps it.
    struct Limit {
        uint256 limit;
        uint256 period;
        uint256 windowStart;
        uint256 spent;
    }

    /// @notice A requested change of a spend limit (`effectiveAt` 0: none), or a requested withdrawal (`at`: when it
    /// unlocks).
    struct Pending {
        uint256 amount;
        uint256 period;
        uint256 at;
    }

    enum Path {
        OneByOne,
        Batch,
        Compact
    }

    uint256 private constant DAY = 1 days;

    // Ghost variables: what the chain reported, summed.
    mapping(address buyer => uint256) public deposited;
    mapping(address buyer => uint256) public withdrawn;
    mapping(address buyer => uint256) public debited;
    mapping(address account => uint256) public earned;
    mapping(address account => uint256) public claimed;
    mapping(address treasury => uint256) public feesEarned;
    mapping(address buyer => mapping(bytes32 nonce => uint256)) public timesDebited;
    mapping(address buyer => mapping(bytes32 nonce => bool)) public nonceSpent;
    /// @notice Tokens that reached the escrow outside a deposit or settlement, less what was recovered.
    uint256 public surplus;

    // The model of the state the escrow should be in.
    uint16 public fee = FEE_BPS;
    uint256 public feeChangedAt = block.timestamp;
    address public currentTreasury = treasury;
    bool public paused;
    mapping(bytes32 resourceId => address) public payoutOf;
    mapping(bytes32 resourceId => bool) public inactive;
    mapping(address buyer => Limit) private _limitOf;
    mapping(address buyer => Pending) private _pendingLimitOf;
    mapping(address buyer => Pending) private _pendingWithdrawalOf;

    // Outcomes that break a property, each counted where it happened.
    uint256 public doubleDebits; // E4
    uint256 public feeMismatches; // E6
    uint256 public claimMismatches; // E6
    uint256 public earlyWithdrawals; // E7
    uint256 public wrongWithdrawals; // E7
    uint256 public limitBreaches; // E8
    uint256 public limitsWronglyApplied; // E8
    uint256 public debitsWhilePaused; // E9
    uint256 public exitsRefused; // E9
    uint256 public batchesUnlikeOneByOne; // E10
    uint256 public compactUnlikeFull; // E10
    uint256 public unmatchedLogs; // E10
    uint256 public brokenDebits; // E11
    uint256 public strangerActions; // E12
    uint256 public feeRulesBroken; // E12

    // How often each path succeeded, so that a run shows what it reached.
    uint256 public balanceDebits;
    uint256 public exactSettlements;
    uint256 public withdrawals;

    uint256 private _authorizations;

    constructor() {
        for (uint256 i; i < RESOURCES; ++i) {
            payoutOf[resources[i]] = payouts[i];
        }
    }

    // ------------------------------------------------------------ buyers

    /// @notice Deposits through `deposit`, `depositFor` (paid by a funder) or `depositWithAuthorization` (an EIP-3009
    /// ReceiveWithAuthorization the buyer signed); one in 64 asks for an amount that would take a balance past
    /// 2^128, which the escrow refuses.
    function deposit(uint256 buyerSeed, uint256 amount, uint256 how) external {
        address buyer = buyers[buyerSeed % BUYERS];
        amount = how % 64 == 63 ? 1 << 128 : bound(amount, 1, 1_000_000_000);
        address payer = how % 3 == 1 ? _named("funder") : buyer;
        mint(payer, amount);
        bool ok;
        if (how % 3 == 2) {
            bytes32 nonce = keccak256(abi.encode("deposit", ++_authorizations));
            uint256 validBefore = block.timestamp + 1 hours;
            bytes memory signature = _signAuthorization(
                buyer,
                keyOf[buyer],
                Signatures.RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
                amount,
                validBefore,
                nonce
            );
            try escrowContract.depositWithAuthorization(buyer, amount, 0, validBefore, nonce, signature) {
                ok = true;
            } catch {}
        } else {
            vm.startPrank(payer);
            token.approve(escrow, amount);
            if (how % 3 == 0) {
                try escrowContract.deposit(amount) {
                    ok = true;
                } catch {}
            } else {
                try escrowContract.depositFor(buyer, amount) {
                    ok = true;
                } catch {}
            }
            vm.stopPrank();
        }
        if (ok) deposited[buyer] += amount;
    }

    /// @notice Asks to withdraw up to a quarter more than the model's balance.
    function requestWithdrawal(uint256 buyerSeed, uint256 amount) external {
        address buyer = buyers[buyerSeed % BUYERS];
        uint256 balance = balanceOf(buyer);
        amount = bound(amount, 0, balance + balance / 4 + 1);
        vm.prank(buyer);
        try escrowContract.requestWithdrawal(amount) {
            _pendingWithdrawalOf[buyer] = Pending(amount, 0, block.timestamp + DAY);
        } catch {
            if (amount != 0 && amount <= balance) ++exitsRefused;
        }
    }

    /// @notice Withdraws now, or first lets time pass to the second before the withdrawal unlocks, or to that second.
    function withdraw(uint256 buyerSeed, uint256 timing) external {
        address buyer = buyers[buyerSeed % BUYERS];
        Pending memory pending = _pendingWithdrawalOf[buyer];
        _warpToBoundary(pending.at, timing);
        bool due = pending.at != 0 && block.timestamp >= pending.at;
        uint256 expected = _min(pending.amount, balanceOf(buyer));
        uint256 before = token.balanceOf(buyer);
        vm.prank(buyer);
        try escrowContract.withdraw() returns (uint256 paid) {
            if (!due) ++earlyWithdrawals;
            if (paid > pending.amount || paid != expected || token.balanceOf(buyer) - before != paid) {
                ++wrongWithdrawals;
            }
            withdrawn[buyer] += paid;
            delete _pendingWithdrawalOf[buyer];
            ++withdrawals;
        } catch {
            if (due && expected != 0) ++exitsRefused;
        }
    }

    /// @notice Sets a limit (none in one of eight), a period of up to three days (0 is refused with a limit).
    function setSpendLimit(uint256 buyerSeed, uint256 limit, uint256 period) external {
        address buyer = buyers[buyerSeed % BUYERS];
        limit = limit % 8 == 0 ? 0 : bound(limit, 1, 60_000_000);
        period = bound(period, 0, 3 days);
        vm.prank(buyer);
        try escrowContract.setSpendLimit(limit, period) {
            Limit storage current = _limitOf[buyer];
            if (limit == 0 || (current.limit != 0 && limit >= current.limit && period <= current.period)) {
                (current.limit, current.period) = (limit, period);
                delete _pendingLimitOf[buyer];
            } else {
                _pendingLimitOf[buyer] = Pending(limit, period, block.timestamp + DAY);
            }
        } catch {
            if (limit == 0 || period != 0) ++exitsRefused;
        }
    }

    /// @notice Applies a pending change now, or first lets time pass to the second before it is due, or to that
    /// second.
    function applySpendLimit(uint256 buyerSeed, uint256 timing) external {
        address buyer = buyers[buyerSeed % BUYERS];
        Pending memory pending = _pendingLimitOf[buyer];
        _warpToBoundary(pending.at, timing);
        bool due = pending.at != 0 && block.timestamp >= pending.at;
        vm.prank(_named("anyone"));
        try escrowContract.applySpendLimit(buyer) {
            if (!due) ++limitsWronglyApplied;
            (_limitOf[buyer].limit, _limitOf[buyer].period) = (pending.amount, pending.period);
            delete _pendingLimitOf[buyer];
        } catch {
            if (due) ++limitsWronglyApplied;
        }
    }

    // ------------------------------------------------------------ debits

    /// @notice One debit through `debit`.
    function debit(uint256 seed) external {
        IPaymentEscrow.Debit[] memory items = new IPaymentEscrow.Debit[](1);
        bool[] memory broken = new bool[](1);
        (items[0], , broken[0]) = drawDebit(seed);
        _settle(items, broken, Path.OneByOne);
    }

    /// @notice One to eight debits, compared three ways before they are settled one of them: one by one, as a batch,
    /// and (when every item fits) as a compact batch must leave the same state, outcomes and entries (E10).
    function debitBatch(uint256 seed, uint256 count) external {
        IPaymentEscrow.Debit[] memory items = new IPaymentEscrow.Debit[](bound(count, 1, 8));
        bool[] memory broken = new bool[](items.length);
        bool allFit = true;
        for (uint256 i; i < items.length; ++i) {
            bool fits;
            (items[i], fits, broken[i]) = drawDebit(uint256(keccak256(abi.encode(seed, i))));
            allFit = allFit && fits;
        }
        bytes32 asBatch = _simulate(Path.Batch, items);
        if (_simulate(Path.OneByOne, items) != asBatch) ++batchesUnlikeOneByOne;
        if (allFit && _simulate(Path.Compact, items) != asBatch) ++compactUnlikeFull;
        _settle(items, broken, allFit && seed % 2 == 0 ? Path.Compact : Path.Batch);
    }

    /// @notice Runs `items` along `path` and reverts with the digest of what came of them; the revert undoes it.
    function simulate(Path path, IPaymentEscrow.Debit[] calldata items) external {
        require(msg.sender == address(this), "handler only");
        IPaymentEscrow.Debit[] memory copy = items;
        (Outcome[] memory outcomes, Entry[] memory entries, ) = _run(path, copy);
        revert Simulated(keccak256(abi.encode(outcomes, entries, _stateOf(copy))));
    }

    /// @notice An `exact` payment: the buyer's TransferWithAuthorization to the escrow, settled by the relayer; in
    /// one of eight someone submits it to the token first (its funds are then surplus and the settlement is
    /// refused), in one of eight it has expired, in one of eight another key signed it. Its nonce comes from the
    /// whole pool, so it meets debits' nonces and nonces bound to another resource.
    function settleExact(uint256 seed) external {
        uint256 r = uint256(keccak256(abi.encode("exact", seed)));
        IPaymentEscrow.ExactPayment memory p;
        p.from = buyers[r % BUYERS];
        p.resourceId = (r >> 8) % 16 == 0 ? UNKNOWN_RESOURCE : resources[(r >> 12) % RESOURCES];
        p.value = bound(r >> 16, 1, 20_000_000);
        p.validBefore = (r >> 96) % 8 == 1 ? block.timestamp : block.timestamp + 1 hours;
        p.nonce = poolNonce(bound(r >> 64, 0, POOL - 1));
        mint(p.from, p.value);
        p.signature = _signAuthorization(
            p.from,
            (r >> 96) % 8 == 2 ? STRANGER_KEY : keyOf[p.from],
            Signatures.TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
            p.value,
            p.validBefore,
            p.nonce
        );
        if ((r >> 96) % 8 == 0) _frontRun(p);
        uint256 before = token.balanceOf(escrow);
        startLogs();
        vm.prank(relayer);
        try escrowContract.settleExact(p) {
            (Entry[] memory entries, ) = readLogs();
            bool bound_ = bytes4(p.nonce) != EXACT_NONCE_TAG || bytes12(p.nonce << 32) == bytes12(p.resourceId);
            if (entries.length != 1 || !bound_ || token.balanceOf(escrow) - before != p.value) ++unmatchedLogs;
            _checkFees(entries);
            _recordDebit(p.from, p.resourceId, p.nonce, p.value, false);
            ++exactSettlements;
        } catch {}
    }

    // ------------------------------------------------------------ earnings, surplus

    function claim(uint256 accountSeed) external {
        address account = _account(accountSeed);
        uint256 owed = earned[account] - claimed[account];
        vm.prank(account);
        try escrowContract.claim(_named("claim receiver")) returns (uint256 amount) {
            if (amount != owed) ++claimMismatches;
            claimed[account] += amount;
        } catch {
            if (owed != 0) ++exitsRefused;
        }
    }

    /// @notice A plain transfer to the escrow: surplus, owed to nobody.
    function donate(uint256 amount) external {
        amount = bound(amount, 1, 10_000_000);
        mint(_named("donor"), amount);
        vm.prank(_named("donor"));
        token.transfer(escrow, amount);
        surplus += amount;
    }

    function recoverSurplus(uint256 amount) external {
        amount = bound(amount, 0, surplus + 10);
        vm.prank(admin);
        try escrowContract.recoverSurplus(_named("surplus owner"), amount) {
            surplus -= _min(amount, surplus);
        } catch {}
    }

    // ------------------------------------------------------------ admin, resources, time

    function togglePause() external {
        vm.prank(admin);
        if (paused) {
            try escrowContract.unpause() {
                paused = false;
            } catch {}
        } else {
            try escrowContract.pause() {
                paused = true;
            } catch {}
        }
    }

    /// @notice Proposes a fee: in three of four within the step allowed (100 bps either way, below 5000), else
    /// anywhere up to 6000. The chain must take exactly the proposals the rules allow: within the step, a day after
    /// the last change, below 5000 (E12).
    function setFee(uint256 seed) external {
        uint16 next =
            seed % 4 == 0
                ? uint16(bound(seed >> 2, 0, 6000))
                : uint16(_min(bound(seed >> 2, fee > 100 ? fee - 100 : 0, uint256(fee) + 100), 4999));
        uint256 step = next > fee ? next - fee : fee - next;
        bool allowed = step <= 100 && block.timestamp >= feeChangedAt + 1 days && next < 5000;
        vm.prank(admin);
        try escrowContract.setFee(next) {
            if (!allowed) ++feeRulesBroken;
            fee = next;
            feeChangedAt = block.timestamp;
        } catch {
            if (allowed) ++feeRulesBroken;
        }
    }

    /// @notice Someone holding no role calls one of the escrow's privileged functions, with arguments that would
    /// pass for the role holder (a debit drawn as the relayer would send it): the chain must refuse every one (E12).
    function strangerCalls(uint256 seed) external {
        address stranger = _named("stranger");
        (IPaymentEscrow.Debit memory d, bool fits, ) = drawDebit(seed);
        IPaymentEscrow.Debit[] memory items = new IPaymentEscrow.Debit[](1);
        items[0] = d;
        IPaymentEscrow.CompactDebit[] memory packed = new IPaymentEscrow.CompactDebit[](1);
        if (fits) packed[0] = compact(d);
        IPaymentEscrow.ExactPayment memory p;
        (p.from, p.resourceId, p.value, p.validBefore, p.nonce) = (
            d.authorization.buyer,
            d.authorization.resourceId,
            d.amount,
            d.authorization.validBefore,
            d.authorization.nonce
        );
        bytes[9] memory calls = [
            abi.encodeCall(escrowContract.debit, (d)),
            abi.encodeCall(escrowContract.debitBatch, (items)),
            fits
                ? abi.encodeCall(escrowContract.debitBatchCompact, (packed))
                : abi.encodeCall(escrowContract.debitBatch, (items)),
            abi.encodeCall(escrowContract.settleExact, (p)),
            abi.encodeCall(escrowContract.setFee, (fee)),
            abi.encodeCall(escrowContract.setTreasury, (stranger)),
            abi.encodeCall(escrowContract.recoverSurplus, (stranger, 0)),
            abi.encodeCall(escrowContract.pause, ()),
            abi.encodeCall(escrowContract.unpause, ())
        ];
        vm.prank(stranger);
        (bool accepted, ) = escrow.call(calls[seed % 9]);
        if (accepted) ++strangerActions;
    }

    function setTreasury(uint256 seed) external {
        address next = treasuries[seed % 2];
        vm.prank(admin);
        try escrowContract.setTreasury(next) {
            currentTreasury = next;
        } catch {}
    }

    /// @notice The creator deactivates an active resource or reactivates an inactive one.
    function toggleResource(uint256 seed) external {
        uint256 i = seed % RESOURCES;
        bytes32 resourceId = resources[i];
        vm.prank(creatorOf[i]);
        if (inactive[resourceId]) {
            try IResourceControl(address(registry)).reactivate(resourceId) {
                inactive[resourceId] = false;
            } catch {}
        } else {
            try IResourceControl(address(registry)).deactivate(resourceId) {
                inactive[resourceId] = true;
            } catch {}
        }
    }

    function setPayout(uint256 seed, uint256 payoutSeed) external {
        uint256 i = seed % RESOURCES;
        address payout = payouts[payoutSeed % PAYOUTS];
        vm.prank(creatorOf[i]);
        try IResourceControl(address(registry)).setPayout(resources[i], payout) {
            payoutOf[resources[i]] = payout;
        } catch {}
    }

    /// @notice Lets time pass: up to two days (a withdrawal's and a tightening's delay is one), up to an hour, or to a
    /// deadline ahead (a withdrawal's unlock, a pending limit's `effectiveAt`, the end of a spend-limit window, the
    /// next fee change) or the second before it, where an off-by-one shows.
    function warp(uint256 seed) external {
        uint256 to = block.timestamp + (seed % 4 == 0 ? bound(seed >> 8, 0, 1 hours) : bound(seed >> 8, 0, 2 days));
        if (seed % 4 == 1) {
            uint256[] memory deadlines = new uint256[](3 * BUYERS + 1);
            for (uint256 i; i < BUYERS; ++i) {
                deadlines[3 * i] = _pendingWithdrawalOf[buyers[i]].at;
                deadlines[3 * i + 1] = _pendingLimitOf[buyers[i]].at;
                deadlines[3 * i + 2] = _limitOf[buyers[i]].windowStart + _limitOf[buyers[i]].period;
            }
            deadlines[3 * BUYERS] = feeChangedAt + DAY;
            uint256 ahead;
            for (uint256 i; i < deadlines.length; ++i) {
                if (deadlines[i] > block.timestamp + 1) deadlines[ahead++] = deadlines[i];
            }
            if (ahead != 0) to = deadlines[(seed >> 64) % ahead] - ((seed >> 72) % 2);
        }
        vm.warp(to);
        vm.roll(block.number + 1);
    }

    // ------------------------------------------------------------ reads for the invariants

    function escrowUnderTest() external view returns (IEscrow, IERC20) {
        return (escrowContract, token);
    }

    /// @notice The model's balance: deposits - withdrawals - debits.
    function balanceOf(address buyer) public view returns (uint256) {
        return deposited[buyer] - withdrawn[buyer] - debited[buyer];
    }

    function buyerAt(uint256 i) external view returns (address) {
        return buyers[i];
    }

    /// @notice The accounts that can earn: the payouts, then the treasuries.
    function accountAt(uint256 i) external view returns (address) {
        return _account(i);
    }

    function accountCount() external pure returns (uint256) {
        return PAYOUTS + 2;
    }

    function poolNonceAt(uint256 p) external view returns (bytes32) {
        return poolNonce(p);
    }

    function limitOf(address buyer) external view returns (Limit memory) {
        return _limitOf[buyer];
    }

    function pendingLimitOf(address buyer) external view returns (Pending memory) {
        return _pendingLimitOf[buyer];
    }

    function pendingWithdrawalOf(address buyer) external view returns (Pending memory) {
        return _pendingWithdrawalOf[buyer];
    }

    // ------------------------------------------------------------ internals

    /// @notice With `timing` 1 or 2 (of 3), lets time pass to `at - 1` or `at`, when that is ahead.
    function _warpToBoundary(uint256 at, uint256 timing) private {
        timing %= 3;
        if (timing == 0 || at <= block.timestamp + 1) return;
        vm.warp(timing == 1 ? at - 1 : at);
        vm.roll(block.number + 1);
    }

    /// @notice Settles `items` along `path` and records what the chain reports; an item drawn `broken` that the chain
    /// debited counts against E11.
    function _settle(IPaymentEscrow.Debit[] memory items, bool[] memory broken, Path path) private {
        (Outcome[] memory outcomes, Entry[] memory entries, bool complete) = _run(path, items);
        if (!complete) ++unmatchedLogs;
        _checkFees(entries);
        for (uint256 i; i < items.length; ++i) {
            IPaymentEscrow.DebitAuthorization memory a = items[i].authorization;
            if (outcomes[i].debited) {
                if (broken[i]) ++brokenDebits;
                _countAgainstLimit(a.buyer, items[i].amount);
                _recordDebit(a.buyer, a.resourceId, a.nonce, items[i].amount, true);
                ++balanceDebits;
            } else {
                _checkRefusal(outcomes[i].reason);
            }
        }
    }

    /// @notice Runs `items` along `path` as the relayer: each item's outcome and the `BatchDebited` entries, in
    /// order; `complete` is false when the logs do not account for every item exactly once.
    function _run(
        Path path,
        IPaymentEscrow.Debit[] memory items
    ) private returns (Outcome[] memory outcomes, Entry[] memory entries, bool complete) {
        if (path == Path.OneByOne) return _runOneByOne(items);
        startLogs();
        vm.prank(relayer);
        uint256 settled;
        bool ran;
        bytes memory reason;
        if (path == Path.Batch) {
            try escrowContract.debitBatch(items) returns (uint256 n) {
                (settled, ran) = (n, true);
            } catch (bytes memory why) {
                reason = why;
            }
        } else {
            IPaymentEscrow.CompactDebit[] memory packed = new IPaymentEscrow.CompactDebit[](items.length);
            for (uint256 i; i < items.length; ++i) {
                packed[i] = compact(items[i]);
            }
            try escrowContract.debitBatchCompact(packed) returns (uint256 n) {
                (settled, ran) = (n, true);
            } catch (bytes memory why) {
                reason = why;
            }
        }
        Skip[] memory skips;
        (entries, skips) = readLogs();
        if (!ran) {
            outcomes = new Outcome[](items.length);
            for (uint256 i; i < items.length; ++i) {
                outcomes[i].reason = reason;
            }
            return (outcomes, entries, entries.length == 0);
        }
        (outcomes, complete) = matchOutcomes(items, entries, skips);
        if (settled != entries.length) complete = false;
    }

    function _runOneByOne(
        IPaymentEscrow.Debit[] memory items
    ) private returns (Outcome[] memory outcomes, Entry[] memory entries, bool complete) {
        outcomes = new Outcome[](items.length);
        entries = new Entry[](items.length);
        uint256 count;
        complete = true;
        for (uint256 i; i < items.length; ++i) {
            startLogs();
            vm.prank(relayer);
            try escrowContract.debit(items[i]) {
                (Entry[] memory logged, ) = readLogs();
                (Outcome[] memory matched, bool one) = matchOutcomes(_one(items[i]), logged, new Skip[](0));
                outcomes[i].debited = matched[0].debited;
                if (!one || !matched[0].debited) complete = false;
                if (logged.length != 0) entries[count++] = logged[0];
            } catch (bytes memory reason) {
                outcomes[i].reason = reason;
            }
        }
        assembly ("memory-safe") {
            mstore(entries, count)
        }
    }

    function _simulate(Path path, IPaymentEscrow.Debit[] memory items) private returns (bytes32) {
        try this.simulate(path, items) {
            return bytes32(0);
        } catch (bytes memory data) {
            if (data.length != 36 || bytes4(data) != Simulated.selector) return keccak256(data);
            return abi.decode(_tail(data), (bytes32));
        }
    }

    /// @notice What a debit can change: every balance, earning and spend-limit window, the liabilities, the
    /// escrow's tokens, and the nonces of `items`.
    function _stateOf(IPaymentEscrow.Debit[] memory items) private view returns (bytes memory state) {
        for (uint256 i; i < BUYERS; ++i) {
            (, , uint64 windowStart, uint256 spent) = escrowContract.spendLimitOf(buyers[i]);
            state = bytes.concat(state, abi.encode(escrowContract.balanceOf(buyers[i]), windowStart, spent));
        }
        for (uint256 i; i < PAYOUTS + 2; ++i) {
            state = bytes.concat(state, abi.encode(escrowContract.earningsOf(_account(i))));
        }
        state = bytes.concat(state, abi.encode(escrowContract.totalLiabilities(), token.balanceOf(escrow)));
        for (uint256 i; i < items.length; ++i) {
            IPaymentEscrow.DebitAuthorization memory a = items[i].authorization;
            state = bytes.concat(state, abi.encode(escrowContract.nonceUsed(a.buyer, a.nonce)));
        }
    }

    /// @notice Records a debit the chain reported; `fromBalance`: it came out of the buyer's escrow balance (not an
    /// `exact` transfer).
    function _recordDebit(address buyer, bytes32 resourceId, bytes32 nonce, uint256 amount, bool fromBalance) private {
        if (paused) ++debitsWhilePaused;
        if (++timesDebited[buyer][nonce] > 1) ++doubleDebits;
        nonceSpent[buyer][nonce] = true;
        if (fromBalance) debited[buyer] += amount;
        uint256 feeAmount = (amount * fee) / 10_000;
        earned[currentTreasury] += feeAmount;
        feesEarned[currentTreasury] += feeAmount;
        earned[payoutOf[resourceId]] += amount - feeAmount;
    }

    /// @notice Counts a debit against the model's limit in force; a debit that takes its window past it is a breach.
    function _countAgainstLimit(address buyer, uint256 amount) private {
        Limit storage l = _limitOf[buyer];
        if (l.limit == 0) return;
        if (block.timestamp >= l.windowStart + l.period) {
            (l.windowStart, l.spent) = (block.timestamp, amount);
        } else {
            l.spent += amount;
        }
        if (l.spent > l.limit) ++limitBreaches;
    }

    /// @notice A refusal for the spend limit must be one the model's limit in force makes (a tightening still
    /// pending never counts).
    function _checkRefusal(bytes memory reason) private {
        if (reason.length < 4 || bytes4(reason) != IPaymentEscrow.SpendLimitExceeded.selector) return;
        (address buyer, uint256 limit, , uint256 amount) = abi.decode(
            _tail(reason),
            (address, uint256, uint256, uint256)
        );
        Limit memory l = _limitOf[buyer];
        uint256 spent = block.timestamp >= l.windowStart + l.period ? 0 : l.spent;
        if (l.limit == 0 || limit != l.limit || spent + amount <= l.limit) ++limitsWronglyApplied;
    }

    function _checkFees(Entry[] memory entries) private {
        for (uint256 i; i < entries.length; ++i) {
            if (entries[i].feeBps != fee) ++feeMismatches;
        }
    }

    /// @notice A submitter other than the escrow sends the payment's authorization to the token first.
    function _frontRun(IPaymentEscrow.ExactPayment memory p) private {
        vm.prank(_named("front-runner"));
        try
            token.transferWithAuthorization(p.from, escrow, p.value, p.validAfter, p.validBefore, p.nonce, p.signature)
        {
            surplus += p.value;
        } catch {}
    }

    /// @notice `from`'s EIP-3009 authorization (`typeHash`) to the escrow, valid from 0, signed with `key`.
    function _signAuthorization(
        address from,
        uint256 key,
        bytes32 typeHash,
        uint256 value,
        uint256 validBefore,
        bytes32 nonce
    ) private view returns (bytes memory) {
        bytes32 digest = Signatures.authorizationDigest(
            token.DOMAIN_SEPARATOR(),
            typeHash,
            from,
            escrow,
            value,
            0,
            validBefore,
            nonce
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _account(uint256 i) private view returns (address) {
        i %= PAYOUTS + 2;
        return i < PAYOUTS ? payouts[i] : treasuries[i - PAYOUTS];
    }

    function _one(IPaymentEscrow.Debit memory item) private pure returns (IPaymentEscrow.Debit[] memory items) {
        items = new IPaymentEscrow.Debit[](1);
        items[0] = item;
    }

    /// @dev `data` without its first four bytes (a custom error's arguments).
    function _tail(bytes memory data) private pure returns (bytes memory tail) {
        tail = new bytes(data.length - 4);
        for (uint256 i; i < tail.length; ++i) {
            tail[i] = data[i + 4];
        }
    }
}

interface IResourceControl {
    function deactivate(bytes32 resourceId) external;
    function reactivate(bytes32 resourceId) external;
    function setPayout(bytes32 resourceId, address payout) external;
}
