import { stageCounts, type UserCost } from '@memfade/app';
import { withOperations } from '../context.js';
import { costTable, dollars, duration, runNotes, topUsersTable } from '../run-output.js';
import { table } from '../table.js';

/**
 * Queue counts per state, memories per stage, and the last runs; with `user`, that user's cost in
 * each of their recent runs instead (the ledger, docs/operations.md "Per-user cost").
 */
export async function status(options: { json: boolean; runs: number; user?: string }): Promise<void> {
  await withOperations(async (services) => {
    if (options.user !== undefined) {
      const nights = await services.runs.userCosts.ofUser(options.user, options.runs);
      console.log(
        options.json ? JSON.stringify({ userId: options.user, nights }) : userNights(options.user, nights),
      );
      return;
    }
    const states = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;
    const queues = {
      nightly: await services.queues.nightly.getJobCounts(...states),
      compress: await services.queues.compress.getJobCounts(...states),
      batch: await services.queues.batch.getJobCounts(...states),
    };
    const stages = await stageCounts(services);
    const runs = await services.runs.list({ limit: options.runs });
    if (options.json) {
      const errors = runs[0] ? await services.runs.errors(runs[0].runId, 100) : [];
      console.log(JSON.stringify({ queues, stages, runs, lastRunErrors: errors }));
      return;
    }
    console.log(
      table(
        ['queue', ...states],
        Object.entries(queues).map(([q, c]) => [q, ...states.map((s) => c[s] ?? 0)]),
      ),
    );
    console.log(`\nmemories: raw ${stages.raw}, v1 ${stages.v1}, v2 ${stages.v2}, other ${stages.other}\n`);
    console.log(
      table(
        [
          'run',
          'trigger',
          'started',
          'selected',
          'enqueued',
          'held back',
          'processed',
          'V1',
          'V2',
          'skipped',
          'errors',
          'tokens in/out',
          'cost',
          'duration',
        ],
        runs.map((r) => [
          r.runId,
          r.trigger,
          r.startedAt.toISOString(),
          r.counts.selected,
          r.counts.enqueued,
          r.counts.heldBack ?? 0,
          r.counts.processed,
          r.counts.v1,
          r.counts.v2,
          r.counts.skipped,
          r.counts.failed,
          `${(r.tokens?.v1.inputTokens ?? 0) + (r.tokens?.v2.inputTokens ?? 0)}/${(r.tokens?.v1.outputTokens ?? 0) + (r.tokens?.v2.outputTokens ?? 0)}`,
          dollars((r.cost?.v1 ?? 0) + (r.cost?.v2 ?? 0)),
          duration(r),
        ]),
      ),
    );
    const last = runs[0] && (await services.runs.get(runs[0].runId));
    if (!last) return;
    console.log(`\nlast run ${last.runId}, per stage:\n${costTable(last)}`);
    if (last.topUsers?.length) console.log(`\nits dearest users:\n${topUsersTable(last.topUsers)}`);
    for (const note of runNotes(last)) console.log(`\n${note}`);
    if (last.errors.length) {
      console.log(`\nits errors (${last.counts.failed} failed; the last ${last.errors.length} listed):`);
      console.log(
        table(
          ['memory', 'stage', 'error'],
          last.errors.map((e) => [e.memoryId, e.stage, e.message]),
        ),
      );
    }
  });
}

/** One user's ledger documents as a table, newest night first. */
function userNights(userId: string, nights: UserCost[]): string {
  if (nights.length === 0)
    return `no model cost recorded for user ${userId} (no run called the model for their memories)`;
  const rows = nights.map((n) => [
    n.night,
    n.runId,
    n.memories,
    `${n.tokens.inputTokens}/${n.tokens.outputTokens}`,
    `${n.tokens.cacheReadTokens}/${n.tokens.cacheWriteTokens}`,
    dollars(n.cost),
    n.overBudget ?? 0,
  ]);
  const total = nights.reduce((sum, n) => sum + n.cost, 0);
  const head = ['night', 'run', 'memories', 'tokens in/out', 'cache read/write', 'cost', 'left (cap)'];
  return `user ${userId}, last ${nights.length} runs: ${dollars(total)}\n${table(head, rows)}`;
}
