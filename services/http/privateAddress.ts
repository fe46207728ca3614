import { BlockList, isIPv4, isIPv6 } from "node:net";

/** IPv4 space that is not the public internet: this network, private, CGNAT, loopback, link-local (cloud metadata), multicast and reserved. */
export const PRIVATE_V4_RANGES = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "224.0.0.0/3",
] as const;

const privateV4 = new BlockList();
for (const range of PRIVATE_V4_RANGES) {
  const [network, prefix] = range.split("/") as [string, string];
  privateV4.addSubnet(network, Number(prefix), "ipv4");
}
const globalV6 = new BlockList();
globalV6.addSubnet("2000::", 3, "ipv6");
const mappedV4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * Whether an IP address is outside the public internet: one of {@link PRIVATE_V4_RANGES}, or an IPv6 address outside
 * global unicast space (2000::/3: loopback, link-local, unique-local, multicast), an IPv4-mapped address judged by its
 * IPv4 address, and anything that is not an IP address at all.
 * @example isPrivateAddress("169.254.169.254") // true; isPrivateAddress("203.0.113.7") // false
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const mapped = mappedV4.exec(bare);
  if (mapped?.[1]) return isPrivateAddress(mapped[1]);
  if (isIPv4(bare)) return privateV4.check(bare, "ipv4");
  if (isIPv6(bare)) return !globalV6.check(bare, "ipv6");
  return true;
}
