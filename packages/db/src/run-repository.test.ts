import { ZERO_USAGE } from '@memfade/core';
import { commandsSent, uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { RunRepository } from './run-repository.js';

let connection: Connection;
let models: Models;
let runs: RunRepository;

beforeAll(async () => {
  // Command monitoring on: some tests count the commands a call sends.
  const uri = new URL(workerMongoUri(inject('mongoUris')));
  uri.searchParams.set('monitorCommands', 'true');
  connection = await connectMongo(uri.toString(), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  runs = new RunRepository(models);
});
afterAll(async () => closeMongo(connection));

/** The commands (name and collection) `work` sends on the connection. */
const commandsOf = (work: () => Promise<unknown>) => commandsSent(connection.getClient(), work);

describe('RunRepository', () => {
  it("notes a batch run's first result once: later results of the run do not write it again", async () => {
    await runs.start({ runId: 'first-result', trigger: 'manual', asOf: new Date() });
    const first = new Date('2026-11-22T03:10:00Z');
    const later = new Date('2026-11-22T03:20:00Z');
    const once = await commandsOf(() =>
      runs.addBatchCounts('first-result', { submitted: 1 }, { resultAt: first }),
    );
    expect(once).toEqual(['update compression_runs', 'update compression_runs']);
    const again = await commandsOf(() =>
      runs.addBatchCounts('first-result', { ended: 1 }, { resultAt: later }),
    );
    expect(again).toEqual(['update compression_runs']);
    expect((await runs.get('first-result'))?.batches).toMatchObject({
      submitted: 1,
      ended: 1,
      firstResultAt: first,
      lastResultAt: later,
    });
  });

  it('starts a run once, adds job counts until it is marked finished, and marks it once', async () => {
    const asOf = new Date('2026-11-22T03:00:00Z');
    expect(await runs.start({ runId: 'r1', trigger: 'schedule', asOf })).toEqual({ created: true });
    expect(await runs.start({ runId: 'r1', trigger: 'manual', asOf })).toEqual({ created: false });
    await runs.producerDone('r1', { selected: 3, enqueued: 2, users: 2, heldBack: 1 });
    const v1 = {
      stage: 'v1' as const,
      skipped: false,
      usage: { ...ZERO_USAGE, inputTokens: 10 },
      ratio: 0.4,
    };
    const discarded = { stage: 'v1' as const, usage: { ...ZERO_USAGE, inputTokens: 5 }, cost: 0.5 };
    const after = await runs.addMemoryEnds('r1', [
      { outcome: 'completed', transitions: [v1], discarded: [discarded] },
    ]);
    expect(after?.counts).toMatchObject({ processed: 1, v1: 1, heldBack: 1 });
    const { startedAt } = (await runs.state('r1'))!;
    const marks = await Promise.all([
      runs.markFinished('r1', { processed: 2, noop: 1 }, { startedAt, interrupted: false }),
      runs.markFinished('r1', { processed: 2, noop: 1 }, { startedAt, interrupted: false }),
    ]);
    expect(marks.filter(Boolean)).toHaveLength(1);
    // A memory's end in a finished run adds nothing to its counts, but what it paid is counted all the same.
    expect(await runs.addMemoryEnds('r1', [{ outcome: 'noop' }])).toBeNull();
    const late = { stage: 'v1' as const, usage: { ...ZERO_USAGE, outputTokens: 7 }, cost: 0.25 };
    expect(await runs.addMemoryEnds('r1', [{ outcome: 'noop', discarded: [late] }])).toBeNull();
    const run = await runs.get('r1');
    expect(run).toMatchObject({
      trigger: 'schedule',
      users: 2,
      counts: { selected: 3, enqueued: 2, heldBack: 1, processed: 2, v1: 1, noop: 1 },
      // The discarded calls' tokens and cost are counted beside the kept one's.
      tokens: { v1: { inputTokens: 15, outputTokens: 7 } },
      cost: { v1: 0.75 },
      ratioSums: { v1: { sum: 0.4, n: 1 } },
    });
    expect(run?.interrupted).toBeUndefined();
    expect(run?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("counts a memory's end on its owner's ledger without reading the owner again when its job read the memory", async () => {
    await runs.start({ runId: 'owner-known', trigger: 'manual', asOf: new Date() });
    await models.memories.collection.insertOne({
      memoryId: 'owned-1',
      userId: 'owner-u',
      content: { raw: [{ role: 'user', text: 'hello' }] },
      meta: { createdAt: new Date(), compressionStage: 'raw' },
    });
    // A compress job reads its memory through the store first (core's pipeline).
    await new MongoMemoryStore(models).loadMemory('owned-1');
    await runs.userCosts.nightOf('owner-known'); // read once per run and process
    const v1 = { stage: 'v1' as const, skipped: false, usage: ZERO_USAGE, ratio: 0.5 };
    const sent = await commandsOf(() =>
      runs.addMemoryEnds('owner-known', [{ outcome: 'completed', memoryId: 'owned-1', transitions: [v1] }]),
    );
    // The run's counts and the owner's ledger: no read of the memory's owner (one query per memory before).
    expect(sent).toEqual(['findAndModify compression_runs', 'update compression_user_costs']);
    expect(await runs.userCosts.ofRun('owner-known')).toMatchObject([{ userId: 'owner-u', memories: 1 }]);
  });

  it('counts a chunk of memory ends of many users on their ledgers in one write', async () => {
    await runs.start({ runId: 'many-users', trigger: 'manual', asOf: new Date() });
    const ids = ['mu-1', 'mu-2', 'mu-3'];
    await models.memories.collection.insertMany(
      ids.map((memoryId, i) => ({
        memoryId,
        userId: `user-${i}`,
        content: { raw: [{ role: 'user', text: 'hello' }] },
        meta: { createdAt: new Date(), compressionStage: 'raw' },
      })),
    );
    // A batch chunk's apply reads its memories in one query first.
    await new MongoMemoryStore(models).loadMemories(ids);
    await runs.userCosts.nightOf('many-users');
    const v1 = {
      stage: 'v1' as const,
      skipped: false,
      usage: { ...ZERO_USAGE, outputTokens: 5 },
      ratio: 0.5,
    };
    const ends = ids.map((memoryId) => ({ outcome: 'completed' as const, memoryId, transitions: [v1] }));
    const sent = await commandsOf(() => runs.addMemoryEnds('many-users', ends));
    // One update for the three users' ledgers (one each before).
    expect(sent).toEqual(['findAndModify compression_runs', 'update compression_user_costs']);
    const ledger = await runs.userCosts.ofRun('many-users');
    expect(ledger.map((u) => [u.userId, u.memories, u.tokens.outputTokens]).sort()).toEqual([
      ['user-0', 1, 5],
      ['user-1', 1, 5],
      ['user-2', 1, 5],
    ]);
  });

  it('shows the last 100 errors, oldest first, one per memory and stage', async () => {
    await runs.start({ runId: 'r2', trigger: 'manual', asOf: new Date() });
    for (let i = 0; i < 105; i++)
      await runs.recordError('r2', { memoryId: `m${i}`, stage: 'v1', message: 'x' });
    await runs.recordError('r2', { memoryId: 'm104', stage: 'v1', message: 'again' });
    const run = await runs.get('r2');
    expect(run?.errors).toHaveLength(100);
    expect(run?.errors[0]?.memoryId).toBe('m5');
    expect(run?.errors.at(-1)).toMatchObject({ memoryId: 'm104', message: 'again' });
    expect(await runs.recordError('no-such-run', { memoryId: 'm', stage: 'v1', message: 'x' })).toBe(false);
  });
});
