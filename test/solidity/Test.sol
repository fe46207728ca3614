// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @notice The cheatcodes our Solidity tests use, as Hardhat's EDR implements them (Foundry's `Vm`, in part).
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function prank(address msgSender) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function warp(uint256 newTimestamp) external;
    function roll(uint256 newHeight) external;
    function assume(bool condition) external pure;
    function addr(uint256 privateKey) external pure returns (address);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function label(address account, string calldata newLabel) external;
    function getCode(string calldata artifactPath) external view returns (bytes memory);
    function readFile(string calldata path) external view returns (string memory);
    function parseJsonString(string calldata json, string calldata key) external pure returns (string memory);
    function parseBytes(string calldata value) external pure returns (bytes memory);
    function replace(
        string calldata input,
        string calldata from,
        string calldata to
    ) external pure returns (string memory);
    function toString(address value) external pure returns (string memory);
    function toString(uint256 value) external pure returns (string memory);
    function toString(bytes calldata value) external pure returns (string memory);
    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
    function assertTrue(bool condition, string calldata error) external pure;
    function assertFalse(bool condition, string calldata error) external pure;
    function assertEq(uint256 left, uint256 right, string calldata error) external pure;
    function assertEq(bytes32 left, bytes32 right, string calldata error) external pure;
    function assertEq(bytes calldata left, bytes calldata right, string calldata error) external pure;
    function assertEq(address left, address right, string calldata error) external pure;
    function assertEq(bool left, bool right, string calldata error) external pure;
    function assertLe(uint256 left, uint256 right, string calldata error) external pure;
    function assertGe(uint256 left, uint256 right, string calldata error) external pure;
}

/// @notice Our small base for Solidity tests (the npm `forge-std` is a 2022 copy): the cheatcodes, `bound`, the
/// deployment of a compiled artifact, and the targets of an invariant test, which the runner reads through
/// `targetContracts` and `targetSelectors`.
abstract contract Test {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address[] private _targetedContracts;
    FuzzSelector[] private _targetedSelectors;

    /// @notice `x` if it is in [min, max], else `x` mapped onto it, so that every fuzzed value is used, not rejected.
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        if (max <= min) return min;
        if (x >= min && x <= max) return x;
        uint256 size = max - min;
        return size == type(uint256).max ? x : min + (x % (size + 1));
    }

    /// @notice Deploys `creationCode` with `args` appended (the ABI-encoded constructor arguments).
    function deploy(bytes memory creationCode, bytes memory args) internal returns (address deployed) {
        bytes memory code = bytes.concat(creationCode, args);
        assembly ("memory-safe") {
            deployed := create(0, add(code, 0x20), mload(code))
        }
        vm.assertTrue(deployed != address(0), "deployment failed");
    }

    /// @notice Deploys the artifact `name` ("File.sol:Contract") of this project's build.
    function deployArtifact(string memory name, bytes memory args) internal returns (address) {
        return deploy(vm.getCode(name), args);
    }

    /// @notice Lets the invariant fuzzer call `target` (only the selectors given with `targetSelector`, if any).
    function targetContract(address target) internal {
        _targetedContracts.push(target);
    }

    /// @notice Restricts the calls made to `target` to `selectors`.
    function targetSelector(address target, bytes4[] memory selectors) internal {
        _targetedSelectors.push(FuzzSelector(target, selectors));
    }

    function targetContracts() public view returns (address[] memory) {
        return _targetedContracts;
    }

    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetedSelectors;
    }
}
