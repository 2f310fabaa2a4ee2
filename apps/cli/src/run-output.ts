import type { RunRecord } from '@memfade/db';
import { table } from './table.js';

export function progressLine(run: RunRecord): string {
  const c = run.counts;
  const done = c.processed ?? 0;
  return `run ${run.runId}: ${done}/${c.enqueued ?? '?'} memories done (v1 ${c.v1}, v2 ${c.v2}, failed ${c.failed})`;
}

function averageRatio(sums: { sum: number; n: number } | undefined): string {
  return sums && sums.n > 0 ? (sums.sum / sums.n).toFixed(2) : '-';
}

/** The seed 003 statistics plus ratios and tokens, one table. */
export function printRunSummary(run: RunRecord): void {
  const c = run.counts;
  const tokens = (s: 'v1' | 'v2') => {
    const t = run.tokens?.[s];
    return t ? `${t.inputTokens} in / ${t.outputTokens} out` : '0';
  };
  console.log(
    table(
      [
        'run',
        'users',
        'memories',
        'V1',
        'V2',
        'skipped',
        'noop',
        'errors',
        'V1 ratio',
        'V2 ratio',
        'duration',
      ],
      [
        [
          run.runId,
          run.users,
          c.processed ?? 0,
          c.v1,
          c.v2,
          c.skipped,
          c.noop,
          c.failed,
          averageRatio(run.ratioSums?.v1),
          averageRatio(run.ratioSums?.v2),
          run.durationMs === undefined ? 'running' : `${(run.durationMs / 1000).toFixed(1)} s`,
        ],
      ],
    ),
  );
  console.log(`tokens: V1 ${tokens('v1')}, V2 ${tokens('v2')} (the offline compressor spends none)`);
  for (const error of run.errors ?? []) console.log(`error: ${error.message}`);
}
