// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AccessControlDefaultAdminRules} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IERC3009} from "./interfaces/IERC3009.sol";
import {IResourceRegistry} from "./interfaces/IResourceRegistry.sol";

/// @title Registry of paid resources
/// @notice Binds a resource id (keccak256(abi.encode(creator, slug))) to an ERC-8004 identity owned by the
/// creator, with payout, category, pricing and card; holds bonds in the stablecoin; records strikes
/// and slashes the bond after `strikeThreshold` of them. A marketplace registers for a creator with `registerFor`,
/// on the creator's EIP-712 consent, posting the creator's own bond in the same transaction. Uses only ERC-721
/// `ownerOf` of the identity registry, so the canonical ERC-8004 deployment serves as well as ours.
/// What the privileged roles can do is bounded: a strike policy needs at least `MIN_STRIKE_THRESHOLD` strikes for a
/// slash of at most `MAX_SLASH_BPS` of the bond, a resource is slashed at most once per `SLASH_INTERVAL` however many
/// strikes FACILITATOR_ROLE sends, and the admin role moves only in two steps with a delay
/// (AccessControlDefaultAdminRules).
contract ResourceRegistry is IResourceRegistry, AccessControlDefaultAdminRules, ReentrancyGuard, EIP712 {
    using SafeERC20 for IERC20;

    bytes32 public constant FACILITATOR_ROLE = keccak256("FACILITATOR_ROLE");
    /// @notice May submit `registerFor`: the marketplaces the registry admin designates. The creator's signature cannot
    /// cover the agent id and card (they do not exist when it signs), so only a designated publisher may supply them.
    bytes32 public constant PUBLISHER_ROLE = keccak256("PUBLISHER_ROLE");
    bytes32 public constant REGISTER_RESOURCE_TYPEHASH = keccak256(
        "RegisterResource(address creator,string slug,address payout,string category,uint128 base,uint128 perKB,uint128 max,uint256 deadline)"
    );
    uint256 public constant MAX_SLUG_BYTES = 64;
    uint16 public constant BPS = 10_000;
    /// @notice The fewest strikes a policy may slash at: no single strike (nor two) costs a creator any bond.
    uint32 public constant MIN_STRIKE_THRESHOLD = 3;
    /// @notice The largest share of the bond one slash may take (half): no policy takes a whole bond at once.
    uint16 public constant MAX_SLASH_BPS = 5_000;
    /// @notice A resource is slashed at most once in this time: strikes in between count, and the first strike at or
    /// past the threshold after it slashes. It bounds what a burst of strikes (a compromised FACILITATOR_ROLE) can take
    /// to one slash, leaving the admin a day to revoke the key.
    uint256 public constant SLASH_INTERVAL = 1 days;

    IERC20 public immutable token;
    IERC721 public immutable identity;
    /// @notice Delay between deactivation and bond withdrawal, so that strikes for calls made while the
    /// resource was active can still be recorded (and slashed) after it stops.
    uint256 public immutable bondWithdrawalDelay;

    address public treasury;
    uint32 public strikeThreshold;
    uint16 public slashBps;
    uint256 public minBond;

    mapping(bytes32 resourceId => Resource) private _resources;
    mapping(uint256 agentId => bytes32 resourceId) public resourceOfAgent;
    mapping(bytes32 strikeKey => bool) public strikeRecorded;

    /// @param token_ The stablecoin bonds are posted in.
    /// @param identity_ The ERC-8004 identity registry.
    /// @param treasury_ Receives slashed bonds.
    /// @param admin Holds DEFAULT_ADMIN_ROLE, the only one to hold it.
    /// @param strikeThreshold_ Strikes that trigger a slash (>= MIN_STRIKE_THRESHOLD).
    /// @param slashBps_ Share of the bond slashed (<= MAX_SLASH_BPS).
    /// @param minBond_ Bond required to reactivate a resource.
    /// @param bondWithdrawalDelay_ Seconds from deactivation until the bond may be withdrawn.
    /// @param adminDelay Seconds a transfer of DEFAULT_ADMIN_ROLE waits between its two steps.
    constructor(
        IERC20 token_,
        IERC721 identity_,
        address treasury_,
        address admin,
        uint32 strikeThreshold_,
        uint16 slashBps_,
        uint256 minBond_,
        uint256 bondWithdrawalDelay_,
        uint48 adminDelay
    ) AccessControlDefaultAdminRules(adminDelay, admin) EIP712("ResourceRegistry", "1") {
        if (address(token_) == address(0) || address(identity_) == address(0)) revert ZeroAddress();
        token = token_;
        identity = identity_;
        bondWithdrawalDelay = bondWithdrawalDelay_;
        _setTreasury(treasury_);
        _setStrikePolicy(strikeThreshold_, slashBps_, minBond_);
    }

    // ---------------------------------------------------------------- registration

    /// @inheritdoc IResourceRegistry
    function register(Registration calldata registration) external nonReentrant returns (bytes32 resourceId) {
        resourceId = _register(msg.sender, registration);
        uint256 bond = minBond;
        if (bond == 0) return resourceId;
        _creditBond(resourceId, msg.sender, bond);
        // Interaction last: the immutable stablecoin, under nonReentrant; without the allowance nothing registers.
        token.safeTransferFrom(msg.sender, address(this), bond);
    }

    /// @inheritdoc IResourceRegistry
    function registerFor(
        address creator,
        Registration calldata registration,
        uint256 deadline,
        bytes calldata signature,
        BondAuthorization calldata bond
    ) external onlyRole(PUBLISHER_ROLE) nonReentrant returns (bytes32 resourceId) {
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        if (
            !SignatureChecker.isValidSignatureNow(creator, hashRegistration(creator, registration, deadline), signature)
        ) {
            revert InvalidCreatorSignature(creator);
        }
        resourceId = _register(creator, registration);
        if (bond.value < minBond) revert BondTooLow(resourceId, bond.value, minBond);
        if (bond.value == 0) return resourceId;
        _checkBondNonce(bond.nonce, resourceId);
        _creditBond(resourceId, creator, bond.value);
        // Interaction last (checks-effects-interactions): the token is the immutable stablecoin and this function is
        // nonReentrant; if the pull fails, the whole registration reverts with it.
        IERC3009(address(token)).receiveWithAuthorization(
            creator,
            address(this),
            bond.value,
            bond.validAfter,
            bond.validBefore,
            bond.nonce,
            bond.signature
        );
    }

    /// @notice The EIP-712 digest a creator signs for `registerFor`. It covers creator, slug, payout, category, pricing
    /// and deadline; `agentId`, `cardURI` and `cardHash` of `r` are not part of it (the submitter supplies them).
    function hashRegistration(
        address creator,
        Registration calldata r,
        uint256 deadline
    ) public view returns (bytes32) {
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
        return _hashTypedDataV4(structHash);
    }

    /// @inheritdoc IResourceRegistry
    function resourceIdOf(address creator, string calldata slug) public pure returns (bytes32) {
        return keccak256(abi.encode(creator, slug));
    }

    /// @inheritdoc IResourceRegistry
    function strikeKeyOf(address buyer, bytes32 nonce) public pure returns (bytes32) {
        return keccak256(abi.encode(buyer, nonce));
    }

    function _register(address creator, Registration calldata r) private returns (bytes32 resourceId) {
        uint256 slugLength = bytes(r.slug).length;
        if (slugLength == 0 || slugLength > MAX_SLUG_BYTES) revert InvalidSlug(r.slug);
        if (r.payout == address(0)) revert ZeroAddress();
        _checkPricing(r.pricing);
        resourceId = resourceIdOf(creator, r.slug);
        if (_resources[resourceId].creator != address(0)) revert ResourceExists(resourceId);
        address owner = identity.ownerOf(r.agentId);
        if (owner != creator) revert NotAgentOwner(r.agentId, creator, owner);
        bytes32 bound = resourceOfAgent[r.agentId];
        if (bound != bytes32(0)) revert AgentAlreadyBound(r.agentId, bound);

        Resource storage res = _resources[resourceId];
        res.creator = creator;
        res.active = true;
        res.payout = r.payout;
        res.agentId = r.agentId;
        res.pricing = r.pricing;
        res.slug = r.slug;
        res.category = r.category;
        res.cardURI = r.cardURI;
        res.cardHash = r.cardHash;
        resourceOfAgent[r.agentId] = resourceId;
        _emitRegistered(resourceId, creator, r);
    }

    function _emitRegistered(bytes32 resourceId, address creator, Registration calldata r) private {
        emit ResourceRegistered(
            resourceId,
            creator,
            r.agentId,
            r.slug,
            r.payout,
            r.category,
            r.pricing,
            r.cardURI,
            r.cardHash
        );
    }

    // ---------------------------------------------------------------- creator updates

    /// @notice Changes the metered price terms. Creator only.
    function updatePricing(bytes32 resourceId, Pricing calldata pricing) external {
        Resource storage res = _onlyCreator(resourceId);
        _checkPricing(pricing);
        res.pricing = pricing;
        emit PricingUpdated(resourceId, pricing);
    }

    /// @notice Points the resource at a new card. Creator only.
    function updateCard(bytes32 resourceId, string calldata cardURI, bytes32 cardHash) external {
        Resource storage res = _onlyCreator(resourceId);
        res.cardURI = cardURI;
        res.cardHash = cardHash;
        emit CardUpdated(resourceId, cardURI, cardHash);
    }

    /// @notice Changes where the creator's share is credited. Creator only.
    function setPayout(bytes32 resourceId, address payout) external {
        Resource storage res = _onlyCreator(resourceId);
        if (payout == address(0)) revert ZeroAddress();
        res.payout = payout;
        emit PayoutUpdated(resourceId, payout);
    }

    /// @notice Stops debits to the resource and starts the bond withdrawal delay. Creator only.
    function deactivate(bytes32 resourceId) external {
        Resource storage res = _onlyCreator(resourceId);
        if (!res.active) revert ResourceInactive(resourceId);
        _deactivate(resourceId, res, msg.sender);
    }

    /// @notice Allows debits again; the bond must be at least `minBond`, and the bond must never have been withdrawn.
    /// Creator only.
    function reactivate(bytes32 resourceId) external {
        Resource storage res = _onlyCreator(resourceId);
        if (res.active) revert ResourceActive(resourceId);
        if (res.retired) revert ResourceRetired(resourceId);
        if (res.bond < minBond) revert BondTooLow(resourceId, res.bond, minBond);
        res.active = true;
        res.deactivatedAt = 0;
        emit ResourceReactivated(resourceId);
    }

    // ---------------------------------------------------------------- bonds

    /// @notice Posts `amount` of the caller's stablecoin (approved beforehand) as bond for the resource.
    function postBond(bytes32 resourceId, uint256 amount) external nonReentrant {
        _requireKnown(resourceId);
        if (amount == 0) revert ZeroAmount();
        token.safeTransferFrom(msg.sender, address(this), amount);
        _creditBond(resourceId, msg.sender, amount);
    }

    /// @notice Posts a bond from the creator's EIP-3009 ReceiveWithAuthorization (to = this registry), so an
    /// operator can submit it without holding the creator's funds. Whoever submits it, it bonds only the resource it
    /// was signed for.
    /// @dev The token's authorization names the registry, not the resource, so the resource is bound twice: `from` must
    /// be the resource's creator (or whoever saw it first could credit it to a resource of their own and later
    /// withdraw it), and the nonce must begin with the first 16 bytes of the resource id (or it could be credited to
    /// another resource of the same creator, and a pending `registerFor` carrying it would revert).
    function postBondWithAuthorization(
        bytes32 resourceId,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external nonReentrant {
        Resource storage res = _requireKnown(resourceId);
        if (from != res.creator) revert NotCreator(from, res.creator);
        if (value == 0) revert ZeroAmount();
        _checkBondNonce(nonce, resourceId);
        IERC3009(address(token)).receiveWithAuthorization(
            from,
            address(this),
            value,
            validAfter,
            validBefore,
            nonce,
            signature
        );
        _creditBond(resourceId, from, value);
    }

    /// @notice Returns the whole bond to the creator once the resource has been inactive for the delay, and retires
    /// the resource: it can never be reactivated, so no resource serves again without the bond it was listed with.
    function withdrawBond(bytes32 resourceId) external nonReentrant returns (uint256 amount) {
        Resource storage res = _onlyCreator(resourceId);
        if (res.active) revert ResourceActive(resourceId);
        uint256 unlocksAt = uint256(res.deactivatedAt) + bondWithdrawalDelay;
        if (block.timestamp < unlocksAt) revert BondLocked(resourceId, unlocksAt);
        amount = res.bond;
        if (amount == 0) revert ZeroAmount();
        res.bond = 0;
        res.retired = true;
        emit BondWithdrawn(resourceId, res.creator, amount);
        token.safeTransfer(res.creator, amount);
    }

    /// @dev A bond authorization bonds only the resource whose first 16 bytes begin its nonce (the other 16 are the
    /// creator's, so that one resource can take many bonds).
    function _checkBondNonce(bytes32 nonce, bytes32 resourceId) private pure {
        if (bytes16(nonce) != bytes16(resourceId)) revert BondNonceBoundToOtherResource(nonce, resourceId);
    }

    function _creditBond(bytes32 resourceId, address from, uint256 amount) private {
        Resource storage res = _resources[resourceId];
        res.bond += amount;
        emit BondPosted(resourceId, from, amount, res.bond);
    }

    // ---------------------------------------------------------------- strikes

    /// @notice Records a strike for `buyer`'s failed call with payment nonce `nonce`, once per (buyer, nonce)
    /// (`strikeKeyOf`); at `strikeThreshold` strikes a `slashBps` share of the bond goes to the treasury, the count
    /// restarts and the resource is deactivated, at most once per `SLASH_INTERVAL` (until then strikes only count).
    /// Facilitator only.
    function recordStrike(
        bytes32 resourceId,
        address buyer,
        bytes32 nonce,
        string calldata reason
    ) external onlyRole(FACILITATOR_ROLE) nonReentrant {
        Resource storage res = _requireKnown(resourceId);
        if (buyer == address(0)) revert ZeroAddress();
        bytes32 strikeKey = strikeKeyOf(buyer, nonce);
        if (strikeRecorded[strikeKey]) revert StrikeAlreadyRecorded(buyer, nonce);
        strikeRecorded[strikeKey] = true;
        uint32 strikes = res.strikes + 1;
        emit StrikeRecorded(resourceId, strikeKey, buyer, nonce, strikes, reason);
        if (strikes < strikeThreshold || block.timestamp < uint256(res.slashedAt) + SLASH_INTERVAL) {
            res.strikes = strikes;
            return;
        }
        res.strikes = 0;
        // A timestamp fits 40 bits until the year 36812.
        res.slashedAt = uint40(block.timestamp);
        uint256 slashed = (res.bond * slashBps) / BPS;
        res.bond -= slashed;
        emit BondSlashed(resourceId, slashed, res.bond);
        if (res.active) _deactivate(resourceId, res, address(this));
        if (slashed != 0) token.safeTransfer(treasury, slashed);
    }

    // ---------------------------------------------------------------- admin

    /// @notice Sets the slashing policy: at least MIN_STRIKE_THRESHOLD strikes for a slash of at most MAX_SLASH_BPS.
    /// Admin only.
    function setStrikePolicy(
        uint32 strikeThreshold_,
        uint16 slashBps_,
        uint256 minBond_
    ) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setStrikePolicy(strikeThreshold_, slashBps_, minBond_);
    }

    /// @notice Sets where slashed bonds go. Admin only.
    function setTreasury(address treasury_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setTreasury(treasury_);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IResourceRegistry
    function paymentTarget(bytes32 resourceId) external view returns (address payout, bool active) {
        Resource storage res = _resources[resourceId];
        return (res.payout, res.active);
    }

    /// @inheritdoc IResourceRegistry
    function getResource(bytes32 resourceId) external view returns (Resource memory) {
        return _requireKnown(resourceId);
    }

    // ---------------------------------------------------------------- internals

    function _deactivate(bytes32 resourceId, Resource storage res, address by) private {
        res.active = false;
        res.deactivatedAt = uint40(block.timestamp);
        emit ResourceDeactivated(resourceId, by);
    }

    function _checkPricing(Pricing calldata pricing) private pure {
        if (pricing.max == 0 || pricing.max < pricing.base) revert InvalidPricing(pricing.base, pricing.max);
    }

    function _setStrikePolicy(uint32 strikeThreshold_, uint16 slashBps_, uint256 minBond_) private {
        if (strikeThreshold_ < MIN_STRIKE_THRESHOLD || slashBps_ > MAX_SLASH_BPS) {
            revert InvalidStrikePolicy(strikeThreshold_, slashBps_);
        }
        strikeThreshold = strikeThreshold_;
        slashBps = slashBps_;
        minBond = minBond_;
        emit StrikePolicyChanged(strikeThreshold_, slashBps_, minBond_);
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert ZeroAddress();
        treasury = treasury_;
        emit TreasuryChanged(treasury_);
    }

    function _requireKnown(bytes32 resourceId) private view returns (Resource storage res) {
        res = _resources[resourceId];
        if (res.creator == address(0)) revert UnknownResource(resourceId);
    }

    function _onlyCreator(bytes32 resourceId) private view returns (Resource storage res) {
        res = _requireKnown(resourceId);
        if (msg.sender != res.creator) revert NotCreator(msg.sender, res.creator);
    }
}
