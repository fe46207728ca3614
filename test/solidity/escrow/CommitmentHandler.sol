// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../../contracts/interfaces/IPaymentEscrow.sol";
import {Signatures} from "../Signatures.sol";
import {EscrowActors} from "./EscrowActors.sol";

/// @notice The facilitator's promise under fuzzing (E13, docs/audit/invariants.md): a debit it committed, having
/// reserved its cap as the facilitator does (the buyer's balance less its pending withdrawal and less the caps it
/// holds; the room of its spend limit in force and of a tightening due before the debit's validBefore), lands on chain
/// whatever the buyer does meanwhile: deposit, ask to withdraw everything, withdraw, tighten, loosen or remove its
/// limit, apply a change once due, while time passes. The relayer settles every commitment before its validBefore, in
/// any order. One buyer with a key, one active resource; nothing else debits the buyer.
contract CommitmentHandler is EscrowActors {
    /// @notice A debit the facilitator committed and the relayer has not settled yet.
    struct Commitment {
        IPaymentEscrow.Debit debit;
        uint256 cap;
    }

    Commitment[] private _live;
    uint256 private _nonces;

    uint256 public committedFailures; // E13
    bytes public lastFailure;
    uint256 public commitments;
    uint256 public settled;

    function buyer() public view returns (address) {
        return buyers[0];
    }

    // ------------------------------------------------------------ the facilitator and the relayer

    /// @notice Reserves and commits a debit of up to 20 USDC for up to an hour, when the reservation passes as the
    /// facilitator's `reserve_calls` decides it from the buyer's state on chain and the caps it holds.
    function commit(uint256 capSeed, uint256 amountSeed, uint256 windowSeed) external {
        uint256 cap = bound(capSeed, 1, 20_000_000);
        uint256 validBefore = block.timestamp + bound(windowSeed, 60, 3600);
        bytes32 nonce = keccak256(abi.encode("committed", ++_nonces));
        IPaymentEscrow.BuyerState memory s = escrowContract.buyerState(buyer(), nonce);
        uint256 held = _held();
        uint256 available = s.balance > s.pendingWithdrawal ? s.balance - s.pendingWithdrawal : 0;
        if (available < held + cap) return;
        if (!_roomFor(s, held + cap, validBefore)) return;
        IPaymentEscrow.Debit memory d;
        d.authorization = IPaymentEscrow.DebitAuthorization({
            buyer: buyer(),
            resourceId: resources[0],
            maxAmount: cap,
            validAfter: block.timestamp - 1,
            validBefore: validBefore,
            nonce: nonce
        });
        d.amount = bound(amountSeed, 1, cap);
        (uint8 v, bytes32 r, bytes32 sig) = vm.sign(keyOf[buyer()], Signatures.debitDigest(escrow, d.authorization));
        d.signature = abi.encodePacked(r, sig, v);
        _live.push(Commitment(d, cap));
        ++commitments;
    }

    /// @notice The relayer settles one commitment (any, not the oldest first), alone or in a batch of one.
    function settle(uint256 pick) external {
        if (_live.length == 0) return;
        _settleAt(pick % _live.length, pick % 2 == 0);
    }

    // ------------------------------------------------------------ the buyer

    function deposit(uint256 amount) external {
        amount = bound(amount, 1, 100_000_000);
        mint(buyer(), amount);
        vm.startPrank(buyer());
        token.approve(escrow, amount);
        escrowContract.deposit(amount);
        vm.stopPrank();
    }

    /// @notice Asks to withdraw up to everything (and more, which is refused), the move a buyer would make to take
    /// back what it owes.
    function requestWithdrawal(uint256 amount) external {
        uint256 balance = escrowContract.balanceOf(buyer());
        amount = bound(amount, 1, balance + balance / 4 + 1);
        vm.prank(buyer());
        try escrowContract.requestWithdrawal(amount) {} catch {}
    }

    function withdraw() external {
        vm.prank(buyer());
        try escrowContract.withdraw() {} catch {}
    }

    /// @notice A limit of up to 60 USDC over up to two days, tighter or looser than the one in force, or none.
    function setSpendLimit(uint256 limit, uint256 period) external {
        limit = limit % 6 == 0 ? 0 : bound(limit, 1, 60_000_000);
        period = bound(period, 1, 2 days);
        vm.prank(buyer());
        escrowContract.setSpendLimit(limit, period);
    }

    function applySpendLimit() external {
        try escrowContract.applySpendLimit(buyer()) {} catch {}
    }

    // ------------------------------------------------------------ time

    /// @notice Lets time pass: within the earliest live commitment's window (so that it is still settled on time), or,
    /// once the relayer has settled everything live, up to two days (a window or a pending change may end).
    function warp(uint256 seed) external {
        uint256 earliest = type(uint256).max;
        for (uint256 i; i < _live.length; ++i) {
            earliest = _min(earliest, _live[i].debit.authorization.validBefore);
        }
        if (_live.length != 0 && seed % 2 == 0 && earliest > block.timestamp + 1) {
            vm.warp(block.timestamp + bound(seed >> 1, 1, earliest - block.timestamp - 1));
        } else {
            while (_live.length != 0) _settleAt(_live.length - 1, seed % 3 == 0);
            vm.warp(block.timestamp + bound(seed >> 1, 1, 2 days));
        }
        vm.roll(block.number + 1);
    }

    // ------------------------------------------------------------ internals

    /// @notice The caps of the live commitments: what the facilitator holds of the buyer's balance and room.
    function _held() private view returns (uint256 held) {
        for (uint256 i; i < _live.length; ++i) {
            held += _live[i].cap;
        }
    }

    /// @notice The facilitator's spend-limit check (`reserve_calls`): the limit in force, and a change due before the
    /// debit's validBefore, each with what the current window has spent unless that window (of the limit's own period)
    /// has ended.
    function _roomFor(
        IPaymentEscrow.BuyerState memory s,
        uint256 needed,
        uint256 validBefore
    ) private view returns (bool) {
        if (s.spendLimit != 0) {
            uint256 spent = block.timestamp >= s.windowStart + s.period ? 0 : s.spentInWindow;
            if (spent + needed > s.spendLimit) return false;
        }
        if (s.pendingEffectiveAt != 0 && s.pendingEffectiveAt < validBefore && s.pendingSpendLimit != 0) {
            uint256 spent = block.timestamp >= s.windowStart + s.pendingPeriod ? 0 : s.spentInWindow;
            if (spent + needed > s.pendingSpendLimit) return false;
        }
        return true;
    }

    function _settleAt(uint256 i, bool alone) private {
        IPaymentEscrow.Debit memory d = _live[i].debit;
        _live[i] = _live[_live.length - 1];
        _live.pop();
        startLogs();
        vm.prank(relayer);
        bool ok;
        if (alone) {
            try escrowContract.debit(d) {
                ok = true;
            } catch (bytes memory reason) {
                lastFailure = reason;
            }
        } else {
            IPaymentEscrow.Debit[] memory items = new IPaymentEscrow.Debit[](1);
            items[0] = d;
            try escrowContract.debitBatch(items) returns (uint256 n) {
                ok = n == 1;
            } catch (bytes memory reason) {
                lastFailure = reason;
            }
        }
        (Entry[] memory entries, Skip[] memory skips) = readLogs();
        if (skips.length != 0) lastFailure = skips[0].reason;
        if (!ok || entries.length != 1) {
            ++committedFailures;
            return;
        }
        ++settled;
    }
}
