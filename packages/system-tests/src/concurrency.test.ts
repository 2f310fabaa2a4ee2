import { enqueueRun, selectDue, startWorkerRole, waitForRun } from '@memfade/app';
import { compressMemory, type Memory } from '@memfade/core';
import { insertMemories } from '@memfade/db';
import { enqueueCompress } from '@memfade/queue';
import { generateDemoData } from '@memfade/samples';
import { startLlmEmulator, until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness, startReplica } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

describe('concurrent producers and workers', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it('two producers racing over the same memories enqueue one job and apply one transition per stage', async () => {
    harness = await startHarness({ now: NOW });
    const data = generateDemoData({ now: NOW, users: 4 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    const replica = await startReplica(harness, NOW);
    const workers = [startWorkerRole(harness.services), startWorkerRole(replica)];
    const [a, b] = await Promise.all([
      enqueueRun(harness.services, { runId: 'run-a', trigger: 'schedule', asOf: NOW }),
      enqueueRun(replica, { runId: 'run-b', trigger: 'backfill', asOf: NOW }),
    ]);
    const runs = await Promise.all([waitForRun(harness.services, a), waitForRun(harness.services, b)]);
    await Promise.all(workers.map((w) => w.close()));
    await replica.close();

    const due = data.memories.filter(
      (m) => (m.meta as { createdAt: Date }).createdAt.getTime() <= NOW.getTime() - 3 * 86_400_000,
    );
    const counts = await harness.services.queues.compress.getJobCounts(
      'completed',
      'failed',
      'waiting',
      'active',
    );
    expect(counts).toMatchObject({ completed: due.length, failed: 0, waiting: 0, active: 0 });
    // Each run selected every due memory; the queue holds each job once (above), and both runs
    // finished even though only one of them owns each job.
    expect(runs.map((r) => r.counts.selected)).toEqual([due.length, due.length]);
    expect(runs.every((r) => r.finishedAt instanceof Date)).toBe(true);
    const docs = (await harness.services.models.memories.find({}).lean()) as unknown as Memory[];
    for (const doc of docs) {
      const stages = doc.compression?.history.map((h) => h.stage) ?? [];
      expect(new Set(stages).size, doc.memoryId).toBe(stages.length);
      expect(doc.rev).toBe(stages.length);
    }
  });

  it('a producer retried after enqueueing part of its run counts the jobs its first attempt added', async () => {
    harness = await startHarness({ now: NOW });
    const { services } = harness;
    const data = generateDemoData({ now: NOW, users: 4 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const runId = 'retried';
    // The run's nightly job waits for its retry (its queue paused until the first attempt's jobs have
    // ended): a run whose nightly job is gone is dead, and the worker role's sweep would finish it
    // "interrupted" before the retry ran (the run tracker's finishDeadProducers), as it must.
    await services.queues.nightly.pause();
    await enqueueRun(services, { runId, trigger: 'schedule', asOf: NOW });
    // The first attempt started the run, held half the due memories and enqueued them (as the
    // dispatcher does: a hold first, then the job), then its worker died.
    const due = [];
    for await (const c of selectDue(services.models, services.config.policy, NOW, {})) due.push(c);
    await services.runs.start({ runId, trigger: 'schedule', asOf: NOW });
    const firstHalf = due.slice(0, Math.floor(due.length / 2));
    await services.holds.take(
      runId,
      firstHalf.map((c) => c.memoryId),
    );
    await enqueueCompress(
      services.queues,
      firstHalf.map((c) => ({ runId, memoryId: c.memoryId, target: c.target })),
    );
    const workers = startWorkerRole(services);
    // Those jobs end before the retry scans: their memories are not due any more, and the retried
    // nightly job counts them from the run's holds (it used to miss whichever had ended first).
    await until(
      async () => (await services.queues.compress.getJobCounts('completed')).completed === firstHalf.length,
    );
    await services.queues.nightly.resume();
    const run = await waitForRun(services, runId);
    await workers.close();
    expect(firstHalf.length).toBeGreaterThan(0);
    expect(run.counts).toMatchObject({ selected: due.length, enqueued: due.length, processed: due.length });
    expect(await services.queues.compress.getJobCounts('completed', 'waiting', 'active')).toMatchObject({
      completed: due.length,
      waiting: 0,
      active: 0,
    });
  });

  it('two workers racing on the same memory write exactly one transition', async () => {
    // Both must read the memory before either writes: the model answers after 300 ms, so both
    // calls are in flight together and the race is decided by the conditional write alone.
    const emulator = await startLlmEmulator();
    emulator.setRule(() => ({ kind: 'slow', delayMs: 300 }));
    const provider = emulatedAnthropic(emulator);
    harness = await startHarness({ now: NOW, config: { provider } });
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    const replica = await startReplica(harness, NOW);
    const memoryId = 'demo-zh-1-d4'; // four days old: due for V1 only
    const deps = (s: typeof replica) => ({ ...s, policy: s.config.policy });
    const outcomes = await Promise.all([
      compressMemory(memoryId, 'v1', 'race-1', deps(harness.services)),
      compressMemory(memoryId, 'v1', 'race-2', deps(replica)),
    ]);
    await replica.close();
    await emulator.close();
    const kinds = outcomes.map((o) => (o.kind === 'noop' ? o.reason : o.kind)).sort();
    expect(kinds).toEqual(['advanced', 'lost_race']);
    const doc = (await harness.services.models.memories.findOne({ memoryId }).lean()) as unknown as Memory;
    expect(doc.compression?.history).toHaveLength(1);
    expect(doc.rev).toBe(1);
  });
});
