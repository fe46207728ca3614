import { readFileSync } from "node:fs";
import type { Address } from "viem";
import { getAddress } from "viem";
import { z } from "zod";
import { DEFAULTS } from "../../ignition/modules/parts.ts";
import { DEFAULT_MIN_BOND, FEE_BPS_LIMIT, TEST_NETWORK } from "../protocol/constants.ts";
import { addressSchema } from "../protocol/schemas/primitives.ts";
import { DeployError } from "./deployError.ts";

const seconds = z
  .number()
  .int()
  .min(0)
  .max(2 ** 48 - 1);

/**
 * The `$global` section of a deployment's parameters file (Ignition's format): who holds each role and the contracts'
 * settings. Every role is named; nothing is left to a default. `registryAddress` and `escrowAddress` bind contracts
 * already deployed instead of deploying them.
 */
export const deployParametersSchema = z.strictObject({
  /** Receives DEFAULT_ADMIN_ROLE (through the two-step hand-off) and PAUSER_ROLE of the escrow and the registry. */
  admin: addressSchema,
  /** Receives the escrow's fees and the registry's slashed bonds. */
  treasury: addressSchema,
  /** RELAYER_ROLE on the escrow: every key of the facilitators' relayer pools; any other holder is revoked. */
  relayers: z.array(addressSchema).min(1, "name at least one relayer"),
  /** FACILITATOR_ROLE on the registry (records strikes); any other holder is revoked. */
  facilitator: addressSchema,
  /** PUBLISHER_ROLE on the registry (the marketplace's operator, submits `registerFor`); any other holder is revoked. */
  publisher: addressSchema,
  /** The stablecoin; with NETWORK set, the network's USDC (and no other). */
  tokenAddress: addressSchema.optional(),
  /** The ERC-8004 identity registry. */
  identityAddress: addressSchema,
  /** A ResourceRegistry already deployed: bound instead of deployed. */
  registryAddress: addressSchema.optional(),
  /** A PaymentEscrow already deployed: bound instead of deployed. */
  escrowAddress: addressSchema.optional(),
  feeBps: z
    .number()
    .int()
    .min(0)
    .max(FEE_BPS_LIMIT - 1)
    .default(DEFAULTS.feeBps),
  strikeThreshold: z
    .number()
    .int()
    .min(3)
    .max(2 ** 32 - 1)
    .default(DEFAULTS.strikeThreshold),
  slashBps: z.number().int().min(0).max(5_000).default(DEFAULTS.slashBps),
  minBond: z
    .union([z.number().int().min(0), z.string().regex(/^[0-9]+$/, "a whole number of base units")])
    .default(DEFAULT_MIN_BOND.toString())
    .transform((value) => BigInt(value)),
  bondWithdrawalDelay: seconds.default(Number(DEFAULTS.bondWithdrawalDelay)),
  /** Seconds between beginning and accepting a transfer of the admin role. */
  adminDelay: seconds.default(DEFAULTS.adminDelay),
});

/** A setting of the parameters file. */
export type ParameterName = keyof z.input<typeof deployParametersSchema>;

/** A deployment's validated parameters, with the stablecoin resolved. */
export type DeployParameters = Omit<z.output<typeof deployParametersSchema>, "tokenAddress"> & {
  tokenAddress: Address;
};

/**
 * Why a stablecoin is refused on a named network: it must be the network's USDC. Shared by `npm start` and `npm run
 * deploy`, so the network's constants have one source (`TEST_NETWORK`).
 * @example const problem = networkTokenProblem("arc-testnet", token, "TOKEN_ADDRESS")
 */
export function networkTokenProblem(network: string, token: string | undefined, setting: string): string | undefined {
  if (network !== TEST_NETWORK.name || token === undefined) return undefined;
  if (getAddress(token) === getAddress(TEST_NETWORK.usdc)) return undefined;
  return `${setting}: ${token} is not ${network}'s USDC (${TEST_NETWORK.usdc}); leave it unset`;
}

/**
 * Validates a deployment's parameters (the `$global` section of an Ignition parameters file) for a deployer: every
 * problem is named; a role given to the deployer is refused (it renounces every role once the admin is handed over),
 * and so is an admin that is also a service key.
 * @throws {DeployError} naming every problem.
 * @example const parameters = parseDeployParameters(json.$global, { deployer, network: "arc-testnet", source })
 */
export function parseDeployParameters(
  global: unknown,
  p: { deployer: Address; network?: string; source: string; names?: Partial<Record<ParameterName, string>> },
): DeployParameters {
  const name = (field: string) => {
    const [head, ...rest] = field.split(".");
    const given = p.names?.[head as ParameterName];
    return given ? [given, ...rest].join(".") : `$global.${field}`;
  };
  const parsed = deployParametersSchema.safeParse(global);
  if (!parsed.success)
    throw new DeployError(
      `${p.source}: ${parsed.error.issues.map((i) => `${name(i.path.join(".") || "(root)")}: ${i.message}`).join("; ")}`,
    );
  const given = parsed.data;
  const token = given.tokenAddress ?? (p.network === TEST_NETWORK.name ? getAddress(TEST_NETWORK.usdc) : undefined);
  const services = [...given.relayers, given.facilitator, given.publisher];
  const problems = [
    token === undefined && `${name("tokenAddress")}: required (the stablecoin), or set NETWORK`,
    p.network !== undefined && networkTokenProblem(p.network, given.tokenAddress, name("tokenAddress")),
    new Set(given.relayers).size !== given.relayers.length && `${name("relayers")}: an address is named twice`,
    ...(
      [
        ["admin", given.admin],
        ["treasury", given.treasury],
        ["facilitator", given.facilitator],
        ["publisher", given.publisher],
        ...given.relayers.map((relayer, i) => [`relayers.${i}`, relayer] as const),
      ] as const
    ).map(
      ([field, address]) =>
        address === p.deployer &&
        `${name(field)}: ${address} is the deployer, which gives up every role once the admin is handed over; name the role's own address`,
    ),
    services.includes(given.admin) &&
      `${name("admin")}: ${given.admin} is also a service key; the admin is an address no service holds the key of`,
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length) throw new DeployError(`${p.source}: ${problems.join("; ")}`);
  return { ...given, tokenAddress: token as Address };
}

/**
 * Reads a parameters file (Ignition's JSON format; the deployment's settings are its `$global` section).
 * @throws {DeployError} for a file that cannot be read, is not JSON or has a bad setting.
 * @example const parameters = readDeployParameters("deploy.json", { deployer, network: "arc-testnet" })
 */
export function readDeployParameters(path: string, p: { deployer: Address; network?: string }): DeployParameters {
  let json: { $global?: unknown };
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DeployError(
      `parameters file ${path}: ${code === "ENOENT" ? "no such file" : code ? `cannot read it (${code})` : "not JSON"}`,
    );
  }
  if (typeof json !== "object" || json === null || json.$global === undefined)
    throw new DeployError(`parameters file ${path}: no "$global" section (Ignition's format: { "$global": { … } })`);
  return parseDeployParameters(json.$global, { ...p, source: `parameters file ${path}` });
}

/**
 * The parameters as JSON (bigints as decimal strings), as the deployment record keeps them and `parseDeployParameters`
 * reads them back.
 * @example writeFileSync(file, JSON.stringify({ $global: parametersJson(parameters) }, null, 2))
 */
export function parametersJson(parameters: DeployParameters): Record<string, unknown> {
  return { ...parameters, minBond: parameters.minBond.toString() };
}
