import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { fixtureMarketplace } from "../../../../testkit/buyer/fixtureMarketplace.ts";
import { readTree } from "../../../../testkit/buyer/readTree.ts";
import { runPluginsCommand as cli } from "../../../../testkit/buyer/runPluginsCommand.ts";
import { validateStrict } from "../../../../testkit/buyer/validateStrict.ts";
import { asset, buyer, creator, escrow, validCard, validIndexRecord } from "../../../../testkit/protocol/fixtures.ts";
import { resourceIdOf } from "../../../protocol/resourceId.ts";
import { assignPluginNames } from "./assignPluginNames.ts";

const repo = new URL("../../../../", import.meta.url).pathname;
const CAP = "777777";

const id = (slug: string) => resourceIdOf(creator, slug);
/** The plugin name of a card read alone: from its resource id, never from its words. */
const alone = (slug: string) => `service-endpoint-${id(slug).slice(2, 10)}`;

function card(resourceId: Hex, name: string, description: string, payTo: Hex = resourceId): unknown {
  const base = validCard();
  return {
    ...base,
    name,
    description,
    x402: { ...base.x402, payTo, pricing: { ...base.x402.pricing, max: CAP } },
  };
}

function record(slug: string, cardUrl: string, extra: Record<string, unknown> = {}): unknown {
  const base = validIndexRecord();
  return {
    ...base,
    resourceId: id(slug),
    slug,
    cardUrl,
    pricing: { ...base.pricing, max: CAP },
    ...extra,
  };
}

