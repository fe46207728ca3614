import { chmodSync, copyFileSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * Builds the publishable package into dist/: one ESM bundle per bin and the SDK entry, with everything they import
 * compiled in (the protocol code, the facilitator and gate the demo runs, viem, zod, the MCP SDK, Koa, PGlite with
 * its WebAssembly files copied beside the bundles) and the contract artifacts (ABIs, and the bytecode the demo
 * deploys) inlined from Hardhat's build output and, for Circle's FiatToken, from its package. Only the native EVM
 * of the demo (@nomicfoundation/edr, an optional dependency) stays external, so the packed package installs with
 * nothing else. `node build.ts` or `npm run build`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8")) as {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const dist = join(here, "dist");
const bins = ["service-buyer", "service-buyer-mcp", "service-plugins"];

const inlineArtifacts = {
  name: "inline-artifacts",
  setup(b: import("esbuild").PluginBuild) {
    b.onLoad({ filter: /services[\\/]protocol[\\/]artifacts\.ts$/ }, async () => {
      const { CIRCLE_SOURCES, CONTRACT_SOURCES, abiOf, bytecodeOf, circleArtifactOf } = await import(
        "../protocol/artifacts.ts"
      );
      const artifacts: Record<string, { abi: unknown; bytecode: string }> = {};
      for (const name of Object.keys(CONTRACT_SOURCES) as (keyof typeof CONTRACT_SOURCES)[]) {
        artifacts[name] = { abi: abiOf(name), bytecode: bytecodeOf(name) };
      }
      const circle = Object.fromEntries(
        (Object.keys(CIRCLE_SOURCES) as (keyof typeof CIRCLE_SOURCES)[]).map((name) => {
          const { contractName, abi, bytecode, linkReferences } = circleArtifactOf(name);
          return [name, { contractName, abi, bytecode, linkReferences }];
        }),
      );
      const contents = `const artifacts = ${JSON.stringify(artifacts)};
const circle = ${JSON.stringify(circle)};
export function abiOf(name) { return artifacts[name].abi; }
export function bytecodeOf(name) { return artifacts[name].bytecode; }
export function circleArtifactOf(name) { return circle[name]; }
`;
      return { contents, loader: "js" };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [
    ...bins.map((name) => ({ in: join(here, "bin", `${name}.ts`), out: `bin/${name}` })),
    { in: join(here, "src", "index.ts"), out: "index" },
  ],
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {}), "pg-native"],
  plugins: [inlineArtifacts],
  logLevel: "warning",
  legalComments: "eof",
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
});
const pglite = join(root, "node_modules", "@electric-sql", "pglite", "dist");
for (const file of ["pglite.wasm", "pglite.data", "initdb.wasm"]) copyFileSync(join(pglite, file), join(dist, file));
for (const name of bins) chmodSync(join(dist, "bin", `${name}.js`), 0o755);
