// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Test} from "../Test.sol";
import {CommitmentHandler} from "./CommitmentHandler.sol";

/// @notice The escrow's liveness invariant E13 (docs/audit/invariants.md): a debit the facilitator committed lands
/// on chain whatever the buyer does meanwhile, checked after every call of every run of CommitmentHandler's actions.
contract EscrowLiveness is Test {
    CommitmentHandler internal handler;

    function setUp() public {
        handler = new CommitmentHandler();
        // Every run starts with a funded buyer under a limit, so that short runs reach the limit's edges.
        handler.deposit(60_000_000);
        handler.setSpendLimit(40_000_000, 1 hours);
        bytes4[] memory actions = new bytes4[](10);
        actions[0] = handler.commit.selector;
        actions[1] = handler.settle.selector;
        actions[2] = handler.deposit.selector;
        actions[3] = handler.requestWithdrawal.selector;
        actions[4] = handler.withdraw.selector;
        actions[5] = handler.setSpendLimit.selector;
        actions[6] = handler.applySpendLimit.selector;
        actions[7] = handler.warp.selector;
        // Commitments and their settlement are what the property is about: listed twice.
        actions[8] = handler.commit.selector;
        actions[9] = handler.settle.selector;
        targetContract(address(handler));
        targetSelector(address(handler), actions);
    }

    /// @notice E13: every debit the facilitator committed, reserving its cap as it does, was debited when the relayer
    /// settled it before its validBefore: no withdrawal, spend limit or deposit of the buyer made one fail.
    function invariant_E13_committedDebitsLand() public view {
        vm.assertEq(
            handler.committedFailures(),
            0,
            string.concat("E13: a committed debit failed: ", vm.toString(handler.lastFailure()))
        );
    }
}
