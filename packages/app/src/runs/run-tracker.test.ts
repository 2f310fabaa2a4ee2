import { ZERO_USAGE } from '@memfade/core';
import {
  closeMongo,
  connectMongo,
  createModels,
  ensureIndexes,
  type Models,
  RunRepository,
} from '@memfade/db';
import { enqueueCompress, openQueues, producerConnection, QUEUES, workerConnection } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { uniqueName, until, workerMongoUri } from '@memfade/testing';
import { UnrecoverableError, Worker } from 'bullmq';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RunTracker } from './run-tracker.js';

let connection: Connection;
let models: Models;
let runs: RunRepository;
const prefix = uniqueName('q');
const redis = producerConnection(inject('redisUrl'));
const queues = openQueues({ connection: redis, prefix });
const tracker = () => new RunTracker({ runs, queues, redis, prefix });

/** A memory as a worker leaves it after applying these stages in these runs. */
const compressed = (
  memoryId: string,
  entries: { stage: 'v1' | 'v2'; runId: string }[],
  extra: Record<string, unknown> = {},
) =>
  models.memories.collection.insertOne({
    memoryId,
    meta: { compressionStage: entries.at(-1)?.stage ?? 'raw', createdAt: new Date() },
    compression: { history: entries.map((e) => ({ ...e, at: new Date() })), ...extra },
  });

const started = async (runId: string, enqueued: number) => {
  await runs.start({ runId, trigger: 'schedule', asOf: new Date() });
  await tracker().producerDone(runId, { selected: enqueued, enqueued, users: 1, deferred: 0, heldBack: 0 });
};

const v1 = { stage: 'v1' as const, skipped: false, usage: { ...ZERO_USAGE, inputTokens: 10 }, ratio: 0.4 };

beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  runs = new RunRepository(models);
});
afterAll(async () => {
  await queues.close();
  await redis.quit();
  await closeMongo(connection);
});

