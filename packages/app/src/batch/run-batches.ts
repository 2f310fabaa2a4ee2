import type { RunBatches, RunRecord } from '@memfade/db';

/**
 * How a run called the model, in one line for `memfade status` and the dashboard's run history:
 * `sync` (and why, when batches were possible), or its batches and requests by outcome with the
 * time from the run's start to its first and last result.
 */
export function describeRunBatches(run: Pick<RunRecord, 'startedAt'> & { batches?: RunBatches }): string {
  const b = run.batches;
  if (!b) return '-';
  if (b.mode === 'sync') return b.reason ? `sync (${b.reason})` : 'sync';
  const submitted = b.submitted ?? 0;
  const ended = b.ended ?? 0;
  const r = b.requests ?? {};
  const parts = [
    `batches ${submitted} submitted, ${Math.max(0, submitted - ended)} in progress, ${ended} ended`,
    `requests ${r.succeeded ?? 0} succeeded, ${r.errored ?? 0} errored, ${r.expired ?? 0} expired, ` +
      `${r.canceled ?? 0} canceled, ${r.applied ?? 0} applied`,
  ];
  const since = (at: Date | undefined) =>
    at ? `${Math.round((new Date(at).getTime() - new Date(run.startedAt).getTime()) / 1000)} s` : '-';
  if (b.firstResultAt)
    parts.push(`results from ${since(b.firstResultAt)} to ${since(b.lastResultAt)} after start`);
  if (b.afterDeadline) parts.push(`deadline passed: what was left went ${b.afterDeadline}`);
  if (b.resumes) parts.push(`batch jobs resumed ${b.resumes} times`);
  if (b.givenUp) parts.push(`${b.givenUp} requests given up without an outcome`);
  return `batch: ${parts.join('; ')}`;
}
