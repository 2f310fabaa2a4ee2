import { startWorkerRole } from '@memfade/app';
import type { QueueKey } from '@memfade/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBatchMode, NOW, setUp } from './batch-mode-harness.js';

type Services = Awaited<ReturnType<typeof setUp>>;

const RUN_ID = 'night-of-bad-payloads';

interface BadPayload {
  queue: QueueKey;
  /** The job's name, as the catalog lists it: its schema is the one that refuses the payload. */
  name: string;
  jobId: string;
  data: Record<string, unknown>;
  /** The memory the payload names, where the reason is recorded too. */
  memoryId?: string;
  message: RegExp;
}

/**
 * One job of each queue's each kind, added around the typed enqueue (a buggy script, another
 * service, an old version) with a payload its schema refuses; each names the run, so the reason
 * can be recorded there (docs/design.md §2, "How a job is dispatched").
 */
const BAD: BadPayload[] = [
  {
    queue: 'nightly',
    name: 'nightly-run',
    jobId: 'rogue-nightly',
    data: { runId: RUN_ID, trigger: 'sometimes', asOf: NOW.toISOString() },
    message: /^job rogue-nightly: invalid nightly payload: trigger: /,
  },
  {
    queue: 'compress',
    name: 'compress-v1',
    jobId: 'rogue-compress',
    data: { runId: RUN_ID, memoryId: 'm-bad', target: 'v3' },
    memoryId: 'm-bad',
    message: /^memory m-bad: invalid compress payload: target: expected v1 or v2$/,
  },
  {
    queue: 'batch',
    name: 'batch-submit',
    jobId: 'rogue-submit',
    data: { runId: RUN_ID, round: -1 },
    message: /^job rogue-submit: invalid batch payload: round: /,
  },
  {
    queue: 'batch',
    name: 'batch-poll',
    jobId: 'rogue-poll',
    data: { runId: RUN_ID, round: 0 },
    message: /^job rogue-poll: invalid batch payload: poll: /,
  },
];

/** The job's state once it settled: failed, or still waiting for a retry after `ms`. */
async function settled(services: Services, row: BadPayload, ms = 15_000): Promise<string> {
  const job = await services.queues[row.queue].getJob(row.jobId);
  for (const end = Date.now() + ms; Date.now() < end; ) {
    const state = await job?.getState();
    if (state === 'failed') return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return (await job?.getState()) ?? 'gone';
}

describe('a bad payload on every queue is recorded the same way', () => {
  let services: Services;
  let workers: ReturnType<typeof startWorkerRole>;

  beforeAll(async () => {
    // Batch mode, so the worker serves all three queues; one memory for the compress job to name.
    services = await setUp('anthropic', [{ id: 'm-bad', ageDays: 1 }]);
    await services.runs.start({ runId: RUN_ID, trigger: 'manual', asOf: NOW });
    workers = startWorkerRole(services);
    for (const row of BAD)
      await services.queues[row.queue].add(row.name as never, row.data as never, {
        jobId: row.jobId,
        attempts: 5,
      });
  }, 60_000);

  afterAll(async () => {
    await workers?.close();
    await closeBatchMode();
  });

  it.each(BAD)('$queue $name: fails once, for good, with the field named', async (row) => {
    expect(await settled(services, row)).toBe('failed');
    const job = await services.queues[row.queue].getJob(row.jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(row.message);
  });

  it.each(BAD)('$queue $name: the reason is in the run, and on the memory it names', async (row) => {
    expect(await settled(services, row)).toBe('failed');
    const job = await services.queues[row.queue].getJob(row.jobId);
    const errors = await services.runs.errors(RUN_ID, 10);
    expect(errors.filter((e) => e.message === job?.failedReason)).toEqual([
      expect.objectContaining({ memoryId: row.memoryId ?? `(job ${row.jobId})`, stage: 'input' }),
    ]);
    if (!row.memoryId) return;
    const memory = (await services.models.memories.findOne({ memoryId: row.memoryId }).lean()) as {
      compression?: { lastError?: unknown };
    } | null;
    expect(memory?.compression?.lastError).toMatchObject({
      stage: 'input',
      message: job?.failedReason,
      attempts: 1,
    });
  });
});
