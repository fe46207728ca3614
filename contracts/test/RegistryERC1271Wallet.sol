// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// A test wallet forwards arbitrary calls to the registry as its owner asks.
// solhint-disable avoid-low-level-calls

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Test-only ERC-1271 contract wallet
/// @notice Accepts a signature when it recovers to `owner` (unless `rejectAll` is set), can hold ERC-721
/// identities, and lets its owner make arbitrary calls, so that it can register agents and resources.
contract RegistryERC1271Wallet is IERC1271, IERC721Receiver {
    error NotWalletOwner(address caller);
    error CallFailed(bytes reason);

    address public immutable owner;
    bool public rejectAll;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Makes every signature invalid (or valid again), to test rejection by a contract signer.
    function setRejectAll(bool rejectAll_) external {
        if (msg.sender != owner) revert NotWalletOwner(msg.sender);
        rejectAll = rejectAll_;
    }

    /// @notice Calls `target` with `data` as this wallet. Owner only.
    function execute(address target, bytes calldata data) external returns (bytes memory result) {
        if (msg.sender != owner) revert NotWalletOwner(msg.sender);
        bool ok;
        (ok, result) = target.call(data);
        if (!ok) revert CallFailed(result);
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4) {
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        if (!rejectAll && err == ECDSA.RecoverError.NoError && recovered == owner)
            return IERC1271.isValidSignature.selector;
        return 0xffffffff;
    }

    /// @inheritdoc IERC721Receiver
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return IERC721Receiver.onERC721Received.selector;
    }
}
