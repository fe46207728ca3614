// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {IIdentityRegistry} from "../interfaces/IIdentityRegistry.sol";

/// @title Test-only hostile ERC-721 receiver
/// @notice Registers an agent and, from inside `onERC721Received`, either re-enters `register` up to
/// `reentries` times or hands the identity it is receiving to `forwardTo`. Records the ids it received in order.
contract ReentrantAgentReceiver is IERC721Receiver {
    IIdentityRegistry public immutable identity;
    uint256 public reentriesLeft;
    address public forwardTo;
    uint256[] private _received;

    constructor(IIdentityRegistry identity_) {
        identity = identity_;
    }

    /// @notice Registers `agentURI`, then re-enters `register("reentered")` `reentries` times during the mints.
    function registerAndReenter(string calldata agentURI, uint256 reentries) external returns (uint256 agentId) {
        reentriesLeft = reentries;
        agentId = identity.register(agentURI);
    }

    /// @notice Registers `agentURI` and transfers the identity to `to` while it is still being minted.
    function registerAndForward(string calldata agentURI, address to) external returns (uint256 agentId) {
        forwardTo = to;
        agentId = identity.register(agentURI);
        forwardTo = address(0);
    }

    /// @notice The ids received, in the order their mints called back.
    function received() external view returns (uint256[] memory) {
        return _received;
    }

    /// @inheritdoc IERC721Receiver
    function onERC721Received(address, address, uint256 tokenId, bytes calldata) external returns (bytes4) {
        _received.push(tokenId);
        if (forwardTo != address(0)) {
            IERC721(msg.sender).transferFrom(address(this), forwardTo, tokenId);
        } else if (reentriesLeft != 0) {
            --reentriesLeft;
            identity.register("reentered");
        }
        return IERC721Receiver.onERC721Received.selector;
    }
}
