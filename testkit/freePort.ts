import type { AddressInfo } from "node:net";
import { createServer } from "node:net";

/**
 * A free TCP port on 127.0.0.1.
 * @example const port = await freePort()
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
