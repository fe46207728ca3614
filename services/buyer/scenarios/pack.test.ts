import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { expect } from "chai";
import { callTool, connectStdio } from "../../../testkit/buyer/connectBuyer.ts";
import { holdBuyerDist } from "../../../testkit/buyer/holdBuyerDist.ts";
import { startLocalRegistry } from "../../../testkit/buyer/localRegistry.ts";

const here = new URL("..", import.meta.url).pathname;
const repoModules = join(here, "..", "..", "node_modules");
const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`;

/** The folders of the demo's native EVM in the repository's own install: the wrapper and its platform binding. */
const edrPackages = () => readdirSync(join(repoModules, "@nomicfoundation")).filter((n) => /^edr($|-)/.test(n));

/** npm pointed at a cache of its own (never the user's), quiet, and with the project's Node first on PATH. */
const npmEnv = (cache: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: path,
  npm_config_cache: cache,
  npm_config_update_notifier: "false",
  npm_config_audit: "false",
  npm_config_fund: "false",
  ...extra,
});

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  return execFileSync("npm", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Links into `app` each EDR package the install did not bring, from the repository's own install. Whatever npm took
 * from its cache stays as it is.
 * @example const linked = linkMissingEdr(app)
 */
function linkMissingEdr(app: string): string[] {
  const scope = join(app, "node_modules", "@nomicfoundation");
  mkdirSync(scope, { recursive: true });
  const missing = edrPackages().filter((name) => !existsSync(join(scope, name)));
  for (const name of missing) symlinkSync(join(repoModules, "@nomicfoundation", name), join(scope, name));
  return missing;
}

/**
 * Puts EDR into `cache` as a user's earlier online install of the buyer package would: the repository's EDR folders
 * are published to a real registry on loopback (verdaccio, no uplinks), the tarball is installed from there once,
 * and the registry is stopped again. Returns the registry URL npm's cache entries are keyed by.
 */
async function cacheHoldingEdr(work: string, cache: string, tarball: string): Promise<string> {
  const registry = await startLocalRegistry(join(work, "registry"));
  try {
    for (const name of edrPackages()) await registry.publishInstalled(join(repoModules, "@nomicfoundation", name));
    const scratch = join(work, "seed");
    mkdirSync(scratch);
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "seed", private: true }));
    npm(["install", tarball], scratch, npmEnv(cache, { ...registry.env, npm_config_cache: cache }));
    return registry.url;
  } finally {
    registry.stop();
  }
}

/**
 * The published shape: `npm pack` of services/buyer installs into an empty folder outside the repository from npm's
 * cache only (`--offline`: no registry, no repository node_modules), and its MCP server starts from there with an
 * empty environment and runs the demo over stdio. The demo's native EVM (@nomicfoundation/edr, an optional
 * dependency) comes from the cache when the cache holds it, and is otherwise linked from the repository's install.
 * Both states of the cache are installed here, each into a cache of its own, so the outcome never depends on what
 * the machine's npm cache happens to hold.
 */
describe("service-buyer, packed and installed on its own", function () {
  this.timeout(300_000);
  const work = mkdtempSync(join(tmpdir(), "buyer-pack-"));
  let tarball = "";
  let files: string[] = [];

  before(async function () {
    // As in a fresh checkout: no dist/ at all. `npm pack` must build it itself (the package's prepack).
    const releaseDist = await holdBuyerDist(this);
    let packed: { filename: string; files: { path: string }[] }[];
    try {
      rmSync(join(here, "dist"), { recursive: true, force: true });
      packed = JSON.parse(npm(["pack", "--json", "--pack-destination", work], here, npmEnv(join(work, "cache"))));
    } finally {
      await releaseDist();
    }
    files = packed[0]?.files.map((f) => f.path) ?? [];
    tarball = join(work, packed[0]?.filename ?? "missing.tgz");
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it("builds itself when packed from an unbuilt checkout, and packs only the built JavaScript and the README", function () {
    expect(files).to.include.members([
      "package.json",
      "README.md",
      "dist/bin/service-buyer.js",
      "dist/bin/service-buyer-mcp.js",
      "dist/bin/service-plugins.js",
      "dist/index.js",
    ]);
    expect(files.filter((f) => !f.startsWith("dist/") && f !== "package.json" && f !== "README.md")).to.deep.equal([]);
    expect(files.filter((f) => f.endsWith(".ts"))).to.deep.equal([]);
  });

  const states = [
    { name: "an npm cache without EDR", edrFromCache: false },
    { name: "an npm cache that already holds EDR", edrFromCache: true },
  ];
  for (const state of states) {
    describe(`installed offline from ${state.name}`, function () {
      const dir = join(work, state.edrFromCache ? "warm" : "cold");
      const app = join(dir, "app");
      const home = join(dir, "home");
      let linked: string[] = [];

      before(async function () {
        const cache = join(dir, "cache");
        mkdirSync(app, { recursive: true });
        mkdirSync(home);
        const registry = state.edrFromCache ? await cacheHoldingEdr(dir, cache, tarball) : undefined;
        writeFileSync(join(app, "package.json"), JSON.stringify({ name: "empty-app", private: true }));
        const offline = npmEnv(cache, registry ? { npm_config_registry: registry } : {});
        npm(["install", "--offline", tarball], app, offline);
        linked = linkMissingEdr(app);
      });

      it(state.edrFromCache ? "takes EDR from the cache and links nothing" : "links EDR from the repository", () => {
        const wrapper = join(app, "node_modules", "@nomicfoundation", "edr");
        expect(lstatSync(wrapper).isSymbolicLink()).to.equal(!state.edrFromCache);
        expect(linked).to.deep.equal(state.edrFromCache ? [] : edrPackages());
      });

      it("starts its MCP server from the install with an empty environment and runs the demo, writing nothing in HOME", async function () {
        const bin = join(app, "node_modules", ".bin", "service-buyer-mcp");
        const server = await connectStdio(bin, [], { PATH: path, HOME: home, XDG_DATA_HOME: join(home, "data") }, app);
        try {
          const { tools } = await server.client.listTools();
          expect(tools.map((t) => t.name)).to.include.members(["add_tools", "call_resource", "search_resources"]);
          expect(tools).to.have.length(12);
          const search = await callTool(server.client, "search_resources");
          expect(search.data.mode, JSON.stringify(search.data)).to.equal("demo");
          expect(search.data.resources, JSON.stringify(search.data)).to.be.an("array");
          const [echo] = search.data.resources as { resourceId: string }[];
          const paid = await callTool(server.client, "call_resource", {
            resourceId: echo?.resourceId,
            body: { packed: 1 },
          });
          expect(paid.isError, JSON.stringify(paid.data)).to.equal(false);
          expect(paid.data.body).to.deep.equal({ echo: { packed: 1 } });
          expect(server.stderr()).to.include("service-buyer: signed payment");
        } finally {
          await server.close();
        }
        expect(readdirSync(home)).to.deep.equal([]);
      });
    });
  }
});
