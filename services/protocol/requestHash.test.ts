import { expect } from "chai";
import { requestHash } from "./requestHash.ts";

describe("requestHash", function () {
  const body = Buffer.from('{"n":1}');

  it("is SHA-256 of method, path and the body bytes, as 32 bytes of hex", function () {
    expect(requestHash({ method: "post", path: "/call", body })).to.equal(
      requestHash({ method: "POST", path: "/call", body: new Uint8Array(body) }),
    );
    expect(requestHash({ method: "POST", path: "/call", body })).to.match(/^0x[0-9a-f]{64}$/);
  });

  it("differs for another body, even the same JSON spelled otherwise, and for another path", function () {
    const hash = requestHash({ method: "POST", path: "/call", body });
    expect(requestHash({ method: "POST", path: "/call", body: Buffer.from('{"n": 1}') })).to.not.equal(hash);
    expect(requestHash({ method: "POST", path: "/call", body: Buffer.from('{"n":2}') })).to.not.equal(hash);
    expect(requestHash({ method: "POST", path: "/other", body })).to.not.equal(hash);
  });
});
