import type { DiscardedCount, RunCounts, TransitionCount } from './run-record.js';

/**
 * What a run's counts, tokens and cost add up to, as the fields of the run document they are
 * written to: RunRepository adds each job's, or a chunk of batch results', in one atomic write.
 */

export const countFields = (counts: Partial<RunCounts>) =>
  Object.fromEntries(Object.entries(counts).map(([key, value]) => [`counts.${key}`, value]));

export function add(inc: Record<string, number>, key: string, value: number): void {
  if (value) inc[key] = (inc[key] ?? 0) + value;
}

export function addSpending(inc: Record<string, number>, t: DiscardedCount): void {
  add(inc, `cost.${t.stage}`, t.cost ?? 0);
  for (const [key, value] of Object.entries(t.usage)) add(inc, `tokens.${t.stage}.${key}`, value);
}

export function addTransition(inc: Record<string, number>, t: TransitionCount): void {
  add(inc, `counts.${t.stage}`, 1);
  if (t.retentionWarned) add(inc, 'counts.retentionWarned', 1);
  addSpending(inc, t);
  // A skipped memory keeps its text (ratio 1): averaging it in would misstate the compression.
  if (t.skipped) add(inc, 'counts.skipped', 1);
  else {
    add(inc, `ratioSums.${t.stage}.sum`, t.ratio);
    add(inc, `ratioSums.${t.stage}.n`, 1);
  }
}

/** The run record's fields for calls without a counted reply (RunRecord.unanswered); signed. */
export function unansweredInc(change: {
  calls: number;
  tokens: number;
  usd: number;
}): Record<string, number> {
  return {
    'unanswered.calls': change.calls,
    'unanswered.tokens': change.tokens,
    'unanswered.usd': change.usd,
  };
}
