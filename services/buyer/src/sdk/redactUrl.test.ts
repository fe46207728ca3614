import { expect } from "chai";
import { redactUrl } from "./redactUrl.ts";

describe("redactUrl", function () {
  it("keeps scheme, host, port and path, and drops the userinfo, the query string and the fragment", function () {
    expect(redactUrl("http://bob:mkPW99@127.0.0.1:2/resources")).to.equal("http://127.0.0.1:2/resources");
    expect(redactUrl("https://bob@example.test/results/0x01?payer=0x02&key=s3cret#frag")).to.equal(
      "https://example.test/results/0x01",
    );
    expect(redactUrl("https://example.test:8443")).to.equal("https://example.test:8443");
  });

  it("of a value that is not an http(s) URL shows at most its scheme", function () {
    expect(redactUrl("bob:mkPW99@nowhere")).to.equal("bob:…");
    expect(redactUrl("ipfs://bafy/card.json?key=s3cret")).to.equal("ipfs:…");
    expect(redactUrl("not a url mkPW99")).to.not.include("mkPW99");
  });
});
