import { randomBytes } from "node:crypto";
import { expect } from "chai";
import type { Address, Hex } from "viem";
import { encodeAbiParameters, keccak256 } from "viem";
import { CHAIN_ID } from "./constants.ts";
import { settlementIdOf } from "./settlementId.ts";

const hex = (bytes: number): Hex => `0x${randomBytes(bytes).toString("hex")}`;

/** The definition: keccak256(abi.encode(uint256 chainId, address escrow, address buyer, bytes32 nonce)). */
const byDefinition = (chainId: number, escrow: Address, buyer: Address, nonce: Hex) =>
  keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "address" }, { type: "address" }, { type: "bytes32" }],
      [BigInt(chainId), escrow, buyer, nonce],
    ),
  );

describe("settlementIdOf", function () {
  it("is keccak256 of the ABI encoding of chain id, escrow, buyer and nonce", function () {
    for (let i = 0; i < 200; i++) {
      const [escrow, buyer, nonce] = [hex(20), hex(20), hex(32)];
      // Mixed case as addresses arrive checksummed; a nonce with leading zero bytes.
      const mixed = (escrow.slice(0, 12).toUpperCase().replace("0X", "0x") + escrow.slice(12)) as Address;
      const chainId = i % 2 ? CHAIN_ID : i * 7919;
      const small = i % 5 === 0 ? (`0x${"0".repeat(60)}${nonce.slice(-4)}` as Hex) : nonce;
      expect(settlementIdOf({ chainId, escrow: mixed, buyer, nonce: small })).to.equal(
        byDefinition(chainId, escrow, buyer, small),
      );
    }
  });

  it("binds the chain: the default is the test network's, and another chain's id differs", function () {
    const p = { escrow: hex(20) as Address, buyer: hex(20) as Address, nonce: hex(32) };
    expect(settlementIdOf(p)).to.equal(byDefinition(CHAIN_ID, p.escrow, p.buyer, p.nonce));
    expect(settlementIdOf({ ...p, chainId: 1 })).to.not.equal(settlementIdOf(p));
  });

  it("refuses what is not an address, a 32-byte nonce or a chain id", function () {
    const p = { escrow: hex(20) as Address, buyer: hex(20) as Address, nonce: hex(32) };
    expect(() => settlementIdOf({ ...p, escrow: hex(19) as Address })).to.throw(/escrow .* is not an address/);
    expect(() => settlementIdOf({ ...p, buyer: `${hex(20)}0` as Address })).to.throw(/buyer .* is not an address/);
    expect(() => settlementIdOf({ ...p, nonce: hex(31) })).to.throw(/nonce .* is not 32 bytes/);
    expect(() => settlementIdOf({ ...p, nonce: `0x${"g".repeat(64)}` as Hex })).to.throw(/not 32 bytes/);
    expect(() => settlementIdOf({ ...p, chainId: -1 })).to.throw(/not a uint/);
  });
});
