/**
 * How many `/verify` requests a facilitator has answered (its `facilitator_verify_total` counters, every outcome):
 * a test reads it before and after a refused call to show that nothing reached the facilitator.
 * @example const before = await countVerifies(facilitatorUrl)
 */
export async function countVerifies(facilitatorUrl: string): Promise<number> {
  const text = await (await fetch(`${facilitatorUrl}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("facilitator_verify_total"))
    .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
}
