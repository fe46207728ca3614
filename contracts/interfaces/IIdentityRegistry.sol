// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title ERC-8004 identity registry (v2), call-compatible with the canonical deployment
/// @notice Only these functions (plus ERC-721) may be relied on by the rest of the system, so that the
/// canonical registry on the test network can stand in for ours.
interface IIdentityRegistry {
    /// @notice One key/value pair of on-chain agent metadata.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /// @notice An agent identity was minted.
    /// @param agentId The new token id.
    /// @param agentURI The registration file URI ("" when none).
    /// @param owner The account that registered and owns the agent.
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);

    /// @notice A metadata entry was written ("agentWallet" included).
    /// @param agentId The agent.
    /// @param indexedMetadataKey The key, indexed (as its hash).
    /// @param metadataKey The key.
    /// @param metadataValue The value.
    event MetadataSet(
        uint256 indexed agentId,
        string indexed indexedMetadataKey,
        string metadataKey,
        bytes metadataValue
    );

    /// @notice The registration file URI changed.
    /// @param agentId The agent.
    /// @param newURI The new URI.
    /// @param updatedBy The caller.
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /// @param caller The account that is neither owner nor approved.
    /// @param agentId The agent it tried to change.
    error NotAuthorized(address caller, uint256 agentId);

    /// @param metadataKey The key that only `setAgentWallet` may write.
    error ReservedMetadataKey(string metadataKey);

    /// @param wallet The wallet address that is not acceptable (zero).
    error InvalidWallet(address wallet);

    /// @param deadline The signature deadline.
    /// @param now_ The block timestamp.
    error WalletSignatureExpired(uint256 deadline, uint256 now_);

    /// @param deadline The signature deadline.
    /// @param latest The latest deadline accepted now.
    error WalletDeadlineTooFar(uint256 deadline, uint256 latest);

    /// @param wallet The wallet that did not sign.
    error InvalidWalletSignature(address wallet);

    function register() external returns (uint256 agentId);
    function register(string memory agentURI) external returns (uint256 agentId);
    function register(string memory agentURI, MetadataEntry[] memory metadata) external returns (uint256 agentId);
    function setAgentURI(uint256 agentId, string calldata newURI) external;
    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory);
    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external;
    function getAgentWallet(uint256 agentId) external view returns (address);
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external;
    function unsetAgentWallet(uint256 agentId) external;
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);
}