const pluginNames = (out: string) => readdirSync(join(out, "plugins")).sort();
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("service-plugins generate", function () {
  this.timeout(60_000);
  let market: Awaited<ReturnType<typeof fixtureMarketplace>>;
  let work: string;
  const out = (name: string) => join(work, name);
  const cardPath = (resourceId: Hex) => `/${resourceId}/.well-known/agent-card.json`;

  before(async function () {
    work = mkdtempSync(join(tmpdir(), "plugins-"));
    market = await fixtureMarketplace({ records: [], cards: new Map() });
    const c = market.content.cards;
    c.set(cardPath(id("weather")), card(id("weather"), "Weather", "Current weather for a city, from its card."));
    c.set(cardPath(id("echo")), card(id("echo"), "Echo", "Returns what it is sent."));
    c.set(cardPath(id("buyer")), card(id("buyer"), "Buyer", "An endpoint whose slug is the base plugin's."));
    c.set(cardPath(id("text-stats")), card(id("text-stats"), "Text Stats", "Counts words."));
    c.set(cardPath(id("echo-2")), card(id("echo-2"), "ECHO", "Another echo, by name only."));
    c.set(cardPath(id("extra-field")), { ...(card(id("extra-field"), "Extra", "x") as object), surprise: true });
    c.set(cardPath(id("pays-other")), card(id("pays-other"), "Thief", "Pays someone else.", id("weather")));
    market.content.records.push(
      record("weather", market.cardUrl(id("weather"))),
      record("echo", market.cardUrl(id("echo"))),
      record("buyer", market.cardUrl(id("buyer"))),
      { ...(record("broken", market.cardUrl(id("broken"))) as object), reputation: 101 },
      record("struck", market.cardUrl(id("struck")), { active: false }),
    );
  });

  after(async function () {
    await market.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("writes a marketplace that `claude plugin validate --strict` accepts, at the root and for every plugin", async function () {
    const dir = out("valid");
    const { code, stderr } = await cli(
      "generate",
      "--marketplace-url",
      market.url,
      "--card",
      market.cardUrl(id("text-stats")),
      "--out",
      dir,
      "--local",
    );
    expect(code, stderr).to.equal(0);
    const plugins = pluginNames(dir);
    expect(plugins).to.have.length(5);
    expect(validateStrict(dir)).to.deep.equal([]);
    const listed = readJson(join(dir, ".claude-plugin/marketplace.json")).plugins.map((p: { name: string }) => p.name);
    expect(listed).to.deep.equal(plugins);
  });

  it("projects each endpoint into a plugin: sensitive key option, scoped stdio server, a skill with price and reputation", async function () {
    const dir = out("shape");
    expect((await cli("generate", "--marketplace-url", market.url, "--out", dir, "--local")).code).to.equal(0);
    const plugin = join(dir, "plugins/service-weather");
    const manifest = readJson(join(plugin, ".claude-plugin/plugin.json"));
    expect(manifest).to.include({ name: "service-weather", version: "0.1.0", license: "MIT" });
    expect(manifest.network.hosts).to.deep.equal([new URL(market.url).host, "127.0.0.1"]);
    const readme = readFileSync(join(plugin, "README.md"), "utf8");
    expect(readme).to.include("/plugin install service-weather@service-marketplace");
    expect(manifest.author.name).to.be.a("string");
    expect(manifest.userConfig.buyer_private_key).to.include({ type: "string", sensitive: true, required: false });
    for (const limit of [
      "spend_max_per_call",
      "spend_hourly_budget",
      "spend_daily_budget",
      "spend_max_authorization_seconds",
    ])
      expect(manifest.userConfig[limit]).to.include({ type: "string", required: false, default: "" });
    const server = readJson(join(plugin, ".mcp.json")).mcpServers.buyer;
    expect(server.type).to.equal("stdio");
    expect(server.command).to.equal("node");
    expect(server.args).to.deep.equal([
      `\${CLAUDE_PLUGIN_ROOT}/${relative(plugin, join(repo, "services/buyer/dist/bin/service-buyer-mcp.js"))}`,
    ]);
    expect(server.env.SERVICE_RESOURCE_IDS).to.equal(id("weather"));
    expect(server.env.BUYER_PRIVATE_KEY).to.equal(`\${user_config.buyer_private_key}`);
    for (const [name, value] of Object.entries(server.env as Record<string, string>)) {
      const option = /^\$\{user_config\.([a-z_]+)\}$/.exec(value)?.[1];
      if (option) expect(manifest.userConfig, `${name} names an undeclared option`).to.have.property(option);
    }
    const skill = readFileSync(join(plugin, "skills/service-weather/SKILL.md"), "utf8");
    expect(skill).to.match(/^---\nname: service-weather\ndescription: "Use when/);
    expect(skill).to.include(id("weather"));
    expect(skill).to.include("1000 base units per call plus 200 per KB");
    expect(skill).to.include("90/100 in the marketplace index");
    const base = readJson(join(dir, "plugins/service-buyer/.mcp.json")).mcpServers.buyer;
    expect(base.env).to.not.have.property("SERVICE_RESOURCE_IDS");
  });

  it("never writes a secret or a money field: no escrow, no asset, no cap, no key", async function () {
    const dir = out("no-money");
    const known = ["weather", "echo", "buyer", "text-stats"].map(id);
    await cli(
      "generate",
      "--marketplace-url",
      market.url,
      "--enrich",
      "--card",
      market.cardUrl(id("text-stats")),
      "--out",
      dir,
      "--local",
    );
    for (const [path, text] of readTree(dir)) {
      const lower = text.toLowerCase();
      expect(lower, path).to.not.include(escrow.toLowerCase());
      expect(lower, path).to.not.include(asset.toLowerCase());
      expect(text, path).to.not.include(CAP);
      for (const hex of lower.match(/0x[0-9a-f]{64}/g) ?? [])
        expect(known, `${path} holds a 32-byte value that is no resource id`).to.include(hex);
    }
  });

  it("is deterministic: the same input gives byte-identical files, whatever the order of the cards", async function () {
    const cards = [id("text-stats"), id("echo-2")].map((r) => market.cardUrl(r));
    const a = out("same-a");
    const b = out("same-b");
    await cli(
      "generate",
      "--marketplace-url",
      market.url,
      "--card",
      cards[0]!,
      "--card",
      cards[1]!,
      "--out",
      a,
      "--local",
    );
    await cli(
      "generate",
      "--marketplace-url",
      market.url,
      "--card",
      cards[1]!,
      "--card",
      cards[0]!,
      "--out",
      b,
      "--local",
    );
    const [filesA, filesB] = [readTree(a), readTree(b)];
    expect([...filesA.keys()].sort()).to.deep.equal([...filesB.keys()].sort());
    for (const [path, text] of filesA) expect(filesB.get(path), path).to.equal(text);
  });

  it("gives endpoints whose slugs collide distinct, stable names, and never the base plugin's", async function () {
    const twin = resourceIdOf(buyer.address, "echo");
    market.content.records.push({
      ...(record("echo", market.cardUrl(twin)) as object),
      resourceId: twin,
      creator: buyer.address,
    });
    try {
      const dir = out("collide");
      const flags = ["--local", "--no-enrich"];
      expect((await cli("generate", "--marketplace-url", market.url, "--out", dir, ...flags)).code).to.equal(0);
      const suffix = (resourceId: Hex) => resourceId.slice(2, 10);
      expect(pluginNames(dir)).to.deep.equal(
        [
          "service-buyer",
          `service-buyer-${suffix(id("buyer"))}`,
          `service-echo-${suffix(id("echo"))}`,
          `service-echo-${suffix(twin)}`,
          "service-weather",
        ].sort(),
      );
    } finally {
      market.content.records.pop();
    }
    const inputs = [
      { resourceId: id("echo"), slug: "echo" },
      { resourceId: twin, slug: "echo" },
      { resourceId: id("buyer"), slug: "buyer" },
      { resourceId: id("weather"), slug: "weather" },
    ];
    const forward = assignPluginNames(inputs);
    const backward = assignPluginNames([...inputs].reverse());
    for (const { resourceId } of inputs) expect(backward.get(resourceId)).to.equal(forward.get(resourceId));
    const sameHex = assignPluginNames([
      { resourceId: `0x${"ab".repeat(4)}${"01".repeat(28)}`, slug: "x" },
      { resourceId: `0x${"ab".repeat(4)}${"02".repeat(28)}`, slug: "x" },
    ]);
    expect(new Set(sameHex.values()).size).to.equal(2);
  });

  it("a card whose x402.payTo names another resource is skipped, as is one failing the strict schema, each named; the rest is generated (without the payTo check its text would be advertised under a resource it does not pay; fails with the check removed)", async function () {
    const dir = out("bad-cards");
    const bad = [market.cardUrl(id("extra-field")), market.cardUrl(id("pays-other"))];
    const { code, stderr, stdout } = await cli(
      "generate",
      "--card",
      bad[0]!,
      "--card",
      bad[1]!,
      "--card",
      market.cardUrl(id("text-stats")),
      "--out",
      dir,
      "--local",
      "--json",
    );
    expect(code, stderr).to.equal(0);
    expect(stderr).to.match(new RegExp(`warning: skipped card ${bad[0]}: fails the strict card schema`));
    expect(stderr).to.match(new RegExp(`warning: skipped card ${bad[1]}: x402.payTo ${id("weather")} differs`));
    expect(pluginNames(dir)).to.deep.equal(["service-buyer", alone("text-stats")]);
    const summary = JSON.parse(stdout);
    expect(summary.skipped.map((s: { source: string }) => s.source)).to.deep.equal(bad.map((u) => `card ${u}`));
    expect(summary.plugins.map((p: { name: string }) => p.name)).to.deep.equal(["service-buyer", alone("text-stats")]);
  });

  it("reads only active endpoints and skips index records that fail the schema, with a warning", async function () {
    const { stderr } = await cli("generate", "--marketplace-url", market.url, "--out", out("records"), "--local");
    expect(stderr).to.include(
      "warning: skipped 1 index record(s) of rows 0-3: they fail the strict index-record schema",
    );
    expect(market.requests).to.include("/resources?active=true&limit=1000&offset=0");
    expect(pluginNames(out("records"))).to.not.include.members(["service-broken", "service-struck"]);
  });

  it("an unreachable marketplace is an error and nothing is written", async function () {
    const gone = await fixtureMarketplace({ records: [], cards: new Map() });
    await gone.close();
    const fresh = out("unreachable-fresh");
    const first = await cli("generate", "--marketplace-url", gone.url, "--out", fresh, "--local");
    expect(first.code).to.equal(1);
    expect(first.stderr).to.include(`The marketplace index at ${gone.url} could not be read`);
    expect(existsSync(fresh)).to.equal(false);

    const kept = out("unreachable-kept");
    await cli("generate", "--marketplace-url", market.url, "--out", kept, "--local");
    const before = readTree(kept);
    const second = await cli("generate", "--marketplace-url", gone.url, "--out", kept, "--local", "--prune");
    expect(second.code).to.equal(1);
    expect(readTree(kept)).to.deep.equal(before);
  });

  it("--prune drops plugin folders no longer generated; without it they stay but are not listed", async function () {
    const dir = out("prune");
    mkdirSync(join(dir, "plugins/service-stale/.claude-plugin"), { recursive: true });
    writeFileSync(join(dir, "plugins/service-stale/.claude-plugin/plugin.json"), "{}");
    writeFileSync(join(dir, "keep.txt"), "not a plugin");
    await cli("generate", "--marketplace-url", market.url, "--out", dir, "--local");
    expect(pluginNames(dir)).to.include("service-stale");
    const listed = () =>
      readJson(join(dir, ".claude-plugin/marketplace.json")).plugins.map((p: { name: string }) => p.name);
    expect(listed()).to.not.include("service-stale");
    await cli("generate", "--marketplace-url", market.url, "--out", dir, "--local", "--prune");
    expect(pluginNames(dir)).to.not.include("service-stale");
    expect(pluginNames(dir)).to.deep.equal(listed());
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).to.equal("not a plugin");
  });

  it("--no-base omits the base plugin", async function () {
    const dir = out("no-base");
    await cli("generate", "--marketplace-url", market.url, "--out", dir, "--local", "--no-base");
    expect(pluginNames(dir)).to.not.include("service-buyer");
    expect(pluginNames(dir)).to.include("service-weather");
    const withBase = out("with-base");
    await cli("generate", "--marketplace-url", market.url, "--out", withBase, "--local");
    expect(pluginNames(withBase)).to.include("service-buyer");
  });

  it("reads each endpoint's card by default (its plain tags in the skill's description, its words quoted); --no-enrich reads the index alone", async function () {
    const plain = out("plain");
    const before = market.requests.length;
    await cli("generate", "--marketplace-url", market.url, "--out", plain, "--local", "--no-enrich");
    expect(market.requests.slice(before).some((r) => r.includes("agent-card"))).to.equal(false);
    const skillOf = (dir: string) =>
      readFileSync(join(dir, "plugins/service-weather/skills/service-weather/SKILL.md"), "utf8");
    expect(skillOf(plain)).to.not.include("from its card");

    const enriched = out("enriched");
    await cli("generate", "--marketplace-url", market.url, "--out", enriched, "--local");
    expect(skillOf(enriched)).to.include("Current weather for a city, from its card.");
    expect(market.requests).to.include(`/${id("weather")}/.well-known/agent-card.json`);
    const tags = validCard().skills.flatMap((skill) => skill.tags);
    expect(tags.length, "the fixture card has tags").to.be.greaterThan(0);
    const description = /^description: (.*)$/m.exec(skillOf(enriched))?.[1] ?? "";
    expect(description).to.include(`Its creator tags it: ${tags.slice(0, 6).join(", ")}.`);
    expect(skillOf(plain)).to.not.include("Its creator tags it");
  });

  it("--enrich skips an endpoint whose card pays another resource, naming the card (fails with the payTo check removed)", async function () {
    market.content.records.push(record("thief", market.cardUrl(id("pays-other"))));
    try {
      const dir = out("enrich-bad");
      const { stderr } = await cli("generate", "--marketplace-url", market.url, "--out", dir, "--local", "--enrich");
      expect(stderr).to.include(`warning: skipped card ${market.cardUrl(id("pays-other"))}`);
      expect(pluginNames(dir)).to.not.include("service-thief");
    } finally {
      market.content.records.pop();
    }
  });

  it("repeated --card adds each card, alone (named from its resource id) or beside the index; a card of a listed endpoint adds its words", async function () {
    const dir = out("cards-alone");
    const cards = ["text-stats", "weather"].flatMap((slug) => ["--card", market.cardUrl(id(slug))]);
    expect((await cli("generate", ...cards, "--out", dir, "--local")).code).to.equal(0);
    expect(pluginNames(dir)).to.deep.equal(["service-buyer", alone("text-stats"), alone("weather")].sort());
    const plugin = join(dir, "plugins", alone("text-stats"));
    expect(readJson(join(plugin, ".mcp.json")).mcpServers.buyer.env.SERVICE_RESOURCE_IDS).to.equal(id("text-stats"));
    const manifest = readJson(join(plugin, ".claude-plugin/plugin.json"));
    expect(manifest.userConfig.marketplace_url.default).to.equal(market.url);
    expect(readFileSync(join(plugin, `skills/${alone("text-stats")}/SKILL.md`), "utf8")).to.include('"Counts words."');

    const both = out("cards-and-index");
    await cli("generate", "--marketplace-url", market.url, ...cards, "--out", both, "--local");
    expect(pluginNames(both).filter((n) => n.startsWith("service-weather"))).to.deep.equal(["service-weather"]);
    const skill = readFileSync(join(both, "plugins/service-weather/skills/service-weather/SKILL.md"), "utf8");
    expect(skill).to.include("from its card");
    expect(skill).to.include("90/100 in the marketplace index");
  });

  it("reads every page of the index", async function () {
    const many = await fixtureMarketplace({
      records: Array.from({ length: 1003 }, (_, i) => record(`e${i}`, `http://127.0.0.1:1/${id(`e${i}`)}/card`)),
      cards: new Map(),
    });
    try {
      const dir = out("pages");
      const flags = ["--local", "--no-enrich", "--json"];
      const { code, stdout } = await cli("generate", "--marketplace-url", many.url, "--out", dir, ...flags);
      expect(code).to.equal(0);
      expect(many.requests).to.deep.equal([
        "/resources?active=true&limit=1000&offset=0",
        "/resources?active=true&limit=1000&offset=1000",
      ]);
      expect(JSON.parse(stdout).plugins).to.have.length(1004);
    } finally {
      await many.close();
    }
  });

  it("refuses bad usage with exit code 2 and writes nothing", async function () {
    const dir = out("usage");
    for (const argv of [
      ["generate", "--marketplace-url", market.url, "--out", dir, "--local", "--published"],
      ["generate", "--marketplace-url", market.url],
      ["generate", "--out", dir, "--local"],
      ["generate", "--out", dir, "--local", "--enrich", "--card", market.cardUrl(id("weather"))],
      ["generate", "--marketplace-url", "ftp://x", "--out", dir, "--local"],
      ["generate", "--bogus", "--out", dir],
      ["publish"],
    ]) {
      const { code, stderr } = await cli(...argv);
      expect(code, argv.join(" ")).to.equal(2);
      expect(stderr).to.include("usage: service-plugins generate");
    }
    expect(existsSync(dir)).to.equal(false);
  });
});
