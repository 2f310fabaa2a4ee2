import { getMetricsFromIterator, type PromHistogramData, type PromMetrics } from 'prom2javascript';

export type { PromHistogramData, PromMetrics };

/**
 * Parses a Prometheus text exposition with prom2javascript, which rejects a sample line or label
 * set it cannot parse and a histogram whose +Inf bucket differs from its count. What it does not
 * check is checked here: every sample belongs to a family declared by `# TYPE`, and each
 * histogram series lists its buckets in ascending order, cumulative, ending with +Inf.
 */
export async function parsePrometheus(text: string): Promise<PromMetrics> {
  const lines = text.split('\n');
  // Prometheus reads sample values with Go's ParseFloat, which takes NaN in any case (prom-client
  // writes `Nan`, e.g. an event-loop lag before its first sample); prom2javascript knows no NaN.
  const parsable = lines.map((line) => line.replace(/^([^#].*) nan$/i, '$1 0'));
  const families = await getMetricsFromIterator(parsable[Symbol.iterator]());
  const declared = new Map<string, string>();
  const buckets = new Map<string, { le: number; count: number }[]>();
  for (const line of lines) {
    const type = /^# TYPE (\w+) (\w+)$/.exec(line);
    if (type) {
      declared.set(type[1]!, type[2]!);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const name = /^\w+/.exec(line)![0];
    const family = declared.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!declared.has(family)) throw new Error(`sample without a # TYPE line: ${line}`);
    if (name.endsWith('_bucket') && declared.get(family) === 'histogram') {
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (le === undefined) throw new Error(`bucket without le: ${line}`);
      const series = `${family}{${line.slice(line.indexOf('{') + 1, line.lastIndexOf('}')).replace(/,?le="[^"]+"/, '')}}`;
      const list = buckets.get(series) ?? [];
      list.push({
        le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le),
        count: Number(line.split(' ').at(-1)),
      });
      buckets.set(series, list);
    }
  }
  for (const [series, list] of buckets) {
    list.forEach((bucket, i) => {
      const previous = list[i - 1];
      if (previous && !(bucket.le > previous.le))
        throw new Error(`${series}: buckets not in ascending order`);
      if (previous && bucket.count < previous.count) throw new Error(`${series}: buckets not cumulative`);
    });
    if (list.at(-1)?.le !== Number.POSITIVE_INFINITY) throw new Error(`${series}: no +Inf bucket last`);
  }
  return families;
}
