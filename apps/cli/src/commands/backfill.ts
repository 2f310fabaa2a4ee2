import { type Selection, selectDue } from '@memfade/queue';
import { enqueueRun, waitForRun } from '@memfade/service';
import { openContext } from '../context.js';
import { loadConfig } from '../env.js';
import { progressReporter } from '../progress.js';
import { printRunSummary } from '../run-output.js';

export interface BackfillOptions {
  user: string[];
  all: boolean;
  stage?: 'v1' | 'v2';
  olderThan?: number;
  limit?: number;
  dryRun: boolean;
  wait: boolean;
  json: boolean;
}

/**
 * Enqueues the due memories of some users (or all) through the nightly run's own path: the same
 * selection and the same deterministic job ids, so a backfill next to the nightly run never
 * doubles work. Returns the exit code.
 */
export async function backfill(options: BackfillOptions): Promise<number> {
  if (!options.all && options.user.length === 0)
    throw new Error('choose the memories: --user <id> (repeatable) or --all');
  if (options.all && options.user.length) throw new Error('--all and --user exclude each other');
  const selection: Selection = {
    userIds: options.all ? undefined : options.user,
    stages: options.stage ? [options.stage] : undefined,
    olderThanDays: options.olderThan,
    limit: options.limit,
  };
  const context = await openContext(loadConfig(), { embedded: false });
  const { services } = context;
  try {
    if (options.dryRun) return await dryRun(services, selection, options.json);
    const runId = await enqueueRun(services, { trigger: 'backfill', selection });
    if (!options.wait) {
      console.log(options.json ? JSON.stringify({ runId }) : `enqueued backfill run ${runId}`);
      return 0;
    }
    const progress = progressReporter(options.json ? process.stderr : process.stdout);
    const run = await waitForRun(services, runId, { timeoutMs: 24 * 3_600_000, onProgress: progress.update });
    progress.done();
    if (options.json) console.log(JSON.stringify(run));
    else printRunSummary(run);
    return run.counts.failed > 0 ? 1 : 0;
  } finally {
    await context.close();
  }
}

async function dryRun(
  services: Awaited<ReturnType<typeof openContext>>['services'],
  selection: Selection,
  json: boolean,
) {
  const counts = { v1: 0, v2: 0 };
  const first: string[] = [];
  for await (const candidate of selectDue(
    services.models,
    services.config.policy,
    services.now(),
    selection,
  )) {
    counts[candidate.target]++;
    if (first.length < 10) first.push(`${candidate.memoryId} -> ${candidate.target}`);
  }
  if (json) console.log(JSON.stringify({ dryRun: true, counts, first }));
  else {
    console.log(
      `dry run: would enqueue ${counts.v1 + counts.v2} memories (to V1: ${counts.v1}, to V2: ${counts.v2}); nothing was enqueued`,
    );
    for (const line of first) console.log(`  ${line}`);
  }
  return 0;
}
