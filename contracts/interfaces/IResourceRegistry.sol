// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Registry of paid resources: identity binding, pricing, card, bonds and strikes
/// @notice Every state change emits an event that carries what an indexer needs, so the marketplace
/// index can be derived from logs alone.
interface IResourceRegistry {
    /// @notice Metered price terms, in stablecoin base units.
    struct Pricing {
        uint128 base;
        uint128 perKB;
        uint128 max;
    }

    /// @notice What a creator registers.
    struct Registration {
        string slug;
        uint256 agentId;
        address payout;
        string category;
        Pricing pricing;
        string cardURI;
        bytes32 cardHash;
    }

    /// @notice A creator's EIP-3009 `ReceiveWithAuthorization` (from = the creator, to = this registry) that posts
    /// the bond in the same transaction as `registerFor`; `value` 0 (with an empty signature) posts none. Its `nonce`
    /// begins with the first 16 bytes of the resource id it bonds (`BondNonceBoundToOtherResource`).
    struct BondAuthorization {
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes signature;
    }

    /// @notice A registered resource.
    /// @dev payout, active, strikes, deactivatedAt and retired share one slot: a debit reads one slot. `retired`: the
    /// bond was withdrawn, so the resource can never be reactivated. `slashedAt`: when the bond was last slashed (0:
    /// never), which shares the creator's slot; the next slash waits `SLASH_INTERVAL` after it.
    struct Resource {
        address payout;
        bool active;
        uint32 strikes;
        uint40 deactivatedAt;
        bool retired;
        address creator;
        uint40 slashedAt;
        uint256 agentId;
        uint256 bond;
        Pricing pricing;
        string slug;
        string category;
        string cardURI;
        bytes32 cardHash;
    }

    /// @notice A resource was registered; it is active from now on.
    /// @param resourceId keccak256(abi.encode(creator, slug)).
    /// @param creator The creator, owner of the ERC-8004 identity.
    /// @param agentId The ERC-8004 agent id bound to the resource.
    /// @param slug The resource slug.
    /// @param payout Where the creator's share of each debit is credited.
    /// @param category The listing category.
    /// @param pricing The metered price terms.
    /// @param cardURI Where the agent card is served.
    /// @param cardHash keccak256 of the card's bytes as served.
    event ResourceRegistered(
        bytes32 indexed resourceId,
        address indexed creator,
        uint256 indexed agentId,
        string slug,
        address payout,
        string category,
        Pricing pricing,
        string cardURI,
        bytes32 cardHash
    );

    /// @param resourceId The resource.
    /// @param pricing The new price terms.
    event PricingUpdated(bytes32 indexed resourceId, Pricing pricing);

    /// @param resourceId The resource.
    /// @param cardURI The new card URI.
    /// @param cardHash The new card hash.
    event CardUpdated(bytes32 indexed resourceId, string cardURI, bytes32 cardHash);

    /// @param resourceId The resource.
    /// @param payout The new payout address.
    event PayoutUpdated(bytes32 indexed resourceId, address payout);

    /// @param resourceId The resource.
    /// @param by The creator, or this registry when a slash deactivated it.
    event ResourceDeactivated(bytes32 indexed resourceId, address indexed by);

    /// @param resourceId The resource.
    event ResourceReactivated(bytes32 indexed resourceId);

    /// @param resourceId The resource.
    /// @param from Whose stablecoin was posted.
    /// @param amount The amount posted.
    /// @param bond The bond after posting.
    event BondPosted(bytes32 indexed resourceId, address indexed from, uint256 amount, uint256 bond);

    /// @param resourceId The resource.
    /// @param to The creator, who received the bond.
    /// @param amount The amount withdrawn (the whole bond).
    event BondWithdrawn(bytes32 indexed resourceId, address indexed to, uint256 amount);

    /// @param resourceId The resource.
    /// @param strikeKey `strikeKeyOf(buyer, nonce)`: the failed call, struck at most once.
    /// @param buyer The buyer of the failed call.
    /// @param nonce The failed call's payment nonce (its idemKey), which is unique only per buyer.
    /// @param strikes The strike count after this one.
    /// @param reason Why the call failed.
    event StrikeRecorded(
        bytes32 indexed resourceId,
        bytes32 indexed strikeKey,
        address indexed buyer,
        bytes32 nonce,
        uint32 strikes,
        string reason
    );

    /// @param resourceId The resource.
    /// @param amount The amount moved from the bond to the treasury.
    /// @param bond The bond left.
    event BondSlashed(bytes32 indexed resourceId, uint256 amount, uint256 bond);

    /// @param strikeThreshold Strikes that trigger a slash.
    /// @param slashBps Share of the bond slashed, in basis points.
    /// @param minBond Bond required to reactivate.
    event StrikePolicyChanged(uint32 strikeThreshold, uint16 slashBps, uint256 minBond);

    /// @param treasury The new treasury.
    event TreasuryChanged(address treasury);

