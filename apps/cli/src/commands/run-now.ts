import { enqueueRun } from '@memfade/app';
import { withOperations } from '../context.js';
import { waitWithProgress, warnWithoutWorkers } from '../progress.js';

/** Enqueues a nightly cycle now, through the same path as the schedule; workers elsewhere process it. */
export async function runNow(options: { wait: boolean; json: boolean; timeout?: number }): Promise<number> {
  return withOperations(async (operations) => {
    const runId = await enqueueRun(operations, { trigger: 'manual' });
    if (options.wait)
      return waitWithProgress(operations, runId, { json: options.json, timeoutMs: options.timeout });
    console.log(options.json ? JSON.stringify({ runId }) : `enqueued run ${runId}`);
    await warnWithoutWorkers(operations);
    return 0;
  });
}
