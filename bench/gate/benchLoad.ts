import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { percentile } from "../../services/protocol/percentile.ts";

/** One load run of the gate benchmark: autocannon against `url`, each request with the next pre-signed payment. Latencies are
 * timed here per request (autocannon's own histogram keeps whole milliseconds). */
export type LoadSpec = {
  url: string;
  connections: number;
  amount: number;
  body: string;
  payments: string[] | null;
  /** The header each payment goes in: `X-PAYMENT` (ours, and x402 v1) unless given (`PAYMENT-SIGNATURE`, x402 v2). */
  paymentHeader?: string;
};

/** What a load run reports back to the benchmark. */
export type LoadResult = {
  rps: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  statusCodes: Record<string, number>;
  errors: number;
  /** Indices into `payments` of the calls answered 200 (each index at most once per run when the payments are unique). */
  paidIndices: number[];
};

/**
 * The load generator of `npm run bench:gate`, in its own process so that it does not share an event loop with the
 * gate: `node bench/gate/benchLoad.ts <spec.json>`, result sent to the parent over IPC.
 */
async function run(spec: LoadSpec): Promise<LoadResult> {
  let next = 0;
  const latencies: number[] = [];
  const paidIndices: number[] = [];
  // The rate is answers over the span from the first request sent to the last answer read (autocannon's own
  // duration also counts connection setup and its shutdown).
  let firstSent = Infinity;
  let lastAnswered = 0;
  const result = await autocannon({
    url: spec.url,
    method: "POST",
    connections: spec.connections,
    amount: spec.amount,
    timeout: 60,
    headers: { "content-type": "application/json" },
    body: spec.body,
    requests: [
      {
        setupRequest: (request, context) => {
          context.started = performance.now();
          firstSent = Math.min(firstSent, context.started as number);
          if (spec.payments) {
            context.payment = next % spec.payments.length;
            request.headers = {
              ...(request.headers as Record<string, string>),
              [spec.paymentHeader ?? "X-PAYMENT"]: spec.payments[next++ % spec.payments.length],
            };
          }
          return request;
        },
        onResponse: (status, _body, context) => {
          lastAnswered = performance.now();
          latencies.push(lastAnswered - (context.started as number));
          if (status === 200 && typeof context.payment === "number") paidIndices.push(context.payment);
        },
      },
    ],
  });
  const seconds = (lastAnswered - firstSent) / 1000;
  return {
    rps: latencies.length / seconds,
    seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    mean: latencies.reduce((sum, l) => sum + l, 0) / latencies.length,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, Number(v.count)]),
    ),
    errors: result.errors + result.timeouts,
    paidIndices,
  };
}

if (process.send && process.argv[2]) {
  process.send(await run(JSON.parse(readFileSync(process.argv[2], "utf8")) as LoadSpec));
  process.exit(0);
}
