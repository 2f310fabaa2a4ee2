import type { RunRecord } from '@memfade/app';
import { describeRunBatches } from '@memfade/app';
import { table } from './table.js';

type RunRow = Omit<RunRecord, 'errors'>;

function averageRatio(sums: { sum: number; n: number } | undefined): string {
  return sums && sums.n > 0 ? (sums.sum / sums.n).toFixed(2) : '-';
}

export function duration(run: RunRow): string {
  if (run.durationMs === undefined) return 'running';
  const took = `${(run.durationMs / 1000).toFixed(1)} s`;
  return run.interrupted ? `${took}, interrupted` : took;
}

/** What an operator must know of a run beyond its table row, one line each. */
export function runNotes(run: RunRow): string[] {
  const c = run.counts;
  const notes: string[] = [];
  if (run.interrupted)
    notes.push(
      `interrupted: ${c.unprocessed ?? 0} of ${c.enqueued} memories got no outcome (Redis lost their jobs, or their batch requests were given up); they are due again at the next run`,
    );
  const budget = run.budget;
  if (budget?.reachedAt) {
    const limits = [
      ...(budget.limitUsd ? [`$${budget.limitUsd} (reserved $${budget.usd.toFixed(4)})`] : []),
      ...(budget.limitTokens ? [`${budget.limitTokens} tokens (reserved ${Math.round(budget.tokens)})`] : []),
    ];
    notes.push(
      `budget reached: ${limits.join(', ')}; ${budget.overBudget ?? 0} due memories left for the next night (NIGHT_BUDGET_*)`,
    );
  }
  const users = run.userBudget;
  if (users?.overBudget)
    notes.push(
      `${users.users ?? 0} users reached USER_NIGHT_BUDGET_USD ($${users.limitUsd}); ${users.overBudget} of their due memories left for the next night`,
    );
  if (c.inOtherRuns)
    notes.push(
      `${c.inOtherRuns} due memories left to another run still holding them with requests in flight`,
    );
  if (c.heldBack)
    notes.push(
      `${c.heldBack} due memories held back by failed jobs still kept in the queue: memfade retry-failed puts them back`,
    );
  if (c.deferred) notes.push(`${c.deferred} due memories left for the next run (RUN_MAX_MEMORIES)`);
  if (c.retentionWarned || c.retentionRefused)
    notes.push(
      `retention gate: ${c.retentionWarned ?? 0} stages written with a warning, ${c.retentionRefused ?? 0} refused ` +
        "(they kept too few of their input's facts; RETENTION_GATE, RETENTION_MIN_V1/V2; memfade inspect shows why)",
    );
  if (run.batches) notes.push(`model calls: ${describeRunBatches(run)}`);
  if (run.unanswered?.calls)
    notes.push(
      `${run.unanswered.calls} model calls got no reply (timed out or cut off): the provider may have billed them, ` +
        `up to ${run.unanswered.tokens} tokens (${dollars(run.unanswered.usd)}) beyond the table below`,
    );
  return notes;
}

/** A run's dearest users (its record's topUsers; every user is in the ledger: status --user). */
export function topUsersTable(top: NonNullable<RunRow['topUsers']>): string {
  return table(
    ['user', 'memories', 'tokens', 'cost'],
    top.map((u) => [u.userId, u.memories, u.tokens, dollars(u.cost)]),
  );
}

export function dollars(amount: number | undefined): string {
  return `$${(amount ?? 0).toFixed(4)}`;
}

/** Tokens and cost per stage: what the night cost. */
export function costTable(run: RunRow): string {
  const rows = (['v1', 'v2'] as const).map((stage) => {
    const t = run.tokens?.[stage];
    return [
      stage.toUpperCase(),
      t?.inputTokens ?? 0,
      t?.outputTokens ?? 0,
      t?.cacheReadTokens ?? 0,
      t?.cacheWriteTokens ?? 0,
      dollars(run.cost?.[stage]),
    ];
  });
  const total = (run.cost?.v1 ?? 0) + (run.cost?.v2 ?? 0);
  rows.push(['total', '', '', '', '', dollars(total)]);
  return table(['stage', 'input tokens', 'output tokens', 'cache read', 'cache write', 'cost'], rows);
}

/** The seed 003 statistics plus ratios, tokens and cost. */
export function printRunSummary(run: RunRecord): void {
  const c = run.counts;
  const header = [
    'run',
    'users',
    'selected',
    'enqueued',
    'processed',
    'V1',
    'V2',
    'skipped',
    'noop',
    'errors',
    'V1 ratio',
    'V2 ratio',
    'duration',
  ];
  const row = [
    run.runId,
    run.users,
    c.selected,
    c.enqueued,
    c.processed,
    c.v1,
    c.v2,
    c.skipped,
    c.noop,
    c.failed,
    averageRatio(run.ratioSums?.v1),
    averageRatio(run.ratioSums?.v2),
    duration(run),
  ];
  console.log(table(header, [row]));
  for (const note of runNotes(run)) console.log(`\n${note}`);
  console.log(`\n${costTable(run)}`);
  for (const error of run.errors ?? []) console.log(`error: ${error.message}`);
}
