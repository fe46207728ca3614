// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../contracts/interfaces/IPaymentEscrow.sol";
import {IResourceRegistry} from "../../contracts/interfaces/IResourceRegistry.sol";

/// @notice The EIP-712 digests our keys sign in Solidity tests, built here from the standard rather than read from
/// the contracts (EscrowDigest.t.sol checks them against the escrow's own `hashDebitAuthorization`).
library Signatures {
    bytes32 internal constant DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 internal constant DEBIT_AUTHORIZATION_TYPEHASH = keccak256(
        "DebitAuthorization(address buyer,bytes32 resourceId,uint256 maxAmount,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant REGISTER_RESOURCE_TYPEHASH = keccak256(
        "RegisterResource(address creator,string slug,address payout,string category,uint128 base,uint128 perKB,uint128 max,uint256 deadline)"
    );
    /// @dev The secp256k1 group order: (r, n - s) with the other v is the malleable twin of (r, s).
    uint256 internal constant SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141;

    /// @notice The digest a buyer signs for `a` at the escrow `escrow` (domain "ServiceEscrow", "1").
    function debitDigest(address escrow, IPaymentEscrow.DebitAuthorization memory a) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                DEBIT_AUTHORIZATION_TYPEHASH,
                a.buyer,
                a.resourceId,
                a.maxAmount,
                a.validAfter,
                a.validBefore,
                a.nonce
            )
        );
        return typedData(domainSeparator("ServiceEscrow", "1", escrow), structHash);
    }

    /// @notice The digest a creator signs for `registerFor` at the registry `registry` (domain "ResourceRegistry", "1").
    function registrationDigest(
        address registry,
        address creator,
        IResourceRegistry.Registration memory r,
        uint256 deadline
    ) internal view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                REGISTER_RESOURCE_TYPEHASH,
                creator,
                keccak256(bytes(r.slug)),
                r.payout,
                keccak256(bytes(r.category)),
                r.pricing.base,
                r.pricing.perKB,
                r.pricing.max,
                deadline
            )
        );
        return typedData(domainSeparator("ResourceRegistry", "1", registry), structHash);
    }

    /// @notice The digest of an EIP-3009 authorization (`typeHash`: transfer or receive) under the token's domain.
    function authorizationDigest(
        bytes32 tokenDomainSeparator,
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce
    ) internal pure returns (bytes32) {
        return
            typedData(
                tokenDomainSeparator,
                keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce))
            );
    }

    function domainSeparator(
        string memory name,
        string memory version,
        address verifyingContract
    ) internal view returns (bytes32) {
        return
            keccak256(
                abi.encode(
                    DOMAIN_TYPEHASH,
                    keccak256(bytes(name)),
                    keccak256(bytes(version)),
                    block.chainid,
                    verifyingContract
                )
            );
    }

    function typedData(bytes32 separator, bytes32 structHash) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", separator, structHash));
    }
}
