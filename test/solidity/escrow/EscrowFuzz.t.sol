// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../../contracts/interfaces/IPaymentEscrow.sol";
import {Signatures} from "../Signatures.sol";
import {EscrowActors} from "./EscrowActors.sol";

/// @notice Stateless fuzz tests of the escrow: the digests the invariant handler signs are the contracts' own, and
/// a bitmap nonce spends exactly its own bit whatever words come first.
contract EscrowFuzz is EscrowActors {
    function setUp() public {
        mint(buyers[0], 1_000_000);
        vm.startPrank(buyers[0]);
        token.approve(escrow, 1_000_000);
        escrowContract.deposit(1_000_000);
        vm.stopPrank();
    }

    function testFuzz_debitDigestIsTheEscrows(IPaymentEscrow.DebitAuthorization memory a) public view {
        vm.assertEq(Signatures.debitDigest(escrow, a), escrowContract.hashDebitAuthorization(a), "digest");
    }

    function test_tokenDomainIsUSDCVersion2() public view {
        vm.assertEq(Signatures.domainSeparator("USDC", "2", address(token)), token.DOMAIN_SEPARATOR(), "domain");
    }

    /// @notice Two bitmap nonces spent in either order (any words, any bits) leave exactly those two spent: a
    /// third index, and the tagged look-alike of each (a non-zero middle byte), stay unspent.
    function testFuzz_bitmapNonceSpendsOnlyItsBit(uint32 first, uint32 second, uint32 other) public {
        vm.assume(first != second);
        _debit(_bitmap(first));
        _debit(_bitmap(second));
        vm.assertTrue(escrowContract.nonceUsed(buyers[0], _bitmap(first)), "first spent");
        vm.assertTrue(escrowContract.nonceUsed(buyers[0], _bitmap(second)), "second spent");
        bool spent = other == first || other == second;
        vm.assertEq(escrowContract.nonceUsed(buyers[0], _bitmap(other)), spent, "other");
        bytes32 lookAlike = bytes32(uint256(_bitmap(first)) | (1 << 200));
        vm.assertFalse(escrowContract.nonceUsed(buyers[0], lookAlike), "look-alike");
        _debit(lookAlike);
        vm.assertTrue(escrowContract.nonceUsed(buyers[0], lookAlike), "look-alike spent");
    }

    function _bitmap(uint32 index) private pure returns (bytes32) {
        return bytes32((uint256(uint32(BITMAP_NONCE_TAG)) << 224) | index);
    }

    function _debit(bytes32 nonce) private {
        IPaymentEscrow.Debit memory d;
        d.authorization = IPaymentEscrow.DebitAuthorization({
            buyer: buyers[0],
            resourceId: resources[0],
            maxAmount: 1,
            validAfter: block.timestamp,
            validBefore: block.timestamp + 1,
            nonce: nonce
        });
        d.amount = 1;
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(keyOf[buyers[0]], Signatures.debitDigest(escrow, d.authorization));
        d.signature = abi.encodePacked(r, s, v);
        vm.prank(relayer);
        escrowContract.debit(d);
    }
}