    /// @param resourceId The id already taken.
    error ResourceExists(bytes32 resourceId);
    /// @param resourceId The id that is not registered.
    error UnknownResource(bytes32 resourceId);
    /// @param caller The caller.
    /// @param creator The resource's creator, who alone may do this.
    error NotCreator(address caller, address creator);
    /// @param agentId The agent id.
    /// @param creator The would-be creator.
    /// @param owner The identity's actual owner.
    error NotAgentOwner(uint256 agentId, address creator, address owner);
    /// @param agentId The agent id.
    /// @param resourceId The resource it is already bound to.
    error AgentAlreadyBound(uint256 agentId, bytes32 resourceId);
    /// @param slug The slug that is empty or longer than 64 bytes.
    error InvalidSlug(string slug);
    /// @param base The base price.
    /// @param max The cap, which must be positive and at least `base`.
    error InvalidPricing(uint256 base, uint256 max);
    /// @notice A zero address where one is required.
    error ZeroAddress();
    /// @notice A zero amount where a positive one is required.
    error ZeroAmount();
    /// @param deadline The signature deadline that passed.
    error SignatureExpired(uint256 deadline);
    /// @param creator The account that did not sign.
    error InvalidCreatorSignature(address creator);
    /// @param resourceId The resource that is (still) active.
    error ResourceActive(bytes32 resourceId);
    /// @param resourceId The resource that is already inactive.
    error ResourceInactive(bytes32 resourceId);
    /// @param resourceId The resource.
    /// @param unlocksAt When its bond may be withdrawn.
    error BondLocked(bytes32 resourceId, uint256 unlocksAt);
    /// @param resourceId The resource.
    /// @param bond Its bond.
    /// @param minBond The bond required to reactivate.
    error BondTooLow(bytes32 resourceId, uint256 bond, uint256 minBond);
    /// @param buyer The buyer of the call already struck.
    /// @param nonce Its payment nonce.
    error StrikeAlreadyRecorded(address buyer, bytes32 nonce);
    /// @param strikeThreshold The threshold (must be at least `MIN_STRIKE_THRESHOLD`).
    /// @param slashBps The share (must be at most `MAX_SLASH_BPS`).
    error InvalidStrikePolicy(uint32 strikeThreshold, uint16 slashBps);
    /// @param resourceId A resource whose bond was withdrawn: it cannot be reactivated.
    error ResourceRetired(bytes32 resourceId);
    /// @notice A bond authorization's nonce must begin with the first 16 bytes of the resource id it bonds, so that an
    /// authorization seen in the mempool cannot be credited to another resource of the same creator.
    /// @param nonce The authorization's EIP-3009 nonce.
    /// @param resourceId The resource it was submitted for.
    error BondNonceBoundToOtherResource(bytes32 nonce, bytes32 resourceId);

    /// @notice Registers a resource for `msg.sender`, who must own `registration.agentId`, and posts `minBond` of the
    /// caller's stablecoin (approved beforehand) as its bond when `minBond` is not 0.
    function register(Registration calldata registration) external returns (bytes32 resourceId);

    /// @notice Registers a resource for `creator` and posts its bond, in one transaction, on the creator's consent.
    /// @dev The creator's EIP-712 `RegisterResource` signature covers (creator, slug, payout, category, base, perKB,
    /// max, deadline). The submitter (the marketplace) supplies `agentId`, `cardURI` and `cardHash`, which exist only
    /// after it has minted the identity and finalized the card; `agentId` must be owned by `creator`. The bond is pulled
    /// from the creator with `bond` (a ReceiveWithAuthorization to this registry, its nonce bound to the resource id),
    /// never from the submitter, and must be at least `minBond`: when either part fails, nothing is registered and
    /// nothing is posted. Only a holder of
    /// PUBLISHER_ROLE may submit it, so nobody who copies a pending registration from the mempool can register the
    /// slug first with a card (or identity) of their choosing.
    /// @param creator The creator, who signed `signature` and `bond`.
    /// @param registration The registration; its agentId, cardURI and cardHash are the submitter's.
    /// @param deadline Last second at which `signature` is accepted.
    /// @param signature The creator's `RegisterResource` signature (ECDSA or ERC-1271).
    /// @param bond The creator's bond authorization.
    /// @return resourceId keccak256(abi.encode(creator, registration.slug)).
    function registerFor(
        address creator,
        Registration calldata registration,
        uint256 deadline,
        bytes calldata signature,
        BondAuthorization calldata bond
    ) external returns (bytes32 resourceId);

    /// @notice Where a debit for `resourceId` pays the creator's share, and whether debits are allowed.
    function paymentTarget(bytes32 resourceId) external view returns (address payout, bool active);

    /// @notice The whole record of a resource.
    function getResource(bytes32 resourceId) external view returns (Resource memory);

    /// @notice keccak256(abi.encode(creator, slug)).
    function resourceIdOf(address creator, string calldata slug) external pure returns (bytes32);

    /// @notice The key a failed call is struck under: keccak256(abi.encode(buyer, nonce)). A payment nonce is unique
    /// only per buyer (every buyer's bitmap nonces start at index 0), so a strike names the buyer too, as the escrow's
    /// nonce book and the facilitator's store do.
    function strikeKeyOf(address buyer, bytes32 nonce) external pure returns (bytes32);
}
