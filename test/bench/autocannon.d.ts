/**
 * The part of autocannon 8's programmatic API the benchmarks use (the package ships no types and
 * @types/autocannon is not installed).
 */
declare module 'autocannon' {
  namespace autocannon {
    /** The raw request autocannon is about to serialise; `setupRequest` returns a changed copy. */
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request extends RequestParams {
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
      /** Requests per second over all connections; unlimited when unset. */
      overallRate?: number;
    }

    /** hdr-histogram-percentiles-obj summary. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      resets: number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends PromiseLike<Result> {
      stop(): void;
      on(event: 'done', listener: (result: Result) => void): this;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
