import { expect } from "chai";
import { countSolidityLines } from "./countSolidityLines.ts";

describe("countSolidityLines: SLOC and nSLOC of a Solidity source", function () {
  it("leaves out comments, NatSpec and blank lines, and counts a spread-out declaration once in nSLOC", function () {
    const source = [
      "// SPDX-License-Identifier: MIT",
      "/// @notice A contract.",
      "contract A {",
      "    /* a block",
      "       comment */",
      "",
      "    function f(",
      "        uint256 a, // the input",
      "        uint256 b",
      "    ) external pure returns (uint256) {",
      '        string memory s = "not // a comment";',
      "        return a + b;",
      "    }",
      "}",
    ].join("\n");
    expect(countSolidityLines(source)).to.deep.equal({ sloc: 9, nsloc: 6 });
  });

  it("counts each line of an assembly block as a statement", function () {
    const source = [
      "contract A {",
      '    assembly ("memory-safe") {',
      "        let x := 1",
      "        mstore(0, x)",
      "    }",
      "}",
    ];
    expect(countSolidityLines(source.join("\n"))).to.deep.equal({ sloc: 6, nsloc: 6 });
  });
});
