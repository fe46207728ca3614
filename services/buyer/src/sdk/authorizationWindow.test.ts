import { expect } from "chai";
import { MAX_AUTHORIZATION_SECONDS } from "../../../protocol/constants.ts";
import { authorizationWindow, MAX_SIGNED_WINDOW_SECONDS } from "./authorizationWindow.ts";

const TEN_YEARS = 10 * 365 * 86_400;

describe("the authorization window the buyer SDK signs", function () {
  it("an older gate's quote, without extra, gets the call's own window: maxTimeoutSeconds + 120", function () {
    expect(authorizationWindow({ maxTimeoutSeconds: 60 })).to.equal(180);
  });

  it("a quote asking for an hour gets the hour, less the SDK's clock margin", function () {
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 3_600 })).to.equal(
      MAX_SIGNED_WINDOW_SECONDS,
    );
    expect(MAX_SIGNED_WINDOW_SECONDS).to.be.below(MAX_AUTHORIZATION_SECONDS);
  });

  it("a gate asking for a ten-year window gets at most the buyer's cap", function () {
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: TEN_YEARS }, 900)).to.equal(900);
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: TEN_YEARS })).to.equal(
      MAX_SIGNED_WINDOW_SECONDS,
    );
  });

  it("an absurd window (10^9 s, past a safe integer, negative) is clamped or ignored, never signed", function () {
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 1e9 }, 600)).to.equal(600);
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 2 ** 60 })).to.equal(180);
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: -3_600 })).to.equal(180);
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: Number.NaN })).to.equal(180);
  });

  it("a window asked or capped below what the call needs still covers the call", function () {
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 100 })).to.equal(180);
    expect(authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 3_600 }, 60)).to.equal(180);
  });

  it("refuses a buyer cap that is not a whole number of seconds from 1 to MAX_AUTHORIZATION_SECONDS", function () {
    for (const cap of [0, -1, 1.5, MAX_AUTHORIZATION_SECONDS + 1, TEN_YEARS, Number.NaN])
      expect(() => authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 3_600 }, cap), String(cap))
        .to.throw()
        .with.property("code", "invalid_option");
  });
});
