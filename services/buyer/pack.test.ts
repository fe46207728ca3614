import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { expect } from "chai";
import { callTool, connectStdio } from "./src/mcp/testing/connectBuyer.ts";

const here = new URL(".", import.meta.url).pathname;
const repoModules = join(here, "..", "..", "node_modules");

/**
 * The published shape: `npm pack` of services/buyer installs into an empty folder outside the repository with
 * npm's cache only (`--offline`: no registry, no repository node_modules), and its MCP server starts from there
 * with an empty environment and runs the demo over stdio. The demo's native EVM (@nomicfoundation/edr, an optional
 * dependency npm would fetch from the registry) is the one thing this offline test places by hand, from the
 * repository's own install.
 */
describe("service-buyer, packed and installed on its own", function () {
  this.timeout(300_000);
  const work = mkdtempSync(join(tmpdir(), "buyer-pack-"));
  const app = join(work, "app");
  const home = join(work, "home");
  const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`;
  let files: string[] = [];

  before(function () {
    execFileSync(process.execPath, [join(here, "build.ts")], { stdio: "inherit" });
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
        cwd: here,
        env: { ...process.env, PATH: path },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    files = packed[0]?.files.map((f) => f.path) ?? [];
    mkdirSync(app);
    mkdirSync(home);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "empty-app", private: true }));
    execFileSync(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", join(work, packed[0]?.filename ?? "missing.tgz")],
      { cwd: app, env: { ...process.env, PATH: path }, stdio: ["ignore", "ignore", "inherit"] },
    );
    const edr = join(app, "node_modules", "@nomicfoundation");
    mkdirSync(edr, { recursive: true });
    for (const name of readdirSync(join(repoModules, "@nomicfoundation")).filter((n) => /^edr($|-)/.test(n)))
      symlinkSync(join(repoModules, "@nomicfoundation", name), join(edr, name));
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it("packs only the built JavaScript and the README", function () {
    expect(files).to.include.members(["package.json", "README.md", "dist/bin/service-buyer-mcp.js", "dist/index.js"]);
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json" && f !== "README.md")).to.deep.equal([]);
    expect(files.filter((f) => f.endsWith(".ts"))).to.deep.equal([]);
  });

  it("starts its MCP server from the install with an empty environment and runs the demo, writing nothing in HOME", async function () {
    const bin = join(app, "node_modules", ".bin", "service-buyer-mcp");
    const server = await connectStdio(bin, [], { PATH: path, HOME: home, XDG_DATA_HOME: join(home, "data") }, app);
    try {
      const { tools } = await server.client.listTools();
      expect(tools).to.have.length(6);
      const search = await callTool(server.client, "search_resources");
      expect(search.data.mode, JSON.stringify(search.data)).to.equal("demo");
      const [echo] = search.data.resources as { resourceId: string }[];
      const paid = await callTool(server.client, "call_resource", {
        resourceId: echo?.resourceId,
        body: { packed: 1 },
      });
      expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
      expect(paid.data.body).to.deep.equal({ echo: { packed: 1 } });
    } finally {
      await server.close();
    }
    expect(readdirSync(home)).to.deep.equal([]);
  });
});
