/** The part of autocannon's programmatic API the gate benchmark uses (the package ships no types). */
declare module "autocannon" {
  type Histogram = { average: number; p50: number; p99: number; max: number };
  type Result = {
    duration: number;
    errors: number;
    timeouts: number;
    requests: Histogram & { total: number };
    latency: Histogram;
    statusCodeStats?: Record<string, { count: number }>;
  };
  type Options = {
    url: string;
    method?: string;
    connections?: number;
    amount?: number;
    duration?: number;
    timeout?: number;
    headers?: Record<string, string>;
    body?: string;
    requests?: {
      setupRequest?: (request: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }[];
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
