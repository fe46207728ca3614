import { formatGwei } from "viem";
import type { PublishSummary } from "./publishSummary.ts";

const EXAMPLES_SHOWN = 5;

function writer(origin: PublishSummary["writtenBy"]): string {
  if (origin.recipe) {
    const parameters = Object.entries(origin.parameters ?? {}).map(([k, v]) => `${k}=${v}`);
    const accepted = origin.accepted?.length
      ? `; listed although it does not explain ${origin.accepted.map((w) => `"${w}"`).join(", ")}, as the creator said`
      : "";
    return `catalog recipe ${origin.recipe}${parameters.length ? ` (${parameters.join(", ")})` : ""}, match score ${origin.score ?? "?"}${accepted}`;
  }
  return `model ${origin.model ?? "(unnamed)"} through the ${origin.provider} provider`;
}

/** How the price met the marketplace's floor, in words: raised to it and why, at or above it, or unknown. */
function floorLine({ floor, measured, raised }: PublishSummary["priceFloor"], price: PublishSummary["price"]): string {
  if (!floor.ok) return `unknown: ${floor.reason}; the marketplace checks the price when it is published`;
  const why =
    `the marketplace lists no base or cap below ${floor.minimumBase}: at a base fee of ${formatGwei(BigInt(floor.baseFeeWei))} gwei ` +
    `a settled call (${floor.gasPerDebit} gas) costs ${floor.costPerCallUnits} base units, which its ${floor.feeBps / 100}% ` +
    `treasury share must cover with a ${floor.marginBps / 100}% margin`;
  return raised
    ? `raised base ${measured.base} → ${price.base} and cap ${measured.max} → ${price.max}: ${why}`
    : `the measured base ${measured.base} is at or above the floor; ${why}`;
}

/**
 * The summary as the CLI prints it before asking to publish: one labelled line per field, schemas and examples as
 * compact JSON.
 * @example for (const line of summaryLines(publishSummary(bundle))) console.log(line)
 */
export function summaryLines(s: PublishSummary): string[] {
  const json = (value: unknown) => JSON.stringify(value);
  const examples = s.examples.slice(0, EXAMPLES_SHOWN).map((e) => `${json(e.input)} → ${json(e.output)}`);
  if (s.examples.length > EXAMPLES_SHOWN) examples.push(`(${s.examples.length - EXAMPLES_SHOWN} more in the contract)`);
  return [
    `  name         ${s.name} (${s.slug})`,
    `  does         ${s.description}`,
    `  category     ${s.category}; tags ${s.tags.join(", ")}`,
    `  request      ${json(s.requestSchema)}`,
    `  response     ${json(s.responseSchema)} (at most ${s.maxResponseBytes} bytes)`,
    ...examples.map((line, i) => `  ${i === 0 ? "examples    " : "            "} ${line}`),
    `  price        base ${s.price.base}, per KB ${s.price.perKB}, cap ${s.price.max} (base units)`,
    `  price floor  ${floorLine(s.priceFloor, s.price)}`,
    `  written by   ${writer(s.writtenBy)}`,
    `  verified     ${s.verified.passed}/${s.verified.checks} checks, ${s.verified.generatedInputs} generated inputs, p95 ${s.verified.p95Ms} ms`,
  ];
}
