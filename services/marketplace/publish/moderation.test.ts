import { expect } from "chai";
import type { ModerationRule, ModerationSubject } from "./moderation.ts";
import { blockedTermsRule, defaultModerationRules, moderate } from "./moderation.ts";

const subject = (over: Partial<ModerationSubject> = {}): ModerationSubject => ({
  slug: "weather",
  category: "data",
  name: "Weather",
  description: "Current weather for a city.",
  skills: [{ id: "w", name: "Weather", description: "Returns the weather.", tags: ["weather"] }],
  ...over,
});

describe("moderation", function () {
  const rules = defaultModerationRules("malware,stolen credentials");

  it("passes an ordinary listing", () => expect(moderate(subject(), rules)).to.deep.equal({ ok: true }));

  it("refuses a blocked term in the name, description, category, skill or tag, naming where", function () {
    expect(moderate(subject({ name: "Malware kit" }), rules)).to.deep.equal({
      ok: false,
      reason: 'name contains the blocked term "malware"',
    });
    expect(moderate(subject({ description: "Sells STOLEN credentials." }), rules)).to.deep.equal({
      ok: false,
      reason: 'description contains the blocked term "stolen credentials"',
    });
    expect(moderate(subject({ category: "malware" }), rules)).to.deep.equal({
      ok: false,
      reason: 'category contains the blocked term "malware"',
    });
    const skills = [{ id: "x", name: "x", description: "y", tags: ["malware"] }];
    expect(moderate(subject({ skills }), rules)).to.deep.equal({
      ok: false,
      reason: 'skills[0].tags[0] contains the blocked term "malware"',
    });
  });

  it("refuses a blocked term however it is spelled: plural, spaced, accented, full-width, in the slug or a skill id", function () {
    // Before, the blocklist matched the term's exact letters: each of these passed, and a search for the term found it.
    const spellings: [Partial<ModerationSubject>, string, string][] = [
      [{ name: "Keyloggers for hire" }, "name", "keylogger"],
      [{ description: "Sells stolen  credentials" }, "description", "stolen credentials"],
      [{ description: "stolen\u00a0credentials" }, "description", "stolen credentials"],
      [{ description: "stolen\ncredentials" }, "description", "stolen credentials"],
      [{ name: "Málware kit" }, "name", "malware"],
      [{ name: "ｍａｌｗａｒｅ kit" }, "name", "malware"],
      [{ category: "keyloggers" }, "category", "keylogger"],
      [{ slug: "malware-builder" }, "slug", "malware"],
      [{ skills: [{ id: "keylogger", name: "x", description: "y", tags: [] }] }, "skills[0].id", "keylogger"],
    ];
    const strict = defaultModerationRules("malware,stolen credentials,keylogger");
    for (const [over, where, term] of spellings)
      expect(moderate(subject(over), strict), JSON.stringify(over)).to.deep.equal({
        ok: false,
        reason: `${where} contains the blocked term "${term}"`,
      });
  });

  it("matches whole words only", () =>
    expect(
      moderate(subject({ description: "Anti-malwareish heuristics" }), [blockedTermsRule(["malware"])]),
    ).to.deep.equal({ ok: true }));

  it("refuses a category that is not lowercase words, overlong text and control characters", function () {
    expect(moderate(subject({ category: "Data" }), rules).ok).to.equal(false);
    expect(moderate(subject({ name: "x".repeat(101) }), rules)).to.deep.equal({
      ok: false,
      reason: "name is longer than 100 characters",
    });
    expect(moderate(subject({ description: "bell\u0007" }), rules)).to.deep.equal({
      ok: false,
      reason: "description contains control characters",
    });
  });

  it("is pluggable: a rule of one's own runs after the others", function () {
    const noWeather: ModerationRule = (s) => (s.slug === "weather" ? "weather is reserved" : undefined);
    expect(moderate(subject(), [...rules, noWeather])).to.deep.equal({ ok: false, reason: "weather is reserved" });
  });
});
