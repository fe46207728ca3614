// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IPaymentEscrow} from "../../../contracts/interfaces/IPaymentEscrow.sol";
import {IResourceRegistry} from "../../../contracts/interfaces/IResourceRegistry.sol";
import {Signatures} from "../Signatures.sol";
import {Stack} from "../Stack.sol";
import {Vm} from "../Test.sol";
import {IEscrow} from "./IEscrow.sol";

/// @notice The cast of the escrow's invariant tests and how they write debits: three buyers with keys and a contract
/// wallet (ERC-1271) buyer, three resources of two creators with their payouts, two treasuries, a pool of nonces of
/// every shape the escrow keeps, and debits drawn from a seed, signed, packed and read back from the logs.
abstract contract EscrowActors is Stack {
    /// @notice How a drawn debit is broken on purpose (at most one way); `None` and above leave it valid.
    enum Fault {
        NotYetValid,
        Expired,
        OverMax,
        ZeroAmount,
        UnknownResource,
        WrongSigner,
        MalleableSignature,
        ShortSignature,
        None
    }

    /// @notice A debit's outcome as the chain reports it: debited, or refused with the escrow's custom error.
    struct Outcome {
        bool debited;
        bytes reason;
    }

    /// @notice One entry of a `BatchDebited` log.
    struct Entry {
        bytes32 resourceId;
        uint16 feeBps;
        address buyer;
        bytes32 nonce;
        uint256 amount;
    }

    /// @notice One `DebitSkipped` log.
    struct Skip {
        bytes32 resourceId;
        address buyer;
        bytes32 nonce;
        bytes reason;
    }

    uint256 internal constant BUYERS = 4;
    uint256 internal constant RESOURCES = 3;
    uint256 internal constant PAYOUTS = 3;
    /// @dev Nonces per buyer: 24 bitmap nonces over four words (one far above the others), 8 random, 4 that carry
    /// the bitmap tag but are not bitmap nonces (a non-zero middle byte; same index as a bitmap nonce), 6 `exact`
    /// nonces bound to a resource (two per resource). Debits draw from the first 36; `exact` payments from all.
    uint256 internal constant POOL = 42;
    uint256 internal constant DEBIT_POOL = 36;
    bytes4 internal constant BITMAP_NONCE_TAG = bytes4(keccak256("ServiceEscrow.bitmapNonce"));
    bytes4 internal constant EXACT_NONCE_TAG = bytes4(keccak256("ServiceEscrow.exact.resource"));
    uint256 internal constant STRANGER_KEY = 0x5157;

    IEscrow internal escrowContract;
    address[BUYERS] internal buyers;
    mapping(address buyer => uint256 key) internal keyOf;
    address internal wallet;
    address internal walletOwner;
    bytes32[RESOURCES] internal resources;
    address[RESOURCES] internal creatorOf;
    address[PAYOUTS] internal payouts;
    address[2] internal treasuries;
    bytes32 internal constant UNKNOWN_RESOURCE = keccak256("unknown resource");

    constructor() {
        vm.warp(1_700_000_000);
        deployStack(0);
        escrowContract = IEscrow(escrow);
        for (uint256 i; i < 3; ++i) {
            keyOf[buyers[i] = vm.addr(0xB0001 + i)] = 0xB0001 + i;
        }
        walletOwner = vm.addr(0xB0004);
        wallet = deployArtifact("ERC1271Wallet.sol:ERC1271Wallet", abi.encode(walletOwner));
        buyers[3] = wallet;
        keyOf[wallet] = 0xB0004;
        treasuries = [treasury, _named("second treasury")];
        address[2] memory creators = [_named("creator A"), _named("creator B")];
        for (uint256 i; i < RESOURCES; ++i) {
            payouts[i] = _named(string.concat("payout ", vm.toString(i)));
            creatorOf[i] = creators[i / 2];
            resources[i] = _register(creatorOf[i], string.concat("resource-", vm.toString(i)), payouts[i]);
        }
    }

    // ------------------------------------------------------------ nonces

    /// @notice The `p`-th nonce of the pool (the same for every buyer).
    function poolNonce(uint256 p) internal view returns (bytes32) {
        if (p < 24) return bitmapNonce(p);
        if (p < 32) return keccak256(abi.encode("random nonce", p));
        if (p < 36) return bytes32(uint256(bitmapNonce(p - 32)) | (1 << 100));
        bytes32 resourceId = resources[(p - 36) % RESOURCES];
        return
            bytes32(
                bytes.concat(EXACT_NONCE_TAG, bytes12(resourceId), bytes16(keccak256(abi.encode("exact nonce", p))))
            );
    }

    /// @notice A bitmap nonce: the tag, 24 zero bytes, the index word * 96 + bit.
    function bitmapNonce(uint256 p) internal pure returns (bytes32) {
        uint32[4] memory words = [uint32(0), 1, 2, 44_000_000];
        uint8[6] memory bits = [0, 1, 95, 47, 48, 94];
        uint256 index = uint256(words[p % 4]) * 96 + bits[p / 4];
        return bytes32((uint256(uint32(BITMAP_NONCE_TAG)) << 224) | index);
    }

    // ------------------------------------------------------------ debits

    /// @notice A debit drawn from `seed` at the current time, signed by its buyer's key (or broken as the draw says:
    /// `broken`); `fits` says whether the compact encoding can carry it.
    function drawDebit(uint256 seed) internal returns (IPaymentEscrow.Debit memory d, bool fits, bool broken) {
        uint256 r = uint256(keccak256(abi.encode(seed)));
        Fault fault = Fault(_min((r >> 8) % 32, uint256(Fault.None)));
        broken = fault != Fault.None;
        IPaymentEscrow.DebitAuthorization memory a = d.authorization;
        a.buyer = buyers[r % BUYERS];
        a.resourceId = fault == Fault.UnknownResource ? UNKNOWN_RESOURCE : resources[(r >> 16) % RESOURCES];
        a.maxAmount = bound(r >> 24, 1, 20_000_000);
        a.validAfter = block.timestamp - bound(r >> 64, 0, 3600);
        a.validBefore = block.timestamp + bound(r >> 80, 1, 3600);
        a.nonce = poolNonce(bound(r >> 96, 0, DEBIT_POOL - 1));
        d.amount = bound(r >> 128, 1, a.maxAmount);
        if (fault == Fault.NotYetValid) a.validAfter = block.timestamp + bound(r >> 64, 1, 3600);
        if (fault == Fault.Expired) a.validBefore = block.timestamp - bound(r >> 80, 0, 3600);
        if (fault == Fault.OverMax) d.amount = a.maxAmount + bound(r >> 128, 1, 1000);
        if (fault == Fault.ZeroAmount) d.amount = 0;
        bytes32 digest = Signatures.debitDigest(escrow, a);
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(fault == Fault.WrongSigner ? STRANGER_KEY : keyOf[a.buyer], digest);
        if (fault == Fault.MalleableSignature) {
            (v, s) = (v == 27 ? 28 : 27, bytes32(Signatures.SECP256K1_ORDER - uint256(s)));
        }
        d.signature = abi.encodePacked(rr, s, v);
        if (fault == Fault.ShortSignature) d.signature = abi.encodePacked(rr, s);
        if (a.buyer == wallet && fault == Fault.None && (r >> 160) % 4 == 0) {
            // A wallet may instead approve the digest on chain and send an empty signature (as a Safe does).
            vm.prank(walletOwner);
            IApprovingWallet(wallet).approve(digest);
            d.signature = "";
        }
        fits = d.signature.length == 65 && uint256(s) < 1 << 255;
    }

    /// @notice `d` in the compact encoding (IPaymentEscrow.CompactDebit), when it fits.
    function compact(IPaymentEscrow.Debit memory d) internal pure returns (IPaymentEscrow.CompactDebit memory c) {
        IPaymentEscrow.DebitAuthorization memory a = d.authorization;
        bytes memory sig = d.signature;
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(sig, 0x20))
            s := mload(add(sig, 0x40))
            v := byte(0, mload(add(sig, 0x60)))
        }
        c.buyerWindow = (a.validAfter << 208) | (a.validBefore << 160) | uint160(a.buyer);
        c.resourceId = a.resourceId;
        c.nonce = a.nonce;
        c.amounts = (a.maxAmount << 128) | d.amount;
        c.r = r;
        c.vs = bytes32((uint256(v - 27) << 255) | uint256(s));
    }

    // ------------------------------------------------------------ logs

    /// @notice Starts recording logs, dropping any recorded before.
    function startLogs() internal {
        vm.recordLogs();
        vm.getRecordedLogs();
    }

    /// @notice The escrow's `BatchDebited` entries and `DebitSkipped` logs recorded since `startLogs`, in order.
    function readLogs() internal returns (Entry[] memory entries, Skip[] memory skips) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 entryCount;
        uint256 skipCount;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != escrow) continue;
            if (logs[i].topics[0] == IPaymentEscrow.BatchDebited.selector) {
                (, bytes memory packed) = abi.decode(logs[i].data, (uint16, bytes));
                entryCount += packed.length / 68;
            } else if (logs[i].topics[0] == IPaymentEscrow.DebitSkipped.selector) {
                ++skipCount;
            }
        }
        entries = new Entry[](entryCount);
        skips = new Skip[](skipCount);
        (entryCount, skipCount) = (0, 0);
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != escrow) continue;
            if (logs[i].topics[0] == IPaymentEscrow.BatchDebited.selector) {
                (uint16 feeBps, bytes memory packed) = abi.decode(logs[i].data, (uint16, bytes));
                for (uint256 at; at < packed.length; at += 68) {
                    entries[entryCount++] = _entry(logs[i].topics[1], feeBps, packed, at);
                }
            } else if (logs[i].topics[0] == IPaymentEscrow.DebitSkipped.selector) {
                skips[skipCount++] = Skip(
                    logs[i].topics[1],
                    address(uint160(uint256(logs[i].topics[2]))),
                    logs[i].topics[3],
                    abi.decode(logs[i].data, (bytes))
                );
            }
        }
    }

    /// @notice Each item's outcome in a batch, matched in order against its entries and skips; `complete` is false
    /// when an item is in neither (or an entry or skip is left over), which no correct batch does.
    function matchOutcomes(
        IPaymentEscrow.Debit[] memory items,
        Entry[] memory entries,
        Skip[] memory skips
    ) internal pure returns (Outcome[] memory outcomes, bool complete) {
        outcomes = new Outcome[](items.length);
        (uint256 e, uint256 k) = (0, 0);
        complete = true;
        for (uint256 i; i < items.length; ++i) {
            IPaymentEscrow.DebitAuthorization memory a = items[i].authorization;
            if (
                e < entries.length &&
                entries[e].buyer == a.buyer &&
                entries[e].nonce == a.nonce &&
                entries[e].resourceId == a.resourceId &&
                entries[e].amount == items[i].amount
            ) {
                outcomes[i].debited = true;
                ++e;
            } else if (k < skips.length && skips[k].buyer == a.buyer && skips[k].nonce == a.nonce) {
                outcomes[i].reason = skips[k++].reason;
            } else {
                complete = false;
            }
        }
        if (e != entries.length || k != skips.length) complete = false;
    }

    function _entry(
        bytes32 resourceId,
        uint16 feeBps,
        bytes memory packed,
        uint256 at
    ) private pure returns (Entry memory) {
        bytes32 head;
        bytes32 nonce;
        bytes32 tail;
        assembly ("memory-safe") {
            let p := add(add(packed, 0x20), at)
            head := mload(p)
            nonce := mload(add(p, 20))
            tail := mload(add(p, 52))
        }
        return Entry(resourceId, feeBps, address(bytes20(head)), nonce, uint128(bytes16(tail)));
    }

    // ------------------------------------------------------------ set-up

    function _register(address creator, string memory slug, address payout) private returns (bytes32) {
        vm.startPrank(creator);
        uint256 agentId = identity.register();
        bytes32 resourceId = registry.register(
            IResourceRegistry.Registration({
                slug: slug,
                agentId: agentId,
                payout: payout,
                category: "test",
                pricing: IResourceRegistry.Pricing({base: 1, perKB: 0, max: 20_000_000}),
                cardURI: "",
                cardHash: bytes32(0)
            })
        );
        vm.stopPrank();
        return resourceId;
    }

    function _min(uint256 a, uint256 b) internal pure returns (uint256) {
        return a < b ? a : b;
    }
}

interface IApprovingWallet {
    function approve(bytes32 hash) external;
}
