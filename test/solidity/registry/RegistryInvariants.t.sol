// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IResourceRegistry} from "../../../contracts/interfaces/IResourceRegistry.sol";
import {Test} from "../Test.sol";
import {IRegistry} from "./IRegistry.sol";
import {RegistryHandler} from "./RegistryHandler.sol";

/// @notice The registry's invariants R1..R7 (docs/audit/invariants.md), checked after every call of every run of
/// RegistryHandler's actions.
contract RegistryInvariants is Test {
    RegistryHandler internal handler;
    IRegistry internal registry;
    IERC20 internal token;

    function setUp() public {
        handler = new RegistryHandler();
        (registry, token) = handler.registryUnderTest();
        // Every run starts with three resources of two creators, registered both ways.
        handler.register(0, 0, 0);
        handler.register(0, 1, 1);
        handler.register(1, 0, 1);
        vm.assertEq(handler.resourceCount(), 3, "set-up registrations");
        bytes4[] memory actions = new bytes4[](15);
        actions[0] = handler.register.selector;
        actions[1] = handler.postBond.selector;
        actions[2] = handler.postBondWithAuthorization.selector;
        actions[3] = handler.withdrawBond.selector;
        actions[4] = handler.deactivate.selector;
        actions[5] = handler.reactivate.selector;
        actions[6] = handler.recordStrike.selector;
        actions[7] = handler.setStrikePolicy.selector;
        actions[8] = handler.setTreasury.selector;
        actions[9] = handler.warp.selector;
        // Strikes are what most properties are about: the fuzzer picks a selector uniformly, so list them more.
        actions[10] = handler.recordStrike.selector;
        actions[11] = handler.recordStrike.selector;
        actions[12] = handler.deactivate.selector;
        actions[13] = handler.withdrawBond.selector;
        actions[14] = handler.strangerCalls.selector;
        targetContract(address(handler));
        targetSelector(address(handler), actions);
    }

    /// @notice R1: the registry holds exactly the sum of the bonds, which is the model's.
    function invariant_R1_tokensAreTheBonds() public view {
        uint256 sum;
        for (uint256 i; i < handler.resourceCount(); ++i) {
            bytes32 resourceId = handler.resources(i);
            sum += registry.getResource(resourceId).bond;
        }
        vm.assertEq(token.balanceOf(address(registry)), sum, "R1: token balance != sum of bonds");
    }

    /// @notice R2: a retired resource (its bond withdrawn) is never active again.
    function invariant_R2_retiredNeverActive() public view {
        vm.assertEq(handler.retiredReactivated(), 0, "R2: a retired resource was reactivated");
        for (uint256 i; i < handler.resourceCount(); ++i) {
            bytes32 resourceId = handler.resources(i);
            IResourceRegistry.Resource memory res = registry.getResource(resourceId);
            vm.assertEq(res.retired, handler.modelOf(resourceId).retired, "R2: retired");
            if (res.retired) vm.assertFalse(res.active, "R2: retired and active");
        }
    }

    /// @notice R3: each strike key (buyer, nonce) is recorded once: never twice, and never refused as recorded when
    /// only another buyer's call of the same nonce was; `strikeRecorded` is the model's for every pair of the pool.
    function invariant_R3_eachStrikeKeyRecordedOnce() public view {
        vm.assertEq(handler.strikesTwice(), 0, "R3: a (buyer, nonce) was struck twice");
        vm.assertEq(handler.strikesWronglyRefused(), 0, "R3: a strike was refused as already recorded");
        for (uint256 b; b < 3; ++b) {
            for (uint256 n; n < 4; ++n) {
                (address buyer, bytes32 nonce) = handler.strikeAt(b, n);
                bytes32 key = keccak256(abi.encode(buyer, nonce));
                vm.assertEq(registry.strikeRecorded(key), handler.struck(key), "R3: strikeRecorded");
            }
        }
    }

    /// @notice R4: strikes and slashes follow the policy exactly: each resource's strike count, bond, activity and
    /// last slash are the model's, and each treasury received exactly floor(bond x slashBps / 10,000) per slash.
    function invariant_R4_slashesAreExact() public view {
        for (uint256 i; i < handler.resourceCount(); ++i) {
            bytes32 resourceId = handler.resources(i);
            IResourceRegistry.Resource memory res = registry.getResource(resourceId);
            RegistryHandler.Model memory model = handler.modelOf(resourceId);
            vm.assertEq(res.bond, model.bond, "R4: bond");
            vm.assertEq(res.strikes, model.strikes, "R4: strikes");
            vm.assertEq(res.active, model.active, "R4: active");
            vm.assertEq(res.slashedAt, model.slashedAt, "R4: slashedAt");
            vm.assertEq(res.deactivatedAt, model.deactivatedAt, "R4: deactivatedAt");
        }
        address[2] memory treasuries = handler.treasuries();
        for (uint256 i; i < 2; ++i) {
            vm.assertEq(token.balanceOf(treasuries[i]), handler.slashedTo(treasuries[i]), "R4: slashed to treasury");
        }
    }

    /// @notice R5: a bond is withdrawn only by its creator, once the resource has been inactive for the delay, and
    /// whole.
    function invariant_R5_bondsLeaveOnlyAfterTheDelay() public view {
        vm.assertEq(handler.wrongWithdrawals(), 0, "R5: a bond was withdrawn early or not whole");
    }

    /// @notice R6: a bond authorization bonds only the resource its nonce names, and only from that resource's
    /// creator, whoever submits it.
    function invariant_R6_bondAuthorizationBoundToItsResource() public view {
        vm.assertEq(handler.bondsMisbound(), 0, "R6: a bond authorization bonded another resource");
    }

    /// @notice R7: the strike policy stays within its bounds (at least 3 strikes, at most half the bond) and is the
    /// model's.
    function invariant_R7_strikePolicyBounded() public view {
        vm.assertEq(handler.policiesOutOfBounds(), 0, "R7: a policy out of bounds was accepted");
        vm.assertGe(registry.strikeThreshold(), 3, "R7: threshold");
        vm.assertLe(registry.slashBps(), 5_000, "R7: slashBps");
        vm.assertEq(registry.strikeThreshold(), handler.strikeThreshold(), "R7: threshold is the model's");
        vm.assertEq(registry.slashBps(), handler.slashBps(), "R7: slashBps is the model's");
    }

    /// @notice R8: only the creator and the role holders act: a caller who is neither is refused strikes, the strike
    /// policy, the treasury, and a resource's deactivate, reactivate, withdrawBond, updateCard and setPayout.
    function invariant_R8_onlyCreatorsAndRoleHolders() public view {
        vm.assertEq(
            handler.strangerActions(),
            0,
            "R8: a caller who is neither the creator nor a role holder was obeyed"
        );
    }
}
