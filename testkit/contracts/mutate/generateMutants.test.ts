import { expect } from "chai";
import { applyMutant, generateMutants } from "./generateMutants.ts";

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

contract Vault {
    error TooMuch(uint256 amount);
    event Taken(address to, uint256 amount);

    mapping(address => uint256) public balanceOf;
    bool public open = true;

    modifier whenOpen() {
        require(open, "closed");
        _;
    }

    function take(address to, uint256 amount) external whenOpen {
        if (amount > balanceOf[to]) revert TooMuch(amount);
        balanceOf[to] -= amount;
        emit Taken(to, amount);
    }

    function share(uint256 amount, uint256 bps) external pure returns (uint256) {
        return (amount * bps) / 10_000;
    }

    function ok(bool a, bool b) external pure returns (bool) {
        return !a && b;
    }
}
`;

describe("generateMutants: mutants of a contract from its syntax tree", function () {
  const mutants = generateMutants(SOURCE, "Vault.sol");
  const mutated = (id: string) => {
    const mutant = mutants.find((m) => m.id === id);
    if (!mutant) throw new Error(`no mutant ${id} among ${mutants.map((m) => m.id).join("\n")}`);
    return applyMutant(SOURCE, mutant);
  };

  it("loosens a comparison in place", function () {
    expect(mutated("Vault.sol:17:20 comparison > -> >=")).to.include("if (amount >= balanceOf[to]) revert");
  });

  it("removes a revert condition, a require, a modifier, a state write and an emit", function () {
    expect(
      mutated("Vault.sol:17:9 require-removed if (amount > balanceOf[to]) revert TooMuch(amount); -> (removed)"),
    ).not.to.include("revert TooMuch");
    expect(mutated('Vault.sol:12:9 require-removed require(open, "closed"); -> (removed)')).not.to.include("require(");
    expect(mutated("Vault.sol:16:56 modifier-removed whenOpen -> (removed)")).to.include("uint256 amount) external  {");
    expect(mutated("Vault.sol:18:9 write-removed balanceOf[to] -= amount; -> (removed)")).not.to.include("-= amount");
    expect(mutated("Vault.sol:19:9 emit-removed emit Taken(to, amount); -> (removed)")).not.to.include("emit Taken");
  });

  it("swaps arithmetic, rounds a division up, swaps logic and drops a negation", function () {
    expect(mutated("Vault.sol:18:23 arithmetic -= -> +=")).to.include("balanceOf[to] += amount;");
    expect(mutated("Vault.sol:23:24 arithmetic * -> /")).to.include("(amount / bps) / 10_000");
    expect(
      mutated("Vault.sol:23:16 rounding (amount * bps) / 10_000 -> (((amount * bps)) + (10_000) - 1) / (10_000)"),
    ).to.include("(((amount * bps)) + (10_000) - 1) / (10_000)");
    expect(mutated("Vault.sol:27:19 logical && -> ||")).to.include("return !a || b;");
    expect(mutated("Vault.sol:27:16 logical !a -> a")).to.include("return a && b;");
  });

  it("swaps two arguments of a call and flips a boolean literal", function () {
    expect(mutated("Vault.sol:19:20 arguments-swapped to, amount -> amount, to")).to.include("emit Taken(amount, to);");
    expect(mutated("Vault.sol:9:24 boolean true -> false")).to.include("bool public open = false;");
  });

  it("gives every mutant a distinct id, sorted by position", function () {
    expect(new Set(mutants.map((m) => m.id)).size).to.equal(mutants.length);
    expect(mutants.map((m) => m.start)).to.deep.equal([...mutants.map((m) => m.start)].sort((a, b) => a - b));
  });
});
