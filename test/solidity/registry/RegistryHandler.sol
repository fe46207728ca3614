// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IResourceRegistry} from "../../../contracts/interfaces/IResourceRegistry.sol";
import {Signatures} from "../Signatures.sol";
import {Stack} from "../Stack.sol";
import {IRegistry} from "./IRegistry.sol";

/// @notice What the invariant fuzzer calls on the registry: registration (`register`, paying `minBond`, and
/// `registerFor`, on the creator's signature with its bond authorization), bonds (`postBond`,
/// `postBondWithAuthorization`, also replayed for another resource or from another creator), deactivation and
/// reactivation, bond withdrawal (which retires), strikes from a pool of (buyer, nonce) pairs in which buyers share
/// nonces, the strike policy (also out of bounds), the treasury, and time. Each action records what the chain reports
/// into a model of every resource, and counts each outcome that breaks a property; RegistryInvariants.t.sol checks
/// them (R1..R7, docs/audit/invariants.md). No action reverts.
contract RegistryHandler is Stack {
    /// @notice A resource as the model keeps it.
    struct Model {
        address creator;
        bool active;
        bool retired;
        uint32 strikes;
        uint40 deactivatedAt;
        uint40 slashedAt;
        uint256 bond;
    }

    uint256 private constant CREATORS = 2;
    uint256 private constant SLUGS = 4;
    uint256 internal constant STRIKE_BUYERS = 3;
    uint256 internal constant STRIKE_NONCES = 4;
    uint256 private constant SLASH_INTERVAL = 1 days;
    uint256 private constant MIN_BOND = 1_000_000;

    IRegistry internal registryContract;
    address[CREATORS] internal creators;
    mapping(address creator => uint256 key) internal keyOf;
    bytes32[] public resources;
    mapping(bytes32 resourceId => Model) private _model;

    // The model's strike policy and treasury, and the strikes recorded.
    uint32 public strikeThreshold = STRIKE_THRESHOLD;
    uint16 public slashBps = SLASH_BPS;
    uint256 public minBond = MIN_BOND;
    address public currentTreasury = treasury;
    mapping(address treasury => uint256) public slashedTo;
    mapping(bytes32 strikeKey => bool) public struck;

    // Outcomes that break a property.
    uint256 public retiredReactivated; // R2
    uint256 public strikesTwice; // R3
    uint256 public strikesWronglyRefused; // R3
    uint256 public wrongWithdrawals; // R5
    uint256 public bondsMisbound; // R6
    uint256 public policiesOutOfBounds; // R7
    uint256 public strangerActions; // R8

    // How often the paths that matter succeeded, so that a run shows what it reached.
    uint256 public slashes;
    uint256 public withdrawals;

    uint256 private _authorizations;

    constructor() {
        vm.warp(1_700_000_000);
        deployStack(MIN_BOND);
        registryContract = IRegistry(address(registry));
        for (uint256 i; i < CREATORS; ++i) {
            keyOf[creators[i] = vm.addr(0xC0001 + i)] = 0xC0001 + i;
        }
    }

    // ------------------------------------------------------------ registration

    /// @notice Registers slug `slugSeed % 4` of a creator, through `register` (paying `minBond`) or `registerFor` (the
    /// publisher submits the creator's signature and bond authorization of up to 5 USDC above `minBond`).
    function register(uint256 creatorSeed, uint256 slugSeed, uint256 extra) external {
        address creator = creators[creatorSeed % CREATORS];
        vm.prank(creator);
        uint256 agentId = identity.register();
        IResourceRegistry.Registration memory r = IResourceRegistry.Registration({
            slug: string.concat("r", vm.toString(slugSeed % SLUGS)),
            agentId: agentId,
            payout: _named("payout"),
            category: "test",
            pricing: IResourceRegistry.Pricing({base: 1, perKB: 0, max: 1000}),
            cardURI: "",
            cardHash: bytes32(0)
        });
        bytes32 resourceId = keccak256(abi.encode(creator, r.slug));
        uint256 bond = minBond;
        bool ok;
        if (extra % 2 == 0) {
            mint(creator, bond);
            vm.startPrank(creator);
            token.approve(address(registry), bond);
            try registryContract.register(r) returns (bytes32 id) {
                ok = id == resourceId;
            } catch {}
            vm.stopPrank();
        } else {
            bond += bound(extra >> 8, 0, 5_000_000);
            ok = _registerFor(creator, r, resourceId, bond);
        }
        if (!ok) return;
        resources.push(resourceId);
        _model[resourceId] = Model({
            creator: creator,
            active: true,
            retired: false,
            strikes: 0,
            deactivatedAt: 0,
            slashedAt: 0,
            bond: bond
        });
    }

    // ------------------------------------------------------------ bonds

    /// @notice Anyone posts up to 10 USDC of bond.
    function postBond(uint256 resourceSeed, uint256 amount) external {
        if (resources.length == 0) return;
        bytes32 resourceId = _resource(resourceSeed);
        amount = bound(amount, 1, 10_000_000);
        address funder = _named("funder");
        mint(funder, amount);
        vm.startPrank(funder);
        token.approve(address(registry), amount);
        try registryContract.postBond(resourceId, amount) {
            _model[resourceId].bond += amount;
        } catch {}
        vm.stopPrank();
    }

    /// @notice The creator's ReceiveWithAuthorization, submitted by an operator: for its resource, or (one in four)
    /// replayed for another resource of that creator, or (one in four) signed by another creator. Only the first may
    /// bond anything.
    function postBondWithAuthorization(uint256 resourceSeed, uint256 value, uint256 how) external {
        if (resources.length == 0) return;
        bytes32 resourceId = _resource(resourceSeed);
        bytes32 signedFor = how % 4 == 1 ? _resource(resourceSeed >> 8) : resourceId;
        address from = how % 4 == 2 ? creators[(resourceSeed >> 16) % CREATORS] : _model[resourceId].creator;
        bool legitimate = signedFor == resourceId && from == _model[resourceId].creator;
        value = bound(value, 1, 10_000_000);
        mint(from, value);
        bytes32 nonce = _bondNonce(signedFor);
        uint256 validBefore = block.timestamp + 1 hours;
        bytes memory signature = _signReceive(from, value, validBefore, nonce);
        vm.prank(_named("operator"));
        try registryContract.postBondWithAuthorization(resourceId, from, value, 0, validBefore, nonce, signature) {
            if (!legitimate) ++bondsMisbound;
            _model[resourceId].bond += value;
        } catch {}
    }

    /// @notice The creator withdraws the bond now, or first lets time pass to the second before it unlocks, or
    /// deactivates the resource (if active) and lets time pass until the bond unlocks.
    function withdrawBond(uint256 resourceSeed, uint256 timing) external {
        if (resources.length == 0) return;
        bytes32 resourceId = _resource(resourceSeed);
        Model storage m = _model[resourceId];
        if (m.active && timing % 3 == 2) _deactivate(resourceId);
        if (!m.active && timing % 3 != 0) {
            uint256 unlocksAt = uint256(m.deactivatedAt) + BOND_WITHDRAWAL_DELAY;
            if (unlocksAt > block.timestamp + 1) vm.warp(timing % 3 == 1 ? unlocksAt - 1 : unlocksAt);
        }
        uint256 before = token.balanceOf(m.creator);
        vm.prank(m.creator);
        try registryContract.withdrawBond(resourceId) returns (uint256 amount) {
            bool due = !m.active && block.timestamp >= uint256(m.deactivatedAt) + BOND_WITHDRAWAL_DELAY;
            if (!due || amount != m.bond || token.balanceOf(m.creator) - before != amount) ++wrongWithdrawals;
            (m.bond, m.retired) = (0, true);
            ++withdrawals;
        } catch {}
    }

    // ------------------------------------------------------------ activity

    function deactivate(uint256 resourceSeed) external {
        if (resources.length == 0) return;
        _deactivate(_resource(resourceSeed));
    }

    /// @notice The creator reactivates, first (one in two) posting what the bond lacks of `minBond`, as a creator
    /// would: so a retired resource meets everything but the rule that it stays retired.
    function reactivate(uint256 resourceSeed, uint256 topUp) external {
        if (resources.length == 0) return;
        bytes32 resourceId = _resource(resourceSeed);
        Model storage m = _model[resourceId];
        if (topUp % 2 == 0 && m.bond < minBond) {
            uint256 lacking = minBond - m.bond;
            mint(m.creator, lacking);
            vm.startPrank(m.creator);
            token.approve(address(registry), lacking);
            registryContract.postBond(resourceId, lacking);
            vm.stopPrank();
            m.bond += lacking;
        }
        vm.prank(m.creator);
        try registryContract.reactivate(resourceId) {
            if (m.retired) ++retiredReactivated;
            (m.active, m.deactivatedAt) = (true, 0);
        } catch {}
    }

    // ------------------------------------------------------------ strikes, policy

    /// @notice The facilitator strikes a failed call, named by its buyer and payment nonce: three buyers share four
    /// nonces, so one nonce of two buyers is two calls.
    function recordStrike(uint256 resourceSeed, uint256 buyerSeed, uint256 nonceSeed) external {
        if (resources.length == 0) return;
        bytes32 resourceId = _resource(resourceSeed);
        (address buyer, bytes32 nonce) = strikeAt(buyerSeed % STRIKE_BUYERS, nonceSeed % STRIKE_NONCES);
        bytes32 key = keccak256(abi.encode(buyer, nonce));
        vm.prank(facilitator);
        try registryContract.recordStrike(resourceId, buyer, nonce, "timeout") {
            if (struck[key]) ++strikesTwice;
            struck[key] = true;
            _strike(resourceId);
        } catch (bytes memory reason) {
            if (bytes4(reason) == IResourceRegistry.StrikeAlreadyRecorded.selector && !struck[key]) {
                ++strikesWronglyRefused;
            }
        }
    }

    /// @notice Sets a policy of 1 to 6 strikes, a slash of up to 70% and a bond of up to 3 USDC; below 3 strikes or
    /// above 50% is out of bounds and must be refused.
    function setStrikePolicy(uint256 threshold, uint256 bps, uint256 bond) external {
        uint32 t = uint32(bound(threshold, 1, 6));
        uint16 b = uint16(bound(bps, 0, 7_000));
        bond = bound(bond, 0, 3_000_000);
        vm.prank(admin);
        try registryContract.setStrikePolicy(t, b, bond) {
            if (t < 3 || b > 5_000) ++policiesOutOfBounds;
            (strikeThreshold, slashBps, minBond) = (t, b, bond);
        } catch {}
    }

    function setTreasury(uint256 seed) external {
        address next = seed % 2 == 0 ? treasury : _named("second treasury");
        vm.prank(admin);
        try registryContract.setTreasury(next) {
            currentTreasury = next;
        } catch {}
    }

    /// @notice Someone who is neither the resource's creator nor a role holder calls what only they may: strike,
    /// strike policy, treasury, and the creator's deactivate, reactivate, withdrawBond, updateCard and setPayout,
    /// with arguments that would pass for them. The chain must refuse every one (R8).
    function strangerCalls(uint256 resourceSeed, uint256 pick) external {
        address stranger = _named("stranger");
        bytes32 resourceId = resources.length == 0 ? bytes32(0) : _resource(resourceSeed);
        (address buyer, bytes32 nonce) = strikeAt(pick % STRIKE_BUYERS, (pick >> 8) % STRIKE_NONCES);
        bytes[8] memory calls = [
            abi.encodeCall(registryContract.recordStrike, (resourceId, buyer, nonce, "timeout")),
            abi.encodeCall(registryContract.setStrikePolicy, (strikeThreshold, slashBps, minBond)),
            abi.encodeCall(registryContract.setTreasury, (stranger)),
            abi.encodeCall(registryContract.deactivate, (resourceId)),
            abi.encodeCall(registryContract.reactivate, (resourceId)),
            abi.encodeCall(registryContract.withdrawBond, (resourceId)),
            abi.encodeCall(registryContract.updateCard, (resourceId, "https://stranger.example", bytes32(0))),
            abi.encodeCall(registryContract.setPayout, (resourceId, stranger))
        ];
        vm.prank(stranger);
        (bool accepted, ) = address(registry).call(calls[pick % 8]);
        if (accepted) ++strangerActions;
    }

    /// @notice Lets time pass: up to eight days, or to a deadline ahead (a bond's unlock, the end of a slash interval)
    /// or the second before it.
    function warp(uint256 seed) external {
        uint256 to = block.timestamp + bound(seed >> 8, 0, 8 days);
        if (seed % 2 == 1 && resources.length != 0) {
            Model memory m = _model[_resource(seed >> 64)];
            uint256 deadline =
                seed % 4 == 1
                    ? uint256(m.deactivatedAt) + BOND_WITHDRAWAL_DELAY
                    : uint256(m.slashedAt) + SLASH_INTERVAL;
            if (deadline > block.timestamp + 1) to = deadline - ((seed >> 72) % 2);
        }
        vm.warp(to);
        vm.roll(block.number + 1);
    }

    // ------------------------------------------------------------ reads for the invariants

    function registryUnderTest() external view returns (IRegistry, IERC20) {
        return (registryContract, token);
    }

    function resourceCount() external view returns (uint256) {
        return resources.length;
    }

    function modelOf(bytes32 resourceId) external view returns (Model memory) {
        return _model[resourceId];
    }

    function treasuries() external view returns (address[2] memory) {
        return [treasury, _named("second treasury")];
    }

    /// @notice The (buyer, nonce) of strike pool entry (`b`, `n`).
    function strikeAt(uint256 b, uint256 n) public pure returns (address, bytes32) {
        return (_named(string.concat("strike buyer ", _digit(b))), bytes32(n));
    }

    // ------------------------------------------------------------ internals

    function _deactivate(bytes32 resourceId) private {
        Model storage m = _model[resourceId];
        vm.prank(m.creator);
        try registryContract.deactivate(resourceId) {
            (m.active, m.deactivatedAt) = (false, uint40(block.timestamp));
        } catch {}
    }

    /// @notice A strike the chain recorded, as the policy says: at the threshold, and a slash interval after the
    /// last slash, a `slashBps` share of the bond goes to the treasury, the count restarts and the resource stops.
    function _strike(bytes32 resourceId) private {
        Model storage m = _model[resourceId];
        uint32 strikes = m.strikes + 1;
        if (strikes < strikeThreshold || block.timestamp < uint256(m.slashedAt) + SLASH_INTERVAL) {
            m.strikes = strikes;
            return;
        }
        uint256 slashed = (m.bond * slashBps) / 10_000;
        (m.strikes, m.slashedAt, m.bond) = (0, uint40(block.timestamp), m.bond - slashed);
        slashedTo[currentTreasury] += slashed;
        if (m.active) (m.active, m.deactivatedAt) = (false, uint40(block.timestamp));
        ++slashes;
    }

    function _registerFor(
        address creator,
        IResourceRegistry.Registration memory r,
        bytes32 resourceId,
        uint256 bond
    ) private returns (bool) {
        uint256 deadline = block.timestamp + 1 hours;
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(
            keyOf[creator],
            Signatures.registrationDigest(address(registry), creator, r, deadline)
        );
        bytes32 nonce = _bondNonce(resourceId);
        mint(creator, bond);
        IResourceRegistry.BondAuthorization memory authorization = IResourceRegistry.BondAuthorization({
            value: bond,
            validAfter: 0,
            validBefore: deadline,
            nonce: nonce,
            signature: _signReceive(creator, bond, deadline, nonce)
        });
        vm.prank(publisher);
        try registryContract.registerFor(creator, r, deadline, abi.encodePacked(rr, s, v), authorization) returns (
            bytes32 id
        ) {
            return id == resourceId;
        } catch {
            return false;
        }
    }

    /// @notice A fresh bond nonce bound to `resourceId`: its first 16 bytes, then 16 of the creator's own.
    function _bondNonce(bytes32 resourceId) private returns (bytes32) {
        return bytes32(bytes.concat(bytes16(resourceId), bytes16(keccak256(abi.encode(++_authorizations)))));
    }

    /// @notice `from`'s ReceiveWithAuthorization of `value` to the registry, valid from 0.
    function _signReceive(
        address from,
        uint256 value,
        uint256 validBefore,
        bytes32 nonce
    ) private view returns (bytes memory) {
        bytes32 digest = Signatures.authorizationDigest(
            token.DOMAIN_SEPARATOR(),
            Signatures.RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
            from,
            address(registry),
            value,
            0,
            validBefore,
            nonce
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(keyOf[from], digest);
        return abi.encodePacked(r, s, v);
    }

    function _resource(uint256 seed) private view returns (bytes32) {
        return resources[seed % resources.length];
    }

    function _digit(uint256 i) private pure returns (string memory) {
        return string(abi.encodePacked(bytes1(uint8(48 + (i % 10)))));
    }
}
