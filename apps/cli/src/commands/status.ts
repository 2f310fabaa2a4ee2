import { countByStage } from '@memfade/db';
import { withOperations } from '../context.js';
import { costTable, dollars, duration } from '../run-output.js';
import { table } from '../table.js';

/** Queue counts per state, memories per stage, and the last runs. */
export async function status(options: { json: boolean; runs: number }): Promise<void> {
  await withOperations(async (services) => {
    const states = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;
    const queues = {
      nightly: await services.queues.nightly.getJobCounts(...states),
      compress: await services.queues.compress.getJobCounts(...states),
    };
    const stages = await countByStage(services.models, {});
    const runs = await services.runs.list({ limit: options.runs });
    if (options.json) {
      console.log(JSON.stringify({ queues, stages, runs }));
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
          'memories',
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
    const last = runs[0];
    if (last)
      console.log(`
last run ${last.runId}, per stage:\n${costTable(last)}`);
  });
}
