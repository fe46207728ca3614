// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// The empty loop body is the point: it burns gas.
// solhint-disable no-empty-blocks

/// @title Test wallet whose ERC-1271 check burns every unit of gas it is given
/// @notice Models a contract buyer that griefs the relayer: unbounded, its check would take 63/64 of the gas left
/// in a batch and make the items after it run out of gas.
contract GasBurningERC1271Wallet {
    /// @notice Never returns: loops until the gas it was forwarded is gone.
    function isValidSignature(bytes32, bytes memory) external view returns (bytes4) {
        while (gasleft() > 0) {}
        return 0x1626ba7e;
    }
}
