// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Errors of the local test stablecoin
interface ITestStablecoin {
    /// @param authorizer The signer of the authorization.
    /// @param nonce The authorization nonce that was already used or cancelled.
    error AuthorizationAlreadyUsed(address authorizer, bytes32 nonce);

    /// @param validAfter The first instant the authorization may be used, exclusive.
    /// @param now_ The block timestamp.
    error AuthorizationNotYetValid(uint256 validAfter, uint256 now_);

    /// @param validBefore The instant from which the authorization is expired.
    /// @param now_ The block timestamp.
    error AuthorizationExpired(uint256 validBefore, uint256 now_);

    /// @param authorizer The account the signature should come from.
    error InvalidAuthorizationSignature(address authorizer);

    /// @param caller The account that submitted a receive authorization.
    /// @param payee The account the authorization pays, which alone may submit it.
    error CallerMustBePayee(address caller, address payee);

    /// @param deadline The permit deadline that has passed.
    error PermitExpired(uint256 deadline);

    /// @param owner The owner whose signature it should be.
    error InvalidPermitSignature(address owner);
}
