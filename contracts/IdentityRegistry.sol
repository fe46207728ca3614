// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IIdentityRegistry} from "./interfaces/IIdentityRegistry.sol";

/// @title ERC-8004 identity registry (v2)
/// @notice Agent identities as ERC-721 tokens with a registration URI, free-form metadata and a verified
/// payment wallet. Call-compatible with the canonical registry: agent ids count up from 0, the wallet
/// starts as the registrant and is cleared on transfer, "agentWallet" is a reserved metadata key.
contract IdentityRegistry is ERC721URIStorage, EIP712, IIdentityRegistry {
    bytes32 public constant AGENT_WALLET_SET_TYPEHASH = keccak256(
        "AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)"
    );
    uint256 public constant MAX_DEADLINE_DELAY = 5 minutes;
    string private constant AGENT_WALLET_KEY = "agentWallet";

    uint256 private _nextId;
    mapping(uint256 agentId => mapping(string key => bytes value)) private _metadata;
    mapping(uint256 agentId => address wallet) private _agentWallet;

    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    /// @inheritdoc IIdentityRegistry
    function register() external returns (uint256 agentId) {
        agentId = _mintAgent("");
    }

    /// @inheritdoc IIdentityRegistry
    function register(string memory agentURI) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI);
    }

    /// @inheritdoc IIdentityRegistry
    function register(string memory agentURI, MetadataEntry[] memory metadata) external returns (uint256 agentId) {
        agentId = _mintAgent(agentURI);
        for (uint256 i; i < metadata.length; ++i) {
            _writeMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    /// @inheritdoc IIdentityRegistry
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @inheritdoc IIdentityRegistry
    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory) {
        if (_isWalletKey(metadataKey)) {
            address wallet = _agentWallet[agentId];
            return wallet == address(0) ? bytes("") : abi.encodePacked(wallet);
        }
        return _metadata[agentId][metadataKey];
    }

    /// @inheritdoc IIdentityRegistry
    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external {
        _requireAuthorized(agentId);
        _writeMetadata(agentId, metadataKey, metadataValue);
    }

    /// @inheritdoc IIdentityRegistry
    function getAgentWallet(uint256 agentId) external view returns (address) {
        _requireOwned(agentId);
        return _agentWallet[agentId];
    }

    /// @inheritdoc IIdentityRegistry
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        if (newWallet == address(0)) revert InvalidWallet(newWallet);
        if (block.timestamp > deadline) revert WalletSignatureExpired(deadline, block.timestamp);
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) {
            revert WalletDeadlineTooFar(deadline, block.timestamp + MAX_DEADLINE_DELAY);
        }
        address owner = _requireAuthorized(agentId);
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline))
        );
        if (!SignatureChecker.isValidSignatureNow(newWallet, digest, signature))
            revert InvalidWalletSignature(newWallet);
        _setAgentWallet(agentId, newWallet);
    }

    /// @inheritdoc IIdentityRegistry
    function unsetAgentWallet(uint256 agentId) external {
        _requireAuthorized(agentId);
        _setAgentWallet(agentId, address(0));
    }

    /// @inheritdoc IIdentityRegistry
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        return _isAuthorized(_requireOwned(agentId), spender, agentId);
    }

    /// @notice The EIP-712 domain separator for `AgentWalletSet` signatures.
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function _mintAgent(string memory agentURI) private returns (uint256 agentId) {
        agentId = _nextId++;
        _agentWallet[agentId] = msg.sender;
        _safeMint(msg.sender, agentId);
        if (bytes(agentURI).length != 0) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        // The wallet as stored now: the receiver's onERC721Received may have moved the identity (which
        // clears it) or set another one, and the last agentWallet event must match the state.
        address wallet = _agentWallet[agentId];
        emit MetadataSet(
            agentId,
            AGENT_WALLET_KEY,
            AGENT_WALLET_KEY,
            wallet == address(0) ? bytes("") : abi.encodePacked(wallet)
        );
    }

    function _writeMetadata(uint256 agentId, string memory key, bytes memory value) private {
        if (_isWalletKey(key)) revert ReservedMetadataKey(key);
        _metadata[agentId][key] = value;
        emit MetadataSet(agentId, key, key, value);
    }

    function _isWalletKey(string memory key) private pure returns (bool) {
        return keccak256(bytes(key)) == keccak256(bytes(AGENT_WALLET_KEY));
    }

    function _setAgentWallet(uint256 agentId, address wallet) private {
        _agentWallet[agentId] = wallet;
        bytes memory value = wallet == address(0) ? bytes("") : abi.encodePacked(wallet);
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, value);
    }

    function _requireAuthorized(uint256 agentId) private view returns (address owner) {
        owner = _requireOwned(agentId);
        if (!_isAuthorized(owner, msg.sender, agentId)) revert NotAuthorized(msg.sender, agentId);
    }

    /// @dev Clears the verified wallet when the identity changes hands, so it never follows a new owner.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        if (from != address(0) && to != address(0) && _agentWallet[tokenId] != address(0)) {
            _setAgentWallet(tokenId, address(0));
        }
    }
}
