import { randomUUID } from 'node:crypto';
import { enqueueRun, processNightlyRun, selectDue, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories } from '@memfade/db';
import { enqueueCompress } from '@memfade/queue';
import { generateDemoData } from '@memfade/samples';
import { until } from '@memfade/testing';
import { Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

/** The producer of the nightly job taken by the test, run to its end in the test process. */
const produce = (harness: Harness, job: Parameters<typeof processNightlyRun>[0]) => {
  const { services, config } = harness;
  const { models, runs, tracker, queues, holds } = services;
  return processNightlyRun(job, {
    models,
    runs,
    tracker,
    queues,
    holds,
    policy: config.policy,
    now: () => NOW,
  });
};

/**
 * docs/design.md invariant 12: a hold never outlives its run. A producer that took its holds and
 * then died for good (its nightly job failed, as BullMQ fails a job stalled past its limit when
 * the worker running it is killed twice) must not keep those memories from the next night.
 */
describe('a run whose producer died', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it('is finished interrupted and its holds released, so the next night takes its memories', async () => {
    harness = await startHarness({ now: NOW });
    const { services, config } = harness;
    const data = generateDemoData({ now: NOW, users: 4 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const due: string[] = [];
    for await (const candidate of selectDue(services.models, config.policy, NOW, {}, {})) {
      due.push(candidate.memoryId);
    }
    expect(due.length).toBeGreaterThan(10);

    // The dead night: its nightly job is taken by a worker that records the run and takes its
    // holds, as the producer does first, then dies; the job fails for good.
    const deadRun = await enqueueRun(services, { runId: 'dead-night', trigger: 'schedule', asOf: NOW });
    const taker = new Worker(services.queues.nightly.name, null, {
      connection: { url: config.redisUrl },
      prefix: config.queuePrefix,
    });
    const token = randomUUID();
    const job = await taker.getNextJob(token);
    expect(job?.id).toBe(deadRun);
    await services.runs.start({ runId: deadRun, trigger: 'schedule', asOf: NOW });
    expect((await services.holds.take(deadRun, due)).size).toBe(due.length);
    job!.discard();
    await job!.moveToFailed(new Error('job stalled more than allowable limit'), token);
    await taker.close();
    expect(await services.queues.nightly.getJobState(deadRun)).toBe('failed');

    const workers = startWorkerRole(services);
    const next = await enqueueRun(services, { runId: 'next-night', trigger: 'manual', asOf: NOW });
    const run = await waitForRun(services, next, { timeoutMs: 60_000 });
    await workers.close();

    // The next night took every due memory: none was left to the dead run.
    expect(run.counts.inOtherRuns ?? 0).toBe(0);
    expect(run.counts.enqueued).toBe(due.length);
    expect(run.interrupted).toBeFalsy();
    const dead = await services.runs.get(deadRun);
    expect(dead).toMatchObject({ interrupted: true });
    expect(dead?.finishedAt).toBeInstanceOf(Date);
    expect(dead?.producerDied).toMatch(/failed for good: job stalled more than allowable limit/);
    expect(dead?.counts).toMatchObject({ enqueued: due.length, unprocessed: due.length });
    expect(await services.holds.count(deadRun)).toBe(0);
    const raw = await services.models.memories.countDocuments({
      memoryId: { $in: due },
      'meta.compressionStage': 'raw',
    });
    expect(raw).toBe(0);
  });

  it('counts a compress job its workers died holding (failed as stalled) as failed, with the reason on the run', async () => {
    harness = await startHarness({ now: NOW });
    const { services, config } = harness;
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const connection = { url: config.redisUrl };
    const runId = await enqueueRun(services, { runId: 'crash-night', trigger: 'schedule', asOf: NOW });
    // The producer runs to the end in the test process: every compress job is waiting.
    const nightly = new Worker(services.queues.nightly.name, null, {
      connection,
      prefix: config.queuePrefix,
    });
    const producerToken = randomUUID();
    const producer = await nightly.getNextJob(producerToken);
    await produce(harness, producer!);
    await producer!.moveToCompleted('done', producerToken, false);
    await nightly.close();
    // One compress job's workers die holding it until BullMQ fails it as stalled.
    const taker = new Worker(services.queues.compress.name, null, { connection, prefix: config.queuePrefix });
    const token = randomUUID();
    const dead = await taker.getNextJob(token);
    dead!.discard();
    await dead!.moveToFailed(new Error('job stalled more than allowable limit'), token);
    await taker.close();

    const workers = startWorkerRole(services);
    try {
      const run = await waitForRun(services, runId, { timeoutMs: 60_000 });
      expect(run.counts.failed).toBe(1);
      expect(run.counts.processed).toBe(run.counts.enqueued);
      const errors = await services.runs.errors(runId, 10);
      expect(errors).toEqual([
        expect.objectContaining({
          memoryId: dead!.data.memoryId,
          message: expect.stringMatching(/workers died/),
        }),
      ]);
      // The workers' death was not the memory's failure: the next night compresses it (found by
      // `simulate --seed 1`: the failed job held it back for 20 hours, night after night).
      const next = await enqueueRun(services, { runId: 'next-night', trigger: 'manual', asOf: NOW });
      const again = await waitForRun(services, next, { timeoutMs: 60_000 });
      expect(again.counts).toMatchObject({ enqueued: 1, heldBack: 0, failed: 0 });
      const memory = (await services.models.memories
        .findOne({ memoryId: dead!.data.memoryId })
        .lean()) as unknown as {
        meta: { compressionStage: string };
      };
      expect(memory.meta.compressionStage).not.toBe('raw');
    } finally {
      await workers.close();
    }
  });
});

describe('a producer delivered again after it said it was done', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it('produces nothing again: no memory is held for its finished run (found by simulate --seed 2306)', async () => {
    harness = await startHarness({ now: NOW });
    const { services, config } = harness;
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const due: string[] = [];
    for await (const candidate of selectDue(services.models, config.policy, NOW, {}, {})) {
      due.push(candidate.memoryId);
    }
    // Another open run holds every due memory, its requests in flight.
    await services.runs.start({ runId: 'other-night', trigger: 'schedule', asOf: NOW });
    await services.holds.take('other-night', due);
    await services.runs.producerDone('other-night', { selected: due.length, enqueued: due.length, users: 2 });
    const runId = await enqueueRun(services, { runId: 'manual-night', trigger: 'manual', asOf: NOW });
    const nightly = new Worker(services.queues.nightly.name, null, {
      connection: { url: config.redisUrl },
      prefix: config.queuePrefix,
    });
    const token = randomUUID();
    const producer = await nightly.getNextJob(token);
    // The first attempt leaves every memory to the other run, says it is done, and the run
    // finishes with nothing to do; then its worker dies before BullMQ records the job's end.
    const first = await produce(harness, producer!);
    expect(first).toMatchObject({ enqueued: 0, inOtherRuns: due.length });
    expect((await services.runs.get(runId))?.finishedAt).toBeInstanceOf(Date);
    // The other run ends meanwhile, and the job comes back.
    await services.holds.release('other-night');
    const again = await produce(harness, producer!);
    await producer!.moveToCompleted('done', token, false);
    await nightly.close();
    expect(again).toMatchObject({ enqueued: 0, inOtherRuns: due.length });
    expect(await services.holds.count(runId)).toBe(0);
    expect(await services.queues.compress.count()).toBe(0);
    expect((await services.runs.get(runId))?.counts).toMatchObject({ enqueued: 0, processed: 0 });
  });
});

describe('a run finished whose holds were never released', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it("has them released by the run tracker's next sweep (found by simulate --seed 6180)", async () => {
    harness = await startHarness({ now: NOW });
    const { services } = harness;
    await services.runs.start({ runId: 'done-night', trigger: 'manual', asOf: NOW });
    await services.holds.take('done-night', ['a', 'b', 'c']);
    // Its worker marked it finished and was killed before releasing its holds.
    await services.runs.markFinished('done-night', {}, { startedAt: NOW, interrupted: false });
    expect(await services.holds.count('done-night')).toBe(3);
    await services.tracker.sweep();
    expect(await services.holds.count('done-night')).toBe(0);
  });
});

