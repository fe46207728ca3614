import { createHost } from "./createHost.ts";
import { HostConfigError, loadHostConfig } from "./loadHostConfig.ts";

/** Entry point: `node services/host/main.ts`, configured by environment variables (see README). */
try {
  const host = await createHost(loadHostConfig(process.env));
  const shutdown = () => {
    host.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof HostConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