describe('RunTracker', () => {
  it('finishes a run exactly once, when its last memory ends, and counts a memory that ends twice once', async () => {
    await started('r1', 3);
    await compressed('m1', [{ stage: 'v1', runId: 'r1' }]);
    await tracker().memoryEnded('r1', {
      memoryId: 'm1',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    await tracker().memoryEnded('r1', {
      memoryId: 'm1',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    await tracker().memoryEnded('r1', { memoryId: 'm2', target: 'v1', outcome: 'noop' });
    expect((await runs.get('r1'))?.finishedAt).toBeUndefined();
    await compressed('m3', [], { lastError: { stage: 'input', message: 'bad' } });
    const error = { memoryId: 'm3', stage: 'input', message: 'bad' };
    await Promise.all([
      tracker().memoryEnded('r1', { memoryId: 'm3', target: 'v1', outcome: 'failed', error }),
      tracker().memoryEnded('r1', { memoryId: 'm3', target: 'v1', outcome: 'failed', error }),
    ]);
    const run = await runs.get('r1');
    expect(run?.finishedAt).toBeInstanceOf(Date);
    expect(run?.counts).toMatchObject({
      enqueued: 3,
      processed: 3,
      v1: 1,
      noop: 1,
      failed: 1,
      unprocessed: 0,
    });
    expect(run?.tokens.v1.inputTokens).toBe(10);
    expect(run?.errors.map((e) => e.memoryId)).toEqual(['m3']);
    expect(await redis.exists(`${prefix}:accounted:r1`, `${prefix}:open:r1`)).toBe(0);
  });

  it('settles the counts from the memories when a crash left the live counters wrong', async () => {
    await started('r3', 3);
    // m4 got V1 and V2 but the worker died before counting either; its retry counted a no-op.
    await compressed('m4', [
      { stage: 'v1', runId: 'r3' },
      { stage: 'v2', runId: 'r3' },
    ]);
    await tracker().memoryEnded('r3', { memoryId: 'm4', target: 'v2', outcome: 'noop' });
    // m5's V1 came from an earlier run; this run's V2 was counted, then its claim was lost.
    await compressed('m5', [
      { stage: 'v1', runId: 'r0' },
      { stage: 'v2', runId: 'r3' },
    ]);
    const v2 = { stage: 'v2' as const, skipped: false, usage: ZERO_USAGE, ratio: 0.5 };
    await tracker().memoryEnded('r3', {
      memoryId: 'm5',
      target: 'v2',
      outcome: 'completed',
      transitions: [v2],
    });
    await redis.srem(`${prefix}:accounted:r3`, 'm5.v2');
    await tracker().memoryEnded('r3', {
      memoryId: 'm5',
      target: 'v2',
      outcome: 'completed',
      transitions: [v2],
    });
    const run = await runs.get('r3');
    expect(run?.counts).toMatchObject({ enqueued: 3, processed: 3, v1: 1, v2: 2, noop: 1, failed: 0 });
  });

  it('keeps processed at enqueued when failed jobs are retried after the run finished, and counts what they did', async () => {
    await started('r4', 2);
    for (const id of ['m6', 'm7']) {
      await compressed(id, [], { lastError: { stage: 'v1', message: 'model down' } });
      const error = { memoryId: id, stage: 'v1', message: 'model down' };
      await tracker().memoryEnded('r4', { memoryId: id, target: 'v1', outcome: 'failed', error });
    }
    expect((await runs.get('r4'))?.counts).toMatchObject({ processed: 2, failed: 2 });
    // retry-failed: both run again; m6 fails again, m7 now gets its V1 (the error goes with it).
    await tracker().memoryEnded('r4', {
      memoryId: 'm6',
      target: 'v1',
      outcome: 'failed',
      error: { memoryId: 'm6', stage: 'v1', message: 'model down' },
    });
    await models.memories.collection.updateOne(
      { memoryId: 'm7' },
      {
        $set: { 'meta.compressionStage': 'v1', 'compression.history': [{ stage: 'v1', runId: 'r4' }] },
        $unset: { 'compression.lastError': '' },
      },
    );
    await tracker().memoryEnded('r4', {
      memoryId: 'm7',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    const run = await runs.get('r4');
    expect(run?.counts).toMatchObject({ enqueued: 2, processed: 2, v1: 1, failed: 1, noop: 0 });
    expect(run?.errors).toHaveLength(2);
  });

  it('finishes an idle run whose jobs Redis lost as interrupted, with the memories that got no outcome', async () => {
    await started('r5', 4);
    await compressed('m8', [{ stage: 'v1', runId: 'r5' }]);
    await tracker().memoryEnded('r5', {
      memoryId: 'm8',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    // Redis loses its data: the run's keys and its three waiting jobs are gone.
    await redis.del(`${prefix}:open:r5`, `${prefix}:accounted:r5`);
    // A job that was in flight counts again (its claim went with the data): still one memory.
    await tracker().memoryEnded('r5', {
      memoryId: 'm8',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    const logged: { msg: string }[] = [];
    const logger = createLogger({
      destination: { write: (line: string) => void logged.push(JSON.parse(line)) },
    });
    expect(await new RunTracker({ runs, queues, redis, prefix, logger }).sweep()).toEqual(['r5']);
    const run = await runs.get('r5');
    expect(run?.interrupted).toBe(true);
    expect(run?.counts).toMatchObject({ enqueued: 4, processed: 1, v1: 1, noop: 0, unprocessed: 3 });
    // The on-call engineer's line counts memories, as the run does (in batch mode no job stands for each).
    expect(logged.map((l) => l.msg)).toContain(
      'run r5 finished interrupted: 3 of 4 memories got no outcome (Redis lost their jobs, or their batch requests were given up); they stay due for the next run',
    );
  });

  it('sweeps nothing while the queue still holds jobs, and finishes a short-counted run once it is idle', async () => {
    await started('r6', 2);
    await enqueueCompress(queues, [{ runId: 'r6', memoryId: 'm9', target: 'v1' }]);
    expect(await tracker().sweep()).toEqual([]);
    await queues.compress.obliterate({ force: true });
    await compressed('m9', [{ stage: 'v1', runId: 'r6' }]);
    await compressed('m10', [{ stage: 'v1', runId: 'r6' }]);
    // Neither job was counted (a crash between the claim and the counters): the memories say both ended.
    expect(await tracker().sweep()).toEqual(['r6']);
    const run = await runs.get('r6');
    expect(run?.interrupted).toBeUndefined();
    expect(run?.counts).toMatchObject({ enqueued: 2, processed: 2, v1: 2, unprocessed: 0 });
  });

  it("keeps a failure's reason when a worker died between its claim of the job and the reason, and the job's retry ended it (seed 9)", async () => {
    await started('r11', 1);
    await compressed('m111', [], { lastError: { stage: 'input', message: 'bad' } });
    // The state the killed worker left: its claim of the job taken (accounted), nothing else written.
    await redis.sadd(`${prefix}:accounted:r11`, 'm111.v1');
    // The job's retry fails again, for good, and ends it.
    const error = { memoryId: 'm111', stage: 'input', message: 'bad' };
    await tracker().memoryEnded('r11', { memoryId: 'm111', target: 'v1', outcome: 'failed', error });
    await tracker().sweep();
    const run = await runs.get('r11');
    expect(run?.errors.map((e) => e.memoryId)).toEqual(['m111']);
    expect(run?.counts).toMatchObject({ enqueued: 1, processed: 1, failed: 1, noop: 0 });
  });

  it("counts a run's calls and memories ending at once in one worker, written together, each once", async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `m13-${i}`);
    await started('r13', ids.length);
    for (const [i, id] of ids.entries()) {
      await compressed(id, [{ stage: 'v1', runId: 'r13' }]);
      await models.memories.collection.updateOne({ memoryId: id }, { $set: { userId: `u${i % 3}` } });
    }
    const worker = tracker();
    const call = { calls: 1, tokens: 100, usd: 0.01 };
    const answered = { calls: -1, tokens: -100, usd: -0.01 };
    const paid = { stage: 'v1' as const, usage: { ...ZERO_USAGE, outputTokens: 7 }, cost: 0.5 };
    // Each job's call counted unanswered before it is sent, then paid when it answers.
    await Promise.all(ids.map(() => worker.unanswered('r13', call)));
    expect((await runs.get('r13'))?.unanswered?.calls).toBe(ids.length);
    await Promise.all(ids.map((id) => worker.spent('r13', [{ ...paid, memoryId: id }], answered)));
    const end = (memoryId: string) => ({
      memoryId,
      target: 'v1' as const,
      outcome: 'completed' as const,
      transitions: [v1],
    });
    // One job's end arrives twice (its worker died before BullMQ marked it completed): counted once.
    await Promise.all([...ids, ids[0]!].map((id) => worker.memoryEnded('r13', end(id))));
    const run = await runs.get('r13');
    expect(run?.finishedAt).toBeInstanceOf(Date);
    expect(run?.counts).toMatchObject({ enqueued: 24, processed: 24, v1: 24, unprocessed: 0 });
    expect(run?.tokens.v1).toMatchObject({ inputTokens: 240, outputTokens: 168 });
    expect(run?.cost.v1).toBe(12);
    expect(run?.unanswered?.calls).toBe(0);
    const ledger = await runs.userCosts.ofRun('r13');
    expect(ledger.map((u) => [u.userId, u.memories, u.tokens.outputTokens]).sort()).toEqual([
      ['u0', 8, 56],
      ['u1', 8, 56],
      ['u2', 8, 56],
    ]);
  });
});

describe('enqueueCompress', () => {
  it('counts a memory whose failed job is still kept as held back, not enqueued', async () => {
    await enqueueCompress(queues, [{ runId: 'old', memoryId: 'held', target: 'v1' }]);
    // A worker gives the job up for good, and the queue keeps it (removeOnFail keeps failed jobs).
    const failing = new Worker(
      QUEUES.compress.name,
      async () => {
        throw new UnrecoverableError('gave up');
      },
      { connection: workerConnection(inject('redisUrl')), prefix },
    );
    await until(async () => (await queues.compress.getFailedCount()) === 1, 10_000);
    await failing.close();
    const result = await enqueueCompress(queues, [
      { runId: 'new', memoryId: 'held', target: 'v1' },
      { runId: 'new', memoryId: 'fresh', target: 'v1' },
    ]);
    expect(result).toEqual({ enqueued: 1, heldBack: 1 });
    await queues.compress.obliterate({ force: true });
  });
});

describe('the per-user ledger (docs/operations.md "Per-user cost")', () => {
  it("counts each user's tokens and cost where the run counts them, a memory once, and puts the dearest users on the finished run", async () => {
    await started('r9', 2);
    await compressed('m91', [{ stage: 'v1', runId: 'r9' }], {}).then(() =>
      models.memories.collection.updateOne({ memoryId: 'm91' }, { $set: { userId: 'ua' } }),
    );
    await compressed('m92', [{ stage: 'v1', runId: 'r9' }], {}).then(() =>
      models.memories.collection.updateOne({ memoryId: 'm92' }, { $set: { userId: 'ub' } }),
    );
    const paid = { stage: 'v1' as const, usage: { ...ZERO_USAGE, outputTokens: 7 }, cost: 0.5 };
    // A call paid for m92 as its reply arrived, and one for a memory gone since (deleted, forgotten).
    await tracker().spent('r9', [{ ...paid, memoryId: 'm92' }]);
    await tracker().spent('r9', [{ ...paid, memoryId: 'gone', cost: 0.25 }]);
    const end = { memoryId: 'm91', target: 'v1' as const, outcome: 'completed' as const, transitions: [v1] };
    await tracker().memoryEnded('r9', end);
    await tracker().memoryEnded('r9', end);
    await tracker().memoryEnded('r9', {
      memoryId: 'm92',
      target: 'v1',
      outcome: 'completed',
      transitions: [],
    });
    const run = await runs.get('r9');
    expect(run?.finishedAt).toBeDefined();
    const ledger = await runs.userCosts.ofRun('r9');
    expect(
      ledger.map((u) => [u.userId, u.tokens.inputTokens, u.tokens.outputTokens, u.cost, u.memories]),
    ).toEqual([
      ['ub', 0, 7, 0.5, 0],
      ['(unknown)', 0, 7, 0.25, 0],
      ['ua', 10, 0, 0, 1],
    ]);
    expect(run?.tokens.v1).toMatchObject({ inputTokens: 10, outputTokens: 14 });
    expect(run?.cost.v1).toBe(0.75);
    expect(run?.topUsers).toEqual([
      { userId: 'ub', cost: 0.5, tokens: 7, memories: 0 },
      { userId: '(unknown)', cost: 0.25, tokens: 7, memories: 0 },
      { userId: 'ua', cost: 0, tokens: 10, memories: 1 },
    ]);
    expect((await runs.userCosts.ofUser('ua', 5)).map((u) => u.runId)).toEqual(['r9']);
  });

  it('puts what the run counted and no user got (a worker killed between the two writes) on an (unattributed) line at the finish', async () => {
    await started('r10', 1);
    await compressed('m101', [{ stage: 'v1', runId: 'r10' }], {}).then(() =>
      models.memories.collection.updateOne({ memoryId: 'm101' }, { $set: { userId: 'uc' } }),
    );
    // The run's write of a paid call, and the worker gone before the ledger's.
    await models.runs.collection.updateOne(
      { runId: 'r10' },
      { $inc: { 'tokens.v1.inputTokens': 40, 'tokens.v1.outputTokens': 9, 'cost.v1': 0.3 } },
    );
    await tracker().memoryEnded('r10', {
      memoryId: 'm101',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    const run = await runs.get('r10');
    expect(run?.finishedAt).toBeDefined();
    const ledger = await runs.userCosts.ofRun('r10');
    const sum = (pick: (u: (typeof ledger)[number]) => number) => ledger.reduce((n, u) => n + pick(u), 0);
    expect(sum((u) => u.tokens.inputTokens)).toBe(run!.tokens.v1.inputTokens);
    expect(sum((u) => u.tokens.outputTokens)).toBe(run!.tokens.v1.outputTokens);
    expect(sum((u) => u.cost)).toBeCloseTo(run!.cost.v1, 9);
    expect(ledger.find((u) => u.userId === '(unattributed)')).toMatchObject({
      tokens: { inputTokens: 40, outputTokens: 9 },
      cost: 0.3,
    });
  });

  it('counts once in the ledger a call whose ledger write lands after the run finished (a worker between its two writes)', async () => {
    await started('r12', 1);
    await compressed('m121', [{ stage: 'v1', runId: 'r12' }], {}).then(() =>
      models.memories.collection.updateOne({ memoryId: 'm121' }, { $set: { userId: 'ud' } }),
    );
    // Another worker's paid call: the run's write made, the ledger's still on its way.
    const call = {
      memoryId: 'm121',
      stage: 'v1' as const,
      usage: { ...ZERO_USAGE, outputTokens: 30 },
      cost: 0.2,
    };
    await models.runs.collection.updateOne(
      { runId: 'r12' },
      { $inc: { 'tokens.v1.outputTokens': 30, 'cost.v1': 0.2 } },
    );
    await tracker().memoryEnded('r12', {
      memoryId: 'm121',
      target: 'v1',
      outcome: 'completed',
      transitions: [v1],
    });
    expect((await runs.get('r12'))?.finishedAt).toBeDefined();
    // The ledger's write lands, and the finish (or a late job's) reconciles again, twice at once.
    await runs.userCosts.add('r12', [call]);
    await Promise.all([runs.userCosts.recordTop('r12'), runs.userCosts.recordTop('r12')]);
    const run = await runs.get('r12');
    const ledger = await runs.userCosts.ofRun('r12');
    const sum = (pick: (u: (typeof ledger)[number]) => number) => ledger.reduce((n, u) => n + pick(u), 0);
    expect(sum((u) => u.tokens.outputTokens)).toBe(run!.tokens.v1.outputTokens);
    expect(sum((u) => u.tokens.inputTokens)).toBe(run!.tokens.v1.inputTokens);
    expect(sum((u) => u.cost)).toBeCloseTo(run!.cost.v1, 9);
    expect(ledger.map((u) => u.userId)).toEqual(['ud']);
  });
});
