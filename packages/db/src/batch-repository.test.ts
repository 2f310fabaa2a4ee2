import { commandsSent, uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BatchRequestRecord } from './batch-record.js';
import { BatchRepository } from './batch-repository.js';
import { closeMongo, connectMongo } from './connection.js';
import { createModels, ensureIndexes, type Models } from './models.js';

let connection: Connection;
let models: Models;
let batches: BatchRepository;

beforeAll(async () => {
  // Command monitoring on: some tests count the commands a call sends.
  const uri = new URL(workerMongoUri(inject('mongoUris')));
  uri.searchParams.set('monitorCommands', 'true');
  connection = await connectMongo(uri.toString(), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  batches = new BatchRepository(models);
});
afterAll(async () => closeMongo(connection));

/** The commands (name and collection) `work` sends on the connection. */
const commandsOf = (work: () => Promise<unknown>) => commandsSent(connection.getClient(), work);

const request = (memoryId: string): BatchRequestRecord => ({
  runId: 'r1',
  round: 0,
  customId: `tag-0-${memoryId}`,
  memoryId,
  target: 'v1',
  state: 'pending',
  attempts: 0,
});

describe('BatchRepository', () => {
  it('writes a request once (a producer run twice adds nothing), and moves it on only from the states named', async () => {
    expect(await batches.addRequests([request('a'), request('b')])).toBe(2);
    expect(await batches.addRequests([request('a'), request('c')])).toBe(1);
    expect(await batches.hasPending('r1', 0)).toBe(true);
    const prepare = { from: ['pending' as const], set: { state: 'prepared' as const, stage: 'v1' as const } };
    expect(await batches.transitionMany([{ customId: 'tag-0-a', ...prepare }])).toEqual(new Set(['tag-0-a']));
    await batches.markSubmitted(['tag-0-a', 'tag-0-b'], 'batch-1');
    // Applied once: the second caller (a results file read again) finds it settled.
    const apply = { customId: 'tag-0-a', from: ['submitted' as const], set: { state: 'applied' as const } };
    expect(await batches.transitionMany([apply])).toEqual(new Set(['tag-0-a']));
    expect(await batches.transitionMany([apply])).toEqual(new Set());
    expect((await batches.requestsById(['tag-0-a', 'tag-0-x'])).get('tag-0-a')).toMatchObject({
      state: 'applied',
      stage: 'v1',
      batchId: 'batch-1',
    });
    expect(await batches.unresolved('r1', 0, 'batch-1')).toMatchObject([{ customId: 'tag-0-b' }]);
    const pending = [];
    for await (const r of batches.requests('r1', 0, ['pending'])) pending.push(r.memoryId);
    expect(pending).toEqual(['c']);
    expect(await batches.countByState('r1')).toEqual({ applied: 1, submitted: 1, pending: 1 });
  });

  it('records a batch before submitting it, keeps the first record, and counts its end once', async () => {
    const key = { runId: 'r2', round: 0, index: 0 };
    const at = new Date('2026-11-22T03:00:00Z');
    const first = await batches.openBatch({ ...key, customIds: ['x'] }, at);
    expect(first).toMatchObject({ state: 'submitting', submittingAt: at, customIds: ['x'] });
    expect(first.batchId).toBeUndefined();
    await batches.updateBatch(key, { batchId: 'b-1', state: 'submitted' });
    expect(await batches.openBatch({ ...key, customIds: ['y'] }, new Date())).toMatchObject({
      batchId: 'b-1',
      customIds: ['x'],
    });
    expect(await batches.markEnded(key, new Date())).toBe(true);
    expect(await batches.markEnded(key, new Date())).toBe(false);
    expect(await batches.batches('r2', 0)).toHaveLength(1);
  });
});

describe('BatchRepository.transitionMany', () => {
  it('moves a chunk whose every request moves with one bulk write, not read back', async () => {
    const records = Array.from({ length: 20 }, (_, i) => ({ ...request(`n${i}`), runId: 'r5' }));
    await batches.addRequests(records);
    const moves = records.map((r) => ({
      customId: r.customId,
      from: ['pending' as const],
      set: { state: 'prepared' as const },
    }));
    let moved = new Set<string>();
    const sent = await commandsOf(async () => {
      moved = await batches.transitionMany(moves);
    });
    expect(moved).toEqual(new Set(records.map((r) => r.customId)));
    expect(sent).toEqual(['update compression_batch_requests']);
    // Some already moved: the others are read back to tell which this call moved.
    const again = [
      ...moves.slice(0, 5).map((m) => ({ ...m, from: ['prepared' as const] })),
      ...moves.slice(5),
    ];
    const partly = await commandsOf(async () => {
      moved = await batches.transitionMany(again);
    });
    expect(moved).toEqual(new Set(records.slice(0, 5).map((r) => r.customId)));
    expect(partly).toEqual(['update compression_batch_requests', 'find compression_batch_requests']);
  });

  it('tells each of two callers moving the same requests at once which ones it moved', async () => {
    const records = Array.from({ length: 40 }, (_, i) => ({ ...request(`m${i}`), runId: 'r4' }));
    await batches.addRequests(records);
    const moves = records.map((r) => ({
      customId: r.customId,
      from: ['pending' as const],
      set: { state: 'noop' as const },
    }));
    const [first, second] = await Promise.all([
      batches.transitionMany(moves),
      batches.transitionMany([...moves].reverse()),
    ]);
    expect(first.size + second.size).toBe(40);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
    expect(await batches.countByState('r4')).toEqual({ noop: 40 });
  });
});

describe('BatchRepository.updateBatch', () => {
  it('finds the batch by run, round and index whatever else the record passed holds', async () => {
    const key = { runId: 'r3', round: 1, index: 2 };
    const opened = await batches.openBatch({ ...key, customIds: ['z'] }, new Date());
    const stale = { ...opened, state: 'applied' as const, customIds: ['other'] };
    await batches.updateBatch(stale, { batchId: 'b-3' });
    expect(await batches.batches('r3', 1)).toMatchObject([{ batchId: 'b-3', customIds: ['z'] }]);
  });
});
