import type { Hex, LocalAccount } from "viem";
import type { CodeWriter, EndpointContract } from "./contract.ts";
import type { Creator } from "./creator.ts";
import type { Deployed } from "./deploy.ts";
import { cardOf, deploy, undeploy } from "./deploy.ts";
import type { FetchedPriceFloor } from "./fetchPriceFloor.ts";
import { fetchPriceFloor } from "./fetchPriceFloor.ts";
import type { Published, PublishSignatures, PublishTerms } from "./publish.ts";
import { publish, publishTerms, signTerms, unpublish } from "./publish.ts";
import { writeAndVerify } from "./repair.ts";
import type { SelfTestResult } from "./selfTest.ts";
import { selfTest } from "./selfTest.ts";
import { specify } from "./specify.ts";
import type { StudioStage } from "./studioError.ts";
import { StudioError } from "./studioError.ts";
import type { StudioTarget } from "./studioTarget.ts";
import { suggestPrice } from "./suggestPrice.ts";
import type { VerifyReport } from "./verify/verifyHandler.ts";

/** Progress of the pipeline: a stage started, passed (with its time), failed, or was undone. */
export type StudioEvent = {
  stage: StudioStage | "undo";
  status: "started" | "passed" | "failed" | "undone";
  ms?: number;
  message?: string;
};

/**
 * How the suggested price met the marketplace's price floor: the floor read from `GET /pricing/floor` (or why it could
 * not be read), the price measured from the handler, and whether the base (and the cap with it) was raised to the floor.
 */
export type PriceFloorNote = { floor: FetchedPriceFloor; measured: EndpointContract["price"]; raised: boolean };

/**
 * A verified endpoint, ready for review or deploy: contract (with the measured price, raised to the marketplace's
 * floor when below it), handler, card, report, and how the price met the floor.
 */
export type Bundle = {
  sentence: string;
  contract: EndpointContract;
  source: string;
  card: ReturnType<typeof cardOf>;
  report: VerifyReport;
  priceFloor: PriceFloorNote;
};

/** A listed, paid-for endpoint: the bundle, where it lives, its identity, and what the self-test paid. */
export type Listed = {
  bundle: Bundle;
  deployed: Deployed;
  published: Published;
  selfTest: SelfTestResult;
  stages: { stage: StudioStage; ms: number }[];
};

type Emit = (event: StudioEvent) => void;

async function timed<T>(stage: StudioStage, emit: Emit, stages: Listed["stages"], work: () => Promise<T>): Promise<T> {
  emit({ stage, status: "started" });
  const started = performance.now();
  try {
    const result = await work();
    const ms = Math.round((performance.now() - started) * 10) / 10;
    stages.push({ stage, ms });
    emit({ stage, status: "passed", ms });
    return result;
  } catch (error) {
    emit({ stage, status: "failed", ms: Math.round(performance.now() - started), message: (error as Error).message });
    throw error;
  }
}

/** What {@link draftEndpoint} throws: a stage refused or failed. */
export type DraftEndpointErrorType = StudioError;

/**
 * Stages 1 to 4: sentence → contract → handler → verified (with repair), priced from the measured p95 and raised to
 * the floor of the marketplace it publishes to (`GET /pricing/floor`) when below it. Nothing is deployed. With
 * `reviewed` given (a reviewed `--dry-run` folder), the handler is verified and priced again.
 * @throws {StudioError} from specify, write, verify/repair.
 * @example const { bundle } = await draftEndpoint({ sentence, writer, target })
 */
export async function draftEndpoint(p: {
  sentence: string;
  writer: CodeWriter;
  target: StudioTarget;
  repairRounds?: number;
  onEvent?: Emit;
  stages?: Listed["stages"];
  reviewed?: { contract: EndpointContract; source: string };
}): Promise<{ bundle: Bundle; stages: Listed["stages"] }> {
  const emit = p.onEvent ?? (() => undefined);
  const stages = p.stages ?? [];
  const contract = p.reviewed?.contract ?? (await timed("specify", emit, stages, () => specify(p.sentence, p.writer)));
  const verified = await timed("verify", emit, stages, async () => {
    if (p.reviewed) {
      const reviewed = p.reviewed.source;
      return writeAndVerify({
        contract,
        writer: { ...p.writer, write: async () => reviewed },
        rounds: 0,
      });
    }
    return writeAndVerify({ contract, writer: p.writer, rounds: p.repairRounds });
  });
  const measurements = { maxResponseBytes: contract.maxResponseBytes, p95Ms: verified.report.timing.p95Ms };
  const floor = await fetchPriceFloor(p.target);
  const measured = suggestPrice(measurements);
  const price = floor.ok ? suggestPrice({ ...measurements, minimumBase: BigInt(floor.minimumBase) }) : measured;
  const priced = { ...contract, price };
  return {
    bundle: {
      sentence: p.sentence,
      contract: priced,
      source: verified.source,
      card: cardOf(priced, p.target),
      report: verified.report,
      priceFloor: { floor, measured, raised: price.base !== measured.base },
    },
    stages,
  };
}

