import { z } from "zod";

/** The endpoints of an `RPC_URL` setting: one, or several separated by commas (the facilitator fails over to the next). */
export function rpcUrlsOf(setting: string): string[] {
  return setting
    .split(",")
    .map((url) => url.trim())
    .filter(Boolean);
}

/** An `RPC_URL` setting: a URL, or several separated by commas. */
export const rpcSettingSchema = z
  .string()
  .min(1)
  .refine((value) => rpcUrlsOf(value).length > 0 && rpcUrlsOf(value).every((url) => z.url().safeParse(url).success), {
    message: "a URL, or several separated by commas",
  });

/**
 * The label of an RPC endpoint in metrics, logs and printed output: its host and port only. Hosted providers put the
 * API key in the path, the query or the credentials of the URL, none of which may reach a metric or a log.
 * @example endpointLabel("https://arc-testnet.example.com/v2/SECRET") // "arc-testnet.example.com"
 */
export function endpointLabel(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).host || "unknown";
  } catch {
    return "unknown";
  }
}
