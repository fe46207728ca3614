// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Test} from "../Test.sol";
import {EscrowHandler} from "./EscrowHandler.sol";
import {IEscrow} from "./IEscrow.sol";

/// @notice The escrow's invariants E1..E10 (docs/audit/invariants.md), checked after every call of every run of
/// EscrowHandler's actions.
contract EscrowInvariants is Test {
    EscrowHandler internal handler;
    IEscrow internal escrow;
    IERC20 internal token;
    uint256 internal buyers;

    function setUp() public {
        handler = new EscrowHandler();
        (escrow, token) = handler.escrowUnderTest();
        buyers = 4;
        // Every run starts with funded buyers, two of them under a spend limit, so that short runs reach limits.
        for (uint256 i; i < buyers; ++i) {
            handler.deposit(i, 200_000_000, 0);
        }
        handler.setSpendLimit(0, 30_000_001, 1 hours);
        handler.setSpendLimit(1, 50_000_001, 1 days);
        handler.applySpendLimit(0, 2);
        handler.applySpendLimit(1, 2);
        bytes4[] memory actions = new bytes4[](19);
        actions[0] = handler.deposit.selector;
        actions[1] = handler.requestWithdrawal.selector;
        actions[2] = handler.withdraw.selector;
        actions[3] = handler.setSpendLimit.selector;
        actions[4] = handler.applySpendLimit.selector;
        actions[5] = handler.debit.selector;
        actions[6] = handler.debitBatch.selector;
        actions[7] = handler.settleExact.selector;
        actions[8] = handler.claim.selector;
        actions[9] = handler.donate.selector;
        actions[10] = handler.recoverSurplus.selector;
        actions[11] = handler.togglePause.selector;
        actions[12] = handler.setFee.selector;
        actions[13] = handler.setTreasury.selector;
        actions[14] = handler.toggleResource.selector;
        actions[15] = handler.setPayout.selector;
        actions[16] = handler.warp.selector;
        // Debits are what the properties are about: the fuzzer picks a selector uniformly, so list them twice.
        actions[17] = handler.debitBatch.selector;
        actions[18] = handler.strangerCalls.selector;
        targetContract(address(handler));
        targetSelector(address(handler), actions);
    }

    /// @notice E1: the escrow holds at least what it owes; what it holds beyond is exactly the surplus that arrived
    /// outside deposits and settlements, less what was recovered.
    function invariant_E1_solvent() public view {
        uint256 held = token.balanceOf(address(escrow));
        vm.assertGe(held, escrow.totalLiabilities(), "E1: token balance below liabilities");
        vm.assertEq(held - escrow.totalLiabilities(), handler.surplus(), "E1: surplus");
    }

    /// @notice E2: totalLiabilities is the sum of the buyers' balances and the accounts' unclaimed earnings.
    function invariant_E2_liabilitiesAreBalancesAndEarnings() public view {
        uint256 sum;
        for (uint256 i; i < buyers; ++i) {
            sum += escrow.balanceOf(handler.buyerAt(i));
        }
        for (uint256 i; i < handler.accountCount(); ++i) {
            sum += escrow.earningsOf(handler.accountAt(i));
        }
        vm.assertEq(escrow.totalLiabilities(), sum, "E2: liabilities != balances + earnings");
    }

    /// @notice E3: each buyer's balance is their deposits less their withdrawals and debits.
    function invariant_E3_balanceIsDepositsLessWithdrawalsAndDebits() public view {
        for (uint256 i; i < buyers; ++i) {
            address buyer = handler.buyerAt(i);
            vm.assertEq(escrow.balanceOf(buyer), handler.balanceOf(buyer), "E3: balance");
        }
    }

    /// @notice E4: each (buyer, nonce) is debited at most once, whichever paths (debit, batch, compact batch, exact)
    /// it was presented to.
    function invariant_E4_eachNonceDebitedOnce() public view {
        vm.assertEq(handler.doubleDebits(), 0, "E4: a (buyer, nonce) was debited twice");
    }

    /// @notice E5: `nonceUsed` answers exactly as a plain mapping of the nonces debited, for every nonce of the pool
    /// (bitmap nonces in four words, random ones, tagged look-alikes, `exact` nonces), spent or not.
    function invariant_E5_nonceUsedMatchesModel() public view {
        for (uint256 i; i < buyers; ++i) {
            address buyer = handler.buyerAt(i);
            for (uint256 p; p < 42; ++p) {
                bytes32 nonce = handler.poolNonceAt(p);
                vm.assertEq(escrow.nonceUsed(buyer, nonce), handler.nonceSpent(buyer, nonce), "E5: nonceUsed");
            }
        }
    }

    /// @notice E6: each debit credits the treasury in force exactly floor(amount x fee / 10,000) at the fee in force,
    /// and the resource's payout the rest: every account's earnings (claimed or not) are exactly that sum.
    function invariant_E6_feesAreExact() public view {
        vm.assertEq(handler.feeMismatches(), 0, "E6: a debit logged another fee than the one in force");
        vm.assertEq(handler.claimMismatches(), 0, "E6: a claim paid other than the earnings");
        for (uint256 i; i < handler.accountCount(); ++i) {
            address account = handler.accountAt(i);
            vm.assertEq(escrow.earningsOf(account) + handler.claimed(account), handler.earned(account), "E6: earnings");
        }
        vm.assertEq(escrow.feeBps(), handler.fee(), "E6: fee");
    }

    /// @notice E7: a withdrawal pays only once its delay has passed, never more than requested (the smaller of the
    /// request and the balance), and the pending request is the one the buyer made.
    function invariant_E7_withdrawalsWaitAndNeverExceedTheRequest() public view {
        vm.assertEq(handler.earlyWithdrawals(), 0, "E7: a withdrawal paid before its delay");
        vm.assertEq(handler.wrongWithdrawals(), 0, "E7: a withdrawal paid other than min(requested, balance)");
        for (uint256 i; i < buyers; ++i) {
            address buyer = handler.buyerAt(i);
            (uint192 amount, uint64 unlocksAt) = escrow.pendingWithdrawal(buyer);
            EscrowHandler.Pending memory model = handler.pendingWithdrawalOf(buyer);
            vm.assertEq(amount, model.amount, "E7: pending amount");
            vm.assertEq(unlocksAt, model.at, "E7: unlocksAt");
        }
    }

    /// @notice E8: no window of a limited buyer is debited past the limit in force; a refusal for the limit is one
    /// the limit in force makes; a tightening is in force only after `applySpendLimit` at or after its
    /// `effectiveAt`, a loosening at once; limit, window and pending change are the model's.
    function invariant_E8_spendLimitsHold() public view {
        vm.assertEq(handler.limitBreaches(), 0, "E8: a window was debited past its limit");
        vm.assertEq(handler.limitsWronglyApplied(), 0, "E8: a limit refused or applied when it was not in force");
        for (uint256 i; i < buyers; ++i) {
            address buyer = handler.buyerAt(i);
            (uint128 limit, uint64 period, uint64 windowStart, uint256 spent) = escrow.spendLimitOf(buyer);
            EscrowHandler.Limit memory model = handler.limitOf(buyer);
            vm.assertEq(limit, model.limit, "E8: limit in force");
            vm.assertEq(period, model.period, "E8: period in force");
            vm.assertEq(windowStart, model.windowStart, "E8: window start");
            vm.assertEq(spent, model.spent, "E8: spent in window");
            IEscrow.BuyerState memory state = escrow.buyerState(buyer, bytes32(0));
            EscrowHandler.Pending memory pending = handler.pendingLimitOf(buyer);
            vm.assertEq(state.pendingSpendLimit, pending.amount, "E8: pending limit");
            vm.assertEq(state.pendingPeriod, pending.period, "E8: pending period");
            vm.assertEq(state.pendingEffectiveAt, pending.at, "E8: pending effectiveAt");
        }
    }

    /// @notice E9: nothing is debited while the escrow is paused (no path), and withdrawals, claims and spend
    /// limits keep working, paused or not.
    function invariant_E9_pauseStopsDebitsOnly() public view {
        vm.assertEq(handler.debitsWhilePaused(), 0, "E9: debited while paused");
        vm.assertEq(handler.exitsRefused(), 0, "E9: an exit was refused");
        vm.assertEq(escrow.paused(), handler.paused(), "E9: paused");
    }

    /// @notice E10: a batch leaves the same outcomes, entries and state as the same debits one by one, the compact
    /// encoding the same as the full one, and the logs account for every item exactly once.
    function invariant_E10_batchEqualsOneByOne() public view {
        vm.assertEq(handler.batchesUnlikeOneByOne(), 0, "E10: a batch differed from its debits one by one");
        vm.assertEq(handler.compactUnlikeFull(), 0, "E10: a compact batch differed from the full encoding");
        vm.assertEq(handler.unmatchedLogs(), 0, "E10: the logs do not account for the items");
    }

    /// @notice E11: only what the buyer authorized is debited: a debit drawn broken (not yet valid, expired, above its
    /// maxAmount, zero, for an unknown resource, signed by another key, with a malleable or a short signature) is
    /// never debited, on any path.
    function invariant_E11_onlyAuthorizedDebits() public view {
        vm.assertEq(handler.brokenDebits(), 0, "E11: a debit the buyer did not authorize was debited");
    }

    /// @notice E12: only the role holders act: a caller without the role is refused every debit path, the fee, the
    /// treasury, surplus recovery, pause and unpause; the admin's fee is taken exactly when the rules allow it (within
    /// 100 bps of the current, a day after the last change, below 5000).
    function invariant_E12_onlyRoleHoldersWithinTheRules() public view {
        vm.assertEq(handler.strangerActions(), 0, "E12: a caller without the role was obeyed");
        vm.assertEq(
            handler.feeRulesBroken(),
            0,
            "E12: a fee change the rules forbid was taken, or one they allow refused"
        );
    }
}
