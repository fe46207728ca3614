import { startDemoSystem } from "../../services/buyer/src/demo/startDemoSystem.ts";

// The demo system in a process of its own (EDR allows one context per process): prints where it listens as one JSON
// line on stdout, and stops when stdin closes. Started by `spawnDemoSystem`.
const demo = await startDemoSystem();
process.stdout.write(
  `${JSON.stringify({ marketplaceUrl: demo.marketplaceUrl, rpcUrl: demo.rpcUrl, escrow: demo.escrow, resourceId: demo.resourceId })}\n`,
);
process.stdin.resume();
process.stdin.on("end", () => {
  demo.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
