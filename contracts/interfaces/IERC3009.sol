// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title EIP-3009: transfer with authorization
/// @notice The subset of EIP-3009 that USDC (FiatTokenV2_2) exposes, with `bytes` signatures so that
/// contract wallets (ERC-1271) can sign. The escrow and the registry depend on nothing else.
interface IERC3009 {
    /// @notice An authorization was used.
    /// @param authorizer The account whose funds moved.
    /// @param nonce The authorization's unique nonce.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    /// @notice An authorization was cancelled before use.
    /// @param authorizer The account that cancelled.
    /// @param nonce The authorization's unique nonce.
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    /// @notice Whether `nonce` of `authorizer` has been used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);

    /// @notice Moves `value` from `from` to `to` with `from`'s signed authorization; anyone may submit.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;

    /// @notice Like `transferWithAuthorization`, but only `to` may submit: it cannot be front-run.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;

    /// @notice Cancels an unused authorization.
    function cancelAuthorization(address authorizer, bytes32 nonce, bytes memory signature) external;
}
