/**
 * Reading Prometheus text in tests: `sampleValue(await scrape(url), 'job_completed_total', { queue: 'billing-sync',
 * outcome: 'completed' })`. Enough of the exposition format for what prom-client writes (no escapes in label values
 * beyond `\"`, `\\` and `\n`; no timestamps).
 */

/** One sample line: name, labels, value. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the sample lines of a Prometheus text exposition (comments skipped). */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line.trim());
    if (!match) throw new Error(`Not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(LABEL_PAIR)) {
      labels[pair[1]] = pair[2].replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The value of the one sample named `name` whose labels include `labels`; undefined when there is none.
 * @throws when several samples match (add labels to pick one).
 */
export function sampleValue(
  textOrSamples: string | PrometheusSample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const samples = typeof textOrSamples === 'string' ? parsePrometheusText(textOrSamples) : textOrSamples;
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1)
    throw new Error(
      `${found.length} samples of ${name} match ${JSON.stringify(labels)}: ${JSON.stringify(found.map((s) => s.labels))}`,
    );
  return found[0]?.value;
}