/** What {@link launchEndpoint} throws: a stage failed, after undoing the earlier ones. */
export type LaunchEndpointErrorType = StudioError;

/**
 * Stages 5 to 7 for a verified bundle: deploy, publish (with the creator's signatures), paid self-test. A failure at
 * any stage undoes what the earlier ones did, in reverse (deactivate on chain, remove from the host), so no
 * deployed-but-unverified or registered-but-unlisted resource is left; the error's data lists what was undone.
 * @throws {StudioError} from deploy, publish or self-test, with `undone` in its data.
 * @example const listed = await launchEndpoint({ bundle, target, creator, buyer })
 */
export async function launchEndpoint(p: {
  bundle: Bundle;
  target: StudioTarget;
  creator: Creator;
  buyer: LocalAccount;
  /** The creator's signatures over `terms`; signed here with `creator` when absent. */
  signed?: { terms: PublishTerms; signatures: PublishSignatures };
  bond?: bigint;
  onEvent?: Emit;
  stages?: Listed["stages"];
}): Promise<Omit<Listed, "bundle">> {
  const emit = p.onEvent ?? (() => undefined);
  const stages = p.stages ?? [];
  const { contract, source } = p.bundle;
  /** Each undo step answers the transaction it sent, if any. */
  const undo: { what: string; run: () => Promise<Hex | undefined> }[] = [];
  try {
    const deployed = await timed("deploy", emit, stages, () =>
      deploy({ contract, source, target: p.target, creator: p.creator.address }),
    );
    undo.push({
      what: `removed ${deployed.slug} from the host`,
      run: async () => {
        await undeploy(p.target, deployed.slug);
        return undefined;
      },
    });
    undo.push({
      what: `deactivated ${deployed.resourceId} on chain (if registered)`,
      run: () => unpublish(p.target, p.creator, deployed.resourceId),
    });
    const published = await timed("publish", emit, stages, async () => {
      const terms =
        p.signed?.terms ?? publishTerms({ contract, target: p.target, creator: p.creator.address, bond: p.bond });
      const signatures = p.signed?.signatures ?? (await signTerms(p.creator, terms));
      return publish({ contract, deployed, target: p.target, creator: p.creator.address, terms, signatures });
    });
    const tested = await timed("self-test", emit, stages, () =>
      selfTest({ contract, deployed, target: p.target, buyer: p.buyer }),
    );
    return { deployed, published, selfTest: tested, stages };
  } catch (error) {
    const undone: string[] = [];
    const notUndone: string[] = [];
    for (const step of undo.reverse()) {
      try {
        const tx = await step.run();
        undone.push(tx ? `${step.what}: ${tx}` : step.what);
        emit({ stage: "undo", status: "undone", message: step.what });
      } catch (undoError) {
        notUndone.push(`${step.what}: ${(undoError as Error).message}`);
      }
    }
    if (error instanceof StudioError) {
      Object.assign(error.data, { undone, notUndone });
      throw error;
    }
    throw new StudioError("deploy", "internal_error", (error as Error).message, { undone, notUndone });
  }
}

/**
 * The whole pipeline: sentence → listed, paid-for endpoint (`draftEndpoint` then `launchEndpoint`).
 * @example const listed = await createEndpoint({ sentence, writer: catalogWriter(), target, creator, buyer })
 */
export async function createEndpoint(p: {
  sentence: string;
  writer: CodeWriter;
  target: StudioTarget;
  creator: Creator;
  buyer: LocalAccount;
  repairRounds?: number;
  bond?: bigint;
  onEvent?: Emit;
}): Promise<Listed> {
  const { bundle, stages } = await draftEndpoint(p);
  return { bundle, ...(await launchEndpoint({ ...p, bundle, stages })) };
}
