import { createFacilitator } from "./createFacilitator.ts";
import { FacilitatorConfigError, loadFacilitatorConfig } from "./loadFacilitatorConfig.ts";

/** Entry point: `node services/facilitator/main.ts`, configured by environment variables (see README). */
try {
  const facilitator = await createFacilitator(loadFacilitatorConfig(process.env));
  const shutdown = () => {
    facilitator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof FacilitatorConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
