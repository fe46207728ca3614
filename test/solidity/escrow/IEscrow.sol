// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../../contracts/interfaces/IPaymentEscrow.sol";

/// @notice PaymentEscrow as the Solidity tests call it: `IPaymentEscrow` and the public state and admin functions
/// the contract declares beyond it (its getters, fee, treasury, pause), so that a test does not compile the contract.
interface IEscrow is IPaymentEscrow {
    function totalLiabilities() external view returns (uint256);
    function earningsOf(address account) external view returns (uint256);
    function spendLimitOf(
        address buyer
    ) external view returns (uint128 limit, uint64 period, uint64 windowStart, uint256 spent);
    function pendingWithdrawal(address buyer) external view returns (uint192 amount, uint64 unlocksAt);
    function feeBps() external view returns (uint16);
    function lastFeeChangeAt() external view returns (uint64);
    function treasury() external view returns (address);
    function paused() external view returns (bool);
    function setFee(uint16 newFeeBps) external;
    function setTreasury(address treasury_) external;
    function pause() external;
    function unpause() external;
}
