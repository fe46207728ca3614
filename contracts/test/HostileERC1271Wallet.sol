// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// A hostile test wallet re-enters the escrow through raw calls.
// solhint-disable avoid-low-level-calls

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title Test wallet that tries to change state while its signature is checked
/// @notice `isValidSignature` is declared without `view` (same selector as ERC-1271) so that it can try to write:
/// in `Mutate` mode it writes its own storage before answering; in `Swallow` mode it tries, through low-level calls
/// whose failure it ignores, to call `target` with `payload` and to write its own storage, then answers as an
/// honest wallet would. Callers that check signatures with STATICCALL make every such write fail.
contract HostileERC1271Wallet {
    /// @notice How `isValidSignature` misbehaves: 0 = Mutate, 1 = Swallow.
    uint8 public mode;
    address public immutable owner;
    address public target;
    bytes public payload;
    /// @notice Incremented whenever a write inside `isValidSignature` got through.
    uint256 public writes;

    constructor(address owner_) {
        owner = owner_;
    }

    /// @notice Sets the misbehaviour and, for `Swallow`, the call attempted inside `isValidSignature`.
    function configure(uint8 mode_, address target_, bytes calldata payload_) external {
        mode = mode_;
        target = target_;
        payload = payload_;
    }

    /// @notice Calls `to` with `data` as this wallet (e.g. to request a withdrawal from the escrow).
    function execute(address to, bytes calldata data) external returns (bytes memory) {
        (bool ok, bytes memory ret) = to.call(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
        return ret;
    }

    /// @notice Writes storage; called by the wallet itself inside `isValidSignature`.
    function bump() external {
        ++writes;
    }

    /// @notice ERC-1271 answer for digests signed by `owner`, after trying to change state.
    function isValidSignature(bytes32 hash, bytes memory signature) external returns (bytes4) {
        if (mode == 0) {
            ++writes;
        } else {
            // Bounded gas: a write in a static context consumes all the gas it is given.
            (bool ok, ) = target.call{gas: 100_000}(payload);
            (bool bumped, ) = address(this).call{gas: 50_000}(abi.encodeCall(this.bump, ()));
            ok;
            bumped;
        }
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(hash, signature);
        return
            err == ECDSA.RecoverError.NoError && recovered == owner
                ? IERC1271.isValidSignature.selector
                : bytes4(0xffffffff);
    }
}
