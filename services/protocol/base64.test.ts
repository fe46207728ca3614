import { expect } from "chai";
import fc from "fast-check";
import { decodeBase64Json, encodeBase64Json } from "./base64.ts";
import { InvalidBase64Error, InvalidJsonError } from "./errors.ts";

function decodeError(text: string): unknown {
  try {
    decodeBase64Json(text);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("base64 JSON", () => {
  it("encodes standard padded base64 of UTF-8 JSON", () => {
    expect(encodeBase64Json({ a: 1 })).to.equal("eyJhIjoxfQ==");
    expect(encodeBase64Json("é")).to.equal(Buffer.from('"é"', "utf8").toString("base64"));
  });

  it("uses the standard alphabet, not base64url", () => {
    expect(encodeBase64Json("\u00ff\u00fe?")).to.match(/[+/]/);
  });

  it("decodes what it encodes, unicode included", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(decodeBase64Json(encodeBase64Json(value))).to.deep.equal(JSON.parse(JSON.stringify(value)));
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), (value) => {
        expect(decodeBase64Json(encodeBase64Json({ value }))).to.deep.equal({ value });
      }),
    );
  });

  describe("refuses with InvalidBase64Error", () => {
    const cases = {
      "missing padding": "eyJhIjoxfQ",
      "short padding": "eyJhIjoxfQ=",
      "excess padding": "eyJhIjoxfQ===",
      whitespace: "eyJh Ijox fQ==",
      "a trailing newline": "eyJhIjoxfQ==\n",
      "base64url characters": "eyJhIjoxfQ-_",
      "non-zero padding bits": "eyJhIjoxfR==",
      "padding only": "====",
      "padding in the middle": "eyJh=jox",
    };
    for (const [name, text] of Object.entries(cases)) {
      it(name, () => expect(decodeError(text)).to.be.instanceOf(InvalidBase64Error));
    }

    it("a non-string", () => expect(decodeError(42 as unknown as string)).to.be.instanceOf(InvalidBase64Error));
  });

  describe("refuses with InvalidJsonError", () => {
    it("an empty string", () => expect(decodeError("")).to.be.instanceOf(InvalidJsonError));
    it("text that is not JSON", () =>
      expect(decodeError(Buffer.from("nope").toString("base64"))).to.be.instanceOf(InvalidJsonError));
    it("bytes that are not UTF-8", () =>
      expect(decodeError(Buffer.from([0x22, 0xff, 0x22]).toString("base64"))).to.be.instanceOf(InvalidJsonError));
    it("a byte-order mark", () =>
      expect(decodeError(Buffer.from("\ufeff{}").toString("base64"))).to.be.instanceOf(InvalidJsonError));
  });

  it("throws nothing but its typed errors on arbitrary input", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.string({ unit: "binary" })), (text) => {
        const error = decodeError(text);
        expect(
          error === undefined || error instanceof InvalidBase64Error || error instanceof InvalidJsonError,
        ).to.equal(true);
      }),
    );
  });

  it("refuses values without a JSON form", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [undefined, () => 1, 1n, cyclic]) {
      expect(() => encodeBase64Json(value)).to.throw(InvalidJsonError);
    }
  });
});