describe('a producer restarted after some of its jobs ended', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it('counts those jobs too: the run waits for every job of both attempts (found by simulate --seed 323)', async () => {
    // One job at a time: the workers stop with about half of the jobs ended.
    harness = await startHarness({ now: NOW, config: { concurrency: 1 } });
    const { services, config } = harness;
    const data = generateDemoData({ now: NOW, users: 4 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const due: { memoryId: string; target: 'v1' | 'v2' }[] = [];
    for await (const candidate of selectDue(services.models, config.policy, NOW, {}, {})) due.push(candidate);
    const runId = await enqueueRun(services, { runId: 'restarted-night', trigger: 'schedule', asOf: NOW });
    // The first attempt: the run recorded, every memory held and its job enqueued, then the worker
    // running the producer dies before it says it is done (its nightly job stalls).
    const nightly = new Worker(services.queues.nightly.name, null, {
      connection: { url: config.redisUrl },
      prefix: config.queuePrefix,
    });
    const token = randomUUID();
    const producer = await nightly.getNextJob(token);
    await services.runs.start({ runId, trigger: 'schedule', asOf: NOW });
    await services.holds.take(
      runId,
      due.map((d) => d.memoryId),
    );
    expect(
      await enqueueCompress(
        services.queues,
        due.map((d) => ({ runId, ...d })),
      ),
    ).toMatchObject({
      enqueued: due.length,
    });
    // Workers end more than half of the jobs before the nightly job comes back.
    const workers = startWorkerRole(services);
    const ended = async () => (await services.runs.state(runId))?.counts.processed ?? 0;
    await until(
      async () => (await ended()) > due.length / 2 + 1,
      30_000,
      () => 'jobs ended',
      5,
    );
    await workers.close();
    const { processed } = (await services.runs.state(runId))!.counts;
    expect(processed).toBeLessThan(due.length);

    // The second attempt of the producer finds the memories whose jobs have not ended still due.
    const summary = await produce(harness, producer!);
    await producer!.moveToCompleted('done', token, false);
    await nightly.close();
    expect(summary.enqueued).toBe(due.length);
    // Jobs of the run are still waiting: it is not finished, and its memories stay held.
    const run = await services.runs.get(runId);
    expect(run?.finishedAt).toBeUndefined();
    expect(run?.counts.enqueued).toBe(due.length);
    expect(await services.holds.count(runId)).toBe(due.length);
    const rest = startWorkerRole(services);
    try {
      const done = await waitForRun(services, runId, { timeoutMs: 60_000 });
      expect(done.counts).toMatchObject({ enqueued: due.length, processed: due.length, unprocessed: 0 });
      expect(done.interrupted).toBeFalsy();
    } finally {
      await rest.close();
    }
  });
});
