import { expect } from "chai";
import fc from "fast-check";
import { recoverTypedDataAddress } from "viem";
import {
  buyer,
  escrow,
  nonce,
  signature,
  validEscrowAuthorization,
  validExactAuthorization,
  without,
  withValue,
} from "../../../testkit/protocol/fixtures.ts";
import { encodeBase64Json } from "../base64.ts";
import { debitTypedData } from "../typedData.ts";
import type { NormalizePaymentPayloadReturnType, PaymentPayload } from "./paymentPayload.ts";
import { decodePaymentHeader, normalizePaymentPayload } from "./paymentPayload.ts";

const flatEscrow = {
  x402Version: 2,
  scheme: "service-escrow",
  network: "eip155:5042002",
  authorization: validEscrowAuthorization(),
  signature,
};

const flatExact = { scheme: "exact", network: "eip155:5042002", authorization: validExactAuthorization(), signature };

const accepted = { scheme: "exact", network: "eip155:5042002", amount: "50000", payTo: escrow, maxTimeoutSeconds: 60 };

const envelopeExact = {
  x402Version: 2,
  resource: { url: "https://weather.example/call" },
  accepted,
  payload: { authorization: validExactAuthorization(), signature },
};

function payloadOf(result: NormalizePaymentPayloadReturnType): PaymentPayload {
  if (!result.ok) throw new Error(result.message);
  return result.payload;
}

function refused(input: unknown) {
  const result = normalizePaymentPayload(input);
  return !result.ok && result.reason === "invalid_payload";
}

describe("normalizePaymentPayload", () => {
  it("normalises the flat escrow shape, dropping x402Version", () => {
    expect(payloadOf(normalizePaymentPayload(flatEscrow))).to.deep.equal({
      scheme: "service-escrow",
      network: "eip155:5042002",
      authorization: validEscrowAuthorization(),
      signature,
    });
  });

  it("accepts the flat shape without x402Version", () => {
    expect(payloadOf(normalizePaymentPayload(without(flatEscrow, ["x402Version"]))).scheme).to.equal("service-escrow");
  });

  it("normalises the flat exact shape", () => {
    expect(payloadOf(normalizePaymentPayload(flatExact))).to.deep.equal(flatExact);
  });

  it("normalises the v2 envelope to the same shape, keeping the accepted entry", () => {
    expect(payloadOf(normalizePaymentPayload(envelopeExact))).to.deep.equal({ ...flatExact, accepted });
  });

  it("normalises an escrow envelope", () => {
    const envelope = {
      x402Version: 2,
      accepted: { scheme: "service-escrow", network: "eip155:5042002" },
      payload: { authorization: validEscrowAuthorization(), signature },
    };
    expect(payloadOf(normalizePaymentPayload(envelope)).authorization).to.deep.equal(validEscrowAuthorization());
  });

  it("checksums addresses and lowercases hex", () => {
    const shouting = withValue(
      withValue(flatEscrow, ["authorization", "buyer"], buyer.address.toLowerCase()),
      ["authorization", "nonce"],
      nonce.toUpperCase().replace("0X", "0x"),
    );
    const payload = payloadOf(normalizePaymentPayload(shouting));
    expect(payload.authorization).to.deep.include({ nonce });
    expect(payload.scheme === "service-escrow" && payload.authorization.buyer).to.equal(buyer.address);
  });

  it("is idempotent", () => {
    for (const input of [flatEscrow, flatExact, envelopeExact]) {
      const once = payloadOf(normalizePaymentPayload(input));
      expect(payloadOf(normalizePaymentPayload(once))).to.deep.equal(once);
    }
  });

  it("keeps a signature that recovers to the buyer", async () => {
    const authorization = validEscrowAuthorization();
    const signed = { ...flatEscrow, signature: await buyer.signTypedData(debitTypedData(authorization, escrow)) };
    const payload = payloadOf(normalizePaymentPayload(JSON.parse(JSON.stringify(signed))));
    if (payload.scheme !== "service-escrow") throw new Error("expected the escrow scheme");
    expect(
      await recoverTypedDataAddress({ ...debitTypedData(payload.authorization, escrow), signature: payload.signature }),
    ).to.equal(buyer.address);
  });

  describe("refuses as invalid_payload", () => {
    const cases: Record<string, unknown> = {
      null: null,
      "a string": "service-escrow",
      "an array": [flatEscrow],
      "an unknown scheme": withValue(flatEscrow, ["scheme"], "upto"),
      "another network": withValue(flatEscrow, ["network"], "eip155:8453"),
      "x402Version 1": withValue(flatEscrow, ["x402Version"], 1),
      "an extra top-level property": withValue(flatEscrow, ["extra"], 1),
      "an extra authorization property": withValue(flatEscrow, ["authorization", "extra"], 1),
      "an exact authorization under the escrow scheme": withValue(
        flatEscrow,
        ["authorization"],
        validExactAuthorization(),
      ),
      "an escrow authorization under the exact scheme": withValue(
        flatExact,
        ["authorization"],
        validEscrowAuthorization(),
      ),
      "a maxAmount with a leading zero": withValue(flatEscrow, ["authorization", "maxAmount"], "050000"),
      "a numeric validBefore": withValue(flatEscrow, ["authorization", "validBefore"], 1795355000),
      "a short nonce": withValue(flatEscrow, ["authorization", "nonce"], "0x1234"),
      "a 64-byte signature": withValue(flatEscrow, ["signature"], `0x${"11".repeat(64)}`),
      "a missing signature": without(flatEscrow, ["signature"]),
      "a flat accepted entry for another scheme": withValue(flatEscrow, ["accepted"], accepted),
      "an envelope of x402Version 1": withValue(envelopeExact, ["x402Version"], 1),
      "an envelope without accepted": without(envelopeExact, ["accepted"]),
      "an envelope accepting another network": withValue(envelopeExact, ["accepted", "network"], "eip155:1"),
      "an envelope whose payload is for another scheme": withValue(
        envelopeExact,
        ["accepted", "scheme"],
        "service-escrow",
      ),
      "an envelope with an extra payload property": withValue(envelopeExact, ["payload", "extra"], 1),
      "an envelope without authorization": without(envelopeExact, ["payload", "authorization"]),
      "an envelope with an unknown property": withValue(envelopeExact, ["extra"], 1),
    };
    for (const [name, input] of Object.entries(cases)) {
      it(name, () => expect(refused(input)).to.equal(true));
    }
  });

  it("returns data, never throws, on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.record({ payload: fc.anything(), accepted: fc.anything() })), (input) => {
        expect(normalizePaymentPayload(input)).to.have.property("ok");
      }),
    );
  });
});

describe("decodePaymentHeader", () => {
  it("decodes and normalises a base64 header", () => {
    expect(payloadOf(decodePaymentHeader(encodeBase64Json(envelopeExact)))).to.deep.equal({ ...flatExact, accepted });
  });

  it("refuses an undecodable header as invalid_payload", () => {
    for (const header of [
      "",
      "not base64!",
      encodeBase64Json({ scheme: "service-escrow" }),
      Buffer.from("{").toString("base64"),
    ]) {
      expect(decodePaymentHeader(header)).to.deep.include({ ok: false, reason: "invalid_payload" });
    }
  });

  it("never throws on arbitrary header text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String()), (header) => {
        expect(decodePaymentHeader(header).ok).to.be.a("boolean");
      }),
    );
  });
});
