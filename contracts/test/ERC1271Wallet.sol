// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// A test wallet's only revert needs no ABI.
// solhint-disable gas-custom-errors

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Test smart-contract wallet
/// @notice Accepts, through ERC-1271, any digest signed by its owner's key in 65 bytes (r, s, v), the form most
/// wallets check, and, with an empty signature, a digest its owner approved on chain (as a Safe does for the
/// messages it signed): a contract buyer for the escrow. A 64-byte EIP-2098 signature is refused, so a test can tell
/// that the escrow showed it the bytes the owner made.
contract ERC1271Wallet is IERC1271 {
    address public immutable owner;
    mapping(bytes32 hash => bool) public approved;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Approves `hash`, so that an empty signature stands for it. Owner only.
    function approve(bytes32 hash) external {
        require(msg.sender == owner, "owner only");
        approved[hash] = true;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4) {
        if (signature.length == 0) return approved[hash] ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
        if (signature.length != 65) return bytes4(0xffffffff);
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return
            err == ECDSA.RecoverError.NoError && recovered == owner
                ? IERC1271.isValidSignature.selector
                : bytes4(0xffffffff);
    }
}
