import { enqueueRun, waitForRun } from '@memfade/service';
import { openContext } from '../context.js';
import { loadConfig } from '../env.js';
import { printRunSummary } from '../run-output.js';

/** Enqueues a nightly cycle now, through the same path as the schedule; workers elsewhere process it. */
export async function runNow(options: { wait: boolean; json: boolean }): Promise<number> {
  const context = await openContext(loadConfig(), { embedded: false });
  try {
    const runId = await enqueueRun(context.services, { trigger: 'manual' });
    if (!options.wait) {
      console.log(options.json ? JSON.stringify({ runId }) : `enqueued run ${runId}`);
      return 0;
    }
    const run = await waitForRun(context.services, runId);
    if (options.json) console.log(JSON.stringify(run));
    else printRunSummary(run);
    return run.counts.failed > 0 ? 1 : 0;
  } finally {
    await context.close();
  }
}
