import { type Services, startWorkerRole } from '@memfade/app';
import { until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  audit,
  closeBatchMode,
  emulator,
  harness,
  loseBatchIds,
  setUp,
  steps,
} from './batch-mode-harness.js';
import { billedAndCounted } from './faults/fault-checks.js';

/**
 * Batch mode's runs given up (docs/design.md invariants 9 and 12): batch jobs that die on every
 * resume (BATCH_MAX_RESUMES), or a producer that died after its round was submitted. Their requests
 * end `interrupted`, their memories due again, and every line the provider billed is counted all
 * the same: a batch still at the provider is drained (canceled, its lines counted, none applied).
 * Crashes a run recovers from are batch-mode-crashes.test.ts.
 */

/** Every chain of the run's batch jobs dies, twice: with BATCH_MAX_RESUMES=1 the run is given up. */
async function giveUp(services: Services, runId: string) {
  await services.queues.batch.obliterate({ force: true });
  expect(await services.tracker.sweep()).toEqual([]);
  await services.queues.batch.obliterate({ force: true });
  expect(await services.tracker.sweep()).toEqual([runId]);
}

/**
 * The run once its drain is over: its batch jobs all ended and something counted (up to 20 s).
 * Lines are counted a chunk at a time as they are read: a look before the last chunk sees a part.
 */
async function drained(services: Services, runId: string) {
  const idle = async () =>
    Object.values(
      await services.queues.batch.getJobCounts('waiting', 'active', 'delayed', 'prioritized'),
    ).every((n) => n === 0);
  const counted = async () => billedAndCounted(emulator!, [(await services.runs.get(runId))!]).counted > 0;
  await until(
    async () => (await counted()) && (await idle()),
    20_000,
    () => `${runId} drained`,
    50,
  );
  return services.runs.get(runId);
}

describe('batch mode: a run given up, every billed line counted', () => {
  afterEach(closeBatchMode);

  it('a run whose batch jobs die on every resume gives its requests up after BATCH_MAX_RESUMES: interrupted, counted unprocessed, never no-ops', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `o${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100, maxResumes: 2 });
    const { produce, submit } = steps(services, harness!.config);
    await produce('oom');
    await submit('oom', 0);
    // Each chain of jobs dies before it settles anything (a results file that kills the worker).
    for (const resume of [1, 2]) {
      await services.queues.batch.obliterate({ force: true });
      expect(await services.tracker.sweep()).toEqual([]);
      expect(await services.queues.batch.getJob(`oom.poll.0.0.r${resume}`)).toBeDefined();
    }
    await services.queues.batch.obliterate({ force: true });
    expect(await services.tracker.sweep()).toEqual(['oom']);
    const run = await services.runs.get('oom');
    expect(run?.interrupted).toBe(true);
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 0, unprocessed: 10, noop: 0, v1: 0 });
    expect(run?.batches).toMatchObject({ resumes: 3, givenUp: 10 });
    expect(await services.models.batchRequests.countDocuments({ runId: 'oom', state: 'interrupted' })).toBe(
      10,
    );
    // The run's holds are released: the next night takes the memories.
    expect(await services.models.holds.countDocuments({ runId: 'oom' })).toBe(0);
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: a run given up while its batch is still at the provider cancels that batch and counts every line it billed, applying none',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({ id: `g${i}`, ageDays: 4 }));
      const services = await setUp(provider, memories, { maxRequests: 100, maxResumes: 1 });
      const { produce, submit } = steps(services, harness!.config);
      emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
      await produce('gone');
      await submit('gone', 0);
      const [batch] = emulator!.batches.list();
      // The provider has answered 3 of the 10 requests (billed) when every poll chain has died.
      emulator!.batches.process(batch!.id, 3);
      await giveUp(services, 'gone');
      expect(await services.queues.batch.getJob('gone.poll.0.0.r2.drain')).toBeDefined();
      const worker = startWorkerRole(services);
      try {
        const run = await drained(services, 'gone');
        const money = billedAndCounted(emulator!, run ? [run] : []);
        // Canceled: the 7 requests it had not answered are never billed.
        expect(emulator!.batches.list()[0]?.state).toBe('ended');
        expect(emulator!.billed().batch.lines).toBe(3);
        expect(money.billed).toBeGreaterThan(0);
        expect(money.counted).toBe(money.billed);
        expect(run).toMatchObject({ interrupted: true, counts: { unprocessed: 10, v1: 0 } });
      } finally {
        await worker.close();
      }
      for (const m of Object.values(await audit(services, 'gone')))
        expect(m).toEqual({ stage: 'raw', history: [] });
    },
  );

  it.each(['anthropic', 'openai'] as const)(
    '%s: a run given up while a batch whose id it never recorded is at the provider finds that batch, cancels it and counts what it billed',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({ id: `h${i}`, ageDays: 4 }));
      const services = await setUp(provider, memories, { maxRequests: 100, maxResumes: 1 });
      const { produce, submit } = steps(services, harness!.config);
      emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
      await produce('unrecorded');
      await submit('unrecorded', 0);
      const [batch] = emulator!.batches.list();
      emulator!.batches.process(batch!.id, 4);
      // The provider accepted the batch; the worker died before recording its id.
      await loseBatchIds(services, 'unrecorded');
      await giveUp(services, 'unrecorded');
      const worker = startWorkerRole(services);
      try {
        const run = await drained(services, 'unrecorded');
        expect(emulator!.batches.list()).toHaveLength(1);
        expect(emulator!.batches.list()[0]?.state).toBe('ended');
        expect(emulator!.billed().batch.lines).toBe(4);
        const money = billedAndCounted(emulator!, run ? [run] : []);
        expect(money.billed).toBeGreaterThan(0);
        expect(money.counted).toBe(money.billed);
        expect(run).toMatchObject({ interrupted: true, counts: { unprocessed: 10, v1: 0 } });
      } finally {
        await worker.close();
      }
    },
  );

  it('a run whose producer died after its round was submitted is finished interrupted: the lines of its batch at the provider are counted all the same', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('dead');
    await submit('dead', 0);
    // As if the producer had been killed after it enqueued the submit, before it said it was done,
    // and its nightly job then failed for good (simulate --seed 1495 killed the producer twice).
    await services.models.runs.collection.updateOne({ runId: 'dead' }, { $unset: { producerDoneAt: '' } });
    expect(await services.tracker.finishDeadProducers()).toEqual(['dead']);
    // The round's polls still run (two at once here): the batch ends and its results are read.
    expect(await Promise.all([poll('dead', 0), poll('dead', 0)])).toEqual([{ open: 0 }, { open: 0 }]);
    const run = await services.runs.get('dead');
    expect(run?.interrupted).toBe(true);
    const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
    expect(billed).toBeGreaterThan(0);
    expect(counted).toBe(billed);
    // Counted on its users too, and nothing applied: the memories were released, due again.
    const ledger = await services.runs.userCosts.ofRun('dead');
    const byUsers = ledger.reduce((n, u) => n + Object.values(u.tokens).reduce((a, b) => a + b, 0), 0);
    expect(byUsers).toBe(counted);
    for (const m of Object.values(await audit(services, 'dead')))
      expect(m).toEqual({ stage: 'raw', history: [] });
  });
});
