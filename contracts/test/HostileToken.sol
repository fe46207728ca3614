// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

// A hostile test token re-enters through raw calls; its reverts need no ABI.
// solhint-disable avoid-low-level-calls, gas-custom-errors

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title Test token that calls back into a target on every balance change
/// @notice An ERC-20 with the EIP-3009 and EIP-2612 entry points the escrow calls (without signature checks:
/// a hostile token needs none). Once armed, the next transfer (after balances moved) calls `target` with
/// `payload`; it records the outcome and, when `bubble` is set, reverts with the callee's revert data.
/// It can also act as an account itself through `execute`, so that it can be a buyer or a payout.
contract HostileToken is ERC20 {
    address public target;
    bytes public payload;
    bool public bubble;
    bool public armed;
    /// @notice How many callbacks ran.
    uint256 public reentries;
    /// @notice Whether the last callback succeeded, and what it returned or reverted with.
    bool public lastReentrySucceeded;
    bytes public lastReentryResult;

    mapping(address authorizer => mapping(bytes32 nonce => bool)) public authorizationState;

    constructor() ERC20("Hostile", "HST") {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Makes the next balance change call `target_` with `payload_`.
    function arm(address target_, bytes calldata payload_, bool bubble_) external {
        target = target_;
        payload = payload_;
        bubble = bubble_;
        armed = true;
    }

    /// @notice Calls `to` with `data` as this token contract, bubbling a revert.
    function execute(address to, bytes calldata data) external returns (bytes memory) {
        (bool ok, bytes memory ret) = to.call(data);
        if (!ok) _bubble(ret);
        return ret;
    }

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external pure returns (bytes32) {
        return bytes32(0);
    }

    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256,
        uint256,
        bytes32 nonce,
        bytes memory
    ) external {
        authorizationState[from][nonce] = true;
        _transfer(from, to, value);
    }

    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256,
        uint256,
        bytes32 nonce,
        bytes memory
    ) external {
        require(msg.sender == to, "caller must be payee");
        authorizationState[from][nonce] = true;
        _transfer(from, to, value);
    }

    function _update(address from, address to, uint256 value) internal override {
        super._update(from, to, value);
        if (!armed) return;
        armed = false;
        ++reentries;
        (bool ok, bytes memory ret) = target.call(payload);
        lastReentrySucceeded = ok;
        lastReentryResult = ret;
        if (!ok && bubble) _bubble(ret);
    }

    function _bubble(bytes memory ret) private pure {
        assembly ("memory-safe") {
            revert(add(ret, 32), mload(ret))
        }
    }
}
