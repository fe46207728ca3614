// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// The empty loop body is the point: it burns the gas the check is meant to cost.
// solhint-disable no-empty-blocks

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Test wallet whose honest ERC-1271 check costs a set amount of gas
/// @notice Accepts its owner's 65-byte signature, like ERC1271Wallet, after burning `burn` gas: a contract buyer whose
/// check is legitimate but expensive (a multisig, a passkey verifier). With `burn` near the escrow's ERC1271_GAS_LIMIT
/// it is valid on chain; above it, the escrow's bounded call runs out of gas and the debit is skipped. Given less than
/// `burn` (a transaction short of gas), it runs out of gas.
contract CostlyERC1271Wallet is IERC1271 {
    address public immutable owner;
    uint256 public immutable burn;

    constructor(address owner_, uint256 burn_) {
        owner = owner_;
        burn = burn_;
    }

    /// @inheritdoc IERC1271
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4) {
        // Burns until `burn` is spent, or until the gas it was given runs out, as real work would.
        uint256 start = gasleft();
        while (start - gasleft() < burn) {}
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return
            err == ECDSA.RecoverError.NoError && recovered == owner
                ? IERC1271.isValidSignature.selector
                : bytes4(0xffffffff);
    }
}
