import { expect } from "chai";
import type { Address, Hex } from "viem";
import {
  concat,
  encodeAbiParameters,
  hashStruct,
  hashTypedData,
  keccak256,
  recoverTypedDataAddress,
  toHex,
} from "viem";
import {
  asset,
  buyer,
  escrow,
  validEscrowAuthorization,
  validExactAuthorization,
} from "../../testkit/protocol/fixtures.ts";
import { CHAIN_ID } from "./constants.ts";
import { signatureSchema } from "./schemas/primitives.ts";
import {
  DEBIT_AUTHORIZATION_TYPE,
  debitAuthorizationTypes,
  debitTypedData,
  escrowDomain,
  receiveWithAuthorizationTypes,
  tokenDomain,
  transferTypedData,
  transferWithAuthorizationTypes,
} from "./typedData.ts";

const typeHash = (type: string) => keccak256(toHex(type));
const eip3009Fields = "(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)";

function manualDomainSeparator(name: string, version: string, chainId: number, verifyingContract: Address): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
      [
        typeHash("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
        keccak256(toHex(name)),
        keccak256(toHex(version)),
        BigInt(chainId),
        verifyingContract,
      ],
    ),
  );
}

function manualDebitStructHash(typed: ReturnType<typeof debitTypedData>): Hex {
  const m = typed.message;
  return keccak256(
    encodeAbiParameters(
      [
        { type: "bytes32" },
        { type: "address" },
        { type: "bytes32" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "bytes32" },
      ],
      [typeHash(DEBIT_AUTHORIZATION_TYPE), m.buyer, m.resourceId, m.maxAmount, m.validAfter, m.validBefore, m.nonce],
    ),
  );
}

describe("typedData", () => {
  const typed = debitTypedData(validEscrowAuthorization(), escrow);

  it("builds the escrow domain", () => {
    expect(escrowDomain(escrow)).to.deep.equal({
      name: "ServiceEscrow",
      version: "1",
      chainId: 5042002,
      verifyingContract: escrow,
    });
  });

  it("builds the token domain, on the test network unless told otherwise", () => {
    expect(tokenDomain(asset)).to.deep.equal({
      name: "USDC",
      version: "2",
      chainId: CHAIN_ID,
      verifyingContract: asset,
    });
    expect(tokenDomain(asset, 31337).chainId).to.equal(31337);
  });

  it("turns the uint256 fields of the message into bigints", () => {
    expect(typed.message).to.deep.include({ maxAmount: 50000n, validAfter: 0n, validBefore: 1795355000n });
  });

  it("declares the same struct the contract hashes", () => {
    expect(
      hashStruct({ data: typed.message, primaryType: "DebitAuthorization", types: debitAuthorizationTypes }),
    ).to.equal(manualDebitStructHash(typed));
  });

  it("hashes to the manual EIP-712 digest", () => {
    const digest = keccak256(
      concat(["0x1901", manualDomainSeparator("ServiceEscrow", "1", CHAIN_ID, escrow), manualDebitStructHash(typed)]),
    );
    expect(hashTypedData(typed)).to.equal(digest);
  });

  it("declares the EIP-3009 structs of the stablecoin", () => {
    const message = transferTypedData(validExactAuthorization(), asset).message;
    const encoded = (name: string) =>
      keccak256(
        encodeAbiParameters(
          ["bytes32", "address", "address", "uint256", "uint256", "uint256", "bytes32"].map((type) => ({ type })),
          [
            typeHash(`${name}${eip3009Fields}`),
            message.from,
            message.to,
            message.value,
            message.validAfter,
            message.validBefore,
            message.nonce,
          ],
        ),
      );
    expect(typeHash(`TransferWithAuthorization${eip3009Fields}`)).to.equal(
      "0x7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267",
    );
    expect(typeHash(`ReceiveWithAuthorization${eip3009Fields}`)).to.equal(
      "0xd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de8",
    );
    expect(
      hashStruct({ data: message, primaryType: "TransferWithAuthorization", types: transferWithAuthorizationTypes }),
    ).to.equal(encoded("TransferWithAuthorization"));
    expect(
      hashStruct({ data: message, primaryType: "ReceiveWithAuthorization", types: receiveWithAuthorizationTypes }),
    ).to.equal(encoded("ReceiveWithAuthorization"));
  });

  describe("a signed debit", () => {
    let signature: Hex;
    before(async () => {
      signature = await buyer.signTypedData(typed);
    });

    it("is a 65-byte signature", () => expect(signatureSchema.safeParse(signature).success).to.equal(true));

    it("recovers to the buyer", async () => {
      expect(await recoverTypedDataAddress({ ...typed, signature })).to.equal(buyer.address);
    });

    const tampered = {
      "another chain": { ...typed, domain: { ...typed.domain, chainId: 1 } },
      "another escrow": debitTypedData(validEscrowAuthorization(), asset),
      "another resource": { ...typed, message: { ...typed.message, resourceId: `0x${"00".repeat(31)}01` as Hex } },
      "another nonce": { ...typed, message: { ...typed.message, nonce: `0x${"ff".repeat(32)}` as Hex } },
      "a higher cap": { ...typed, message: { ...typed.message, maxAmount: typed.message.maxAmount + 1n } },
    };
    for (const [name, other] of Object.entries(tampered)) {
      it(`does not recover to the buyer on ${name}`, async () => {
        expect(await recoverTypedDataAddress({ ...other, signature })).to.not.equal(buyer.address);
      });
    }
  });

  it("signs and recovers an EIP-3009 transfer", async () => {
    const transfer = transferTypedData(validExactAuthorization(), asset);
    const signature = await buyer.signTypedData(transfer);
    expect(await recoverTypedDataAddress({ ...transfer, signature })).to.equal(buyer.address);
    expect(
      await recoverTypedDataAddress({ ...transferTypedData(validExactAuthorization(), escrow), signature }),
    ).to.not.equal(buyer.address);
  });
});
