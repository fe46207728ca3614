// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IResourceRegistry} from "../../../contracts/interfaces/IResourceRegistry.sol";

/// @notice ResourceRegistry as the Solidity tests call it: `IResourceRegistry` and the functions and public state the
/// contract declares beyond it, so that a test does not compile the contract.
interface IRegistry is IResourceRegistry {
    function deactivate(bytes32 resourceId) external;
    function reactivate(bytes32 resourceId) external;
    function setPayout(bytes32 resourceId, address payout) external;
    function updateCard(bytes32 resourceId, string calldata cardURI, bytes32 cardHash) external;
    function postBond(bytes32 resourceId, uint256 amount) external;
    function postBondWithAuthorization(
        bytes32 resourceId,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
    function withdrawBond(bytes32 resourceId) external returns (uint256 amount);
    function recordStrike(bytes32 resourceId, address buyer, bytes32 nonce, string calldata reason) external;
    function setStrikePolicy(uint32 strikeThreshold, uint16 slashBps, uint256 minBond) external;
    function setTreasury(address treasury) external;
    function strikeRecorded(bytes32 strikeKey) external view returns (bool);
    function strikeThreshold() external view returns (uint32);
    function slashBps() external view returns (uint16);
    function minBond() external view returns (uint256);
    function treasury() external view returns (address);
    function bondWithdrawalDelay() external view returns (uint256);
    function resourceOfAgent(uint256 agentId) external view returns (bytes32);
}
