import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { childEnv, until, WORKER_WAIT_MS } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const cli = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));
const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;

/** A memory 4 days old (due for V1) of a user; `orphan` has no role card, so its job fails for good. */
const memory = (memoryId: string, userId: string) =>
  memoryDocument({
    memoryId,
    userId,
    partnerId: 'p',
    turns: [
      {
        role: 'user',
        text: 'I moved to Lisbon in March and started learning Portuguese with a tutor named Rita.',
      },
      {
        role: 'assistant',
        text: 'That is wonderful! How are the lessons going so far, and what made you pick Lisbon?',
      },
    ],
    createdAt: new Date(NOW.getTime() - 4 * DAY),
  });

// The CLI runs end when the command does; their caps, and the test's, are for a loaded machine.
describe('run accounting as an operator sees it', { timeout: 3 * WORKER_WAIT_MS }, () => {
  let harness: Harness | undefined;
  afterEach(async () => harness?.close());

  const status = async (h: Harness) => {
    const env = childEnv({
      REDIS_URL: h.config.redisUrl!,
      MONGODB_URI: h.config.mongodbUri!,
      MONGODB_DB: h.config.mongodbDb,
      MEMFADE_QUEUE_PREFIX: h.config.queuePrefix,
      LOG_LEVEL: 'warn',
    });
    return (await promisify(execFile)(process.execPath, [cli, 'status'], { env, timeout: WORKER_WAIT_MS }))
      .stdout;
  };

  it('lists a run error in status, retries it without counting past enqueued, and says when a memory is held back', async () => {
    harness = await startHarness({ now: NOW });
    const { services } = harness;
    await insertMemories(
      services.models,
      [memory('good', 'with-card'), memory('orphan-1', 'orphan')],
      [{ userId: 'with-card', name: 'Kai' }],
    );
    const workers = startWorkerRole(services);
    const first = await waitForRun(
      services,
      await enqueueRun(services, { runId: 'night-1', trigger: 'schedule', asOf: NOW }),
    );
    expect(first.counts).toMatchObject({ selected: 2, enqueued: 2, processed: 2, v1: 1, failed: 1 });
    const afterFirst = await status(harness);
    expect(afterFirst).toContain('its errors (1 failed');
    expect(afterFirst).toMatch(/orphan-1 .*no role card for user orphan/);

    // The next night finds the failed memory due again, but its failed job is still kept.
    const second = await waitForRun(
      services,
      await enqueueRun(services, { runId: 'night-2', trigger: 'schedule', asOf: NOW }),
    );
    expect(second.counts).toMatchObject({ selected: 1, enqueued: 0, heldBack: 1, processed: 0 });
    expect(await status(harness)).toContain('1 due memories held back by failed jobs still kept');

    // The product adds the card, the operator retries: the job now succeeds, and its first run is
    // settled again (it used to read processed 4 of 2, failed 4).
    await services.models.roleCards.collection.insertOne({ userId: 'orphan', name: 'Ada' });
    for (const job of await services.queues.compress.getFailed()) await job.retry('failed');
    const settled = async () => (await services.runs.get('night-1'))!.counts;
    await until(async () => (await settled()).failed === 0, WORKER_WAIT_MS);
    expect(await settled()).toMatchObject({ enqueued: 2, processed: 2, v1: 2, failed: 0, noop: 0 });
    await workers.close();
  });
});
