import { commandsSent, uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BatchRequestRecord } from './batch-record.js';
import { BatchRepository } from './batch-repository.js';
import { closeMongo, connectMongo } from './connection.js';
import { MemoryHolds } from './holds.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { RunRepository } from './run-repository.js';

let connection: Connection;
let models: Models;
let holds: MemoryHolds;
let runs: RunRepository;

beforeAll(async () => {
  // Command monitoring on: some tests count the commands a call sends.
  const uri = new URL(workerMongoUri(inject('mongoUris')));
  uri.searchParams.set('monitorCommands', 'true');
  connection = await connectMongo(uri.toString(), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  holds = new MemoryHolds(models);
  runs = new RunRepository(models);
});
afterAll(async () => closeMongo(connection));

const start = (runId: string) => runs.start({ runId, trigger: 'manual', asOf: new Date() });
const sorted = (set: Set<string>) => [...set].sort();

/** The commands (name and collection) `work` sends on the connection. */
const commandsOf = (work: () => Promise<unknown>) => commandsSent(connection.getClient(), work);

describe('MemoryHolds (docs/design.md invariant 9)', () => {
  it('memories no run holds are taken with one insert, not read back', async () => {
    await start('fresh');
    const ids = Array.from({ length: 30 }, (_, i) => `fresh-${i}`);
    let taken = new Set<string>();
    const sent = await commandsOf(async () => {
      taken = await holds.take('fresh', ids);
    });
    expect(sorted(taken)).toEqual([...ids].sort());
    expect(sent).toEqual(['insert compression_holds']);
    // Held now: taking again reads who holds them.
    expect(await commandsOf(() => holds.take('fresh', ids))).toContain('find compression_holds');
  });

  it('two runs taking the same memories at once: each memory goes to exactly one of them', async () => {
    await start('a');
    await start('b');
    const ids = Array.from({ length: 40 }, (_, i) => `m${i}`);
    const [a, b] = await Promise.all([holds.take('a', ids), holds.take('b', ids.slice(10))]);
    expect(a.size + b.size).toBe(40);
    for (const id of a) expect(b.has(id)).toBe(false);
    // Taking again (a producer retried) returns what the run already holds.
    expect(sorted(await holds.take('a', ids))).toEqual(sorted(a));
    expect(sorted(await holds.heldByOthers('b', ids))).toEqual(sorted(a));
  });

  it('a hold whose run finished is taken over; one released is free', async () => {
    await start('c');
    await start('d');
    expect((await holds.take('c', ['x', 'y'])).size).toBe(2);
    expect((await holds.take('d', ['x', 'y'])).size).toBe(0);
    await runs.markFinished('c', {}, { startedAt: new Date(), interrupted: false });
    // The finish's release never came (a crash): the finished run's holds are stale.
    expect(sorted(await holds.take('d', ['x', 'y']))).toEqual(['x', 'y']);
    expect(await holds.release('d')).toBe(2);
    await start('e');
    expect(sorted(await holds.take('e', ['x']))).toEqual(['x']);
  });

  it('releases the holds a finished run left behind, and only those', async () => {
    await start('left');
    await start('live');
    expect((await holds.take('left', ['l1', 'l2'])).size).toBe(2);
    expect((await holds.take('live', ['v1'])).size).toBe(1);
    await runs.markFinished('left', {}, { startedAt: new Date(), interrupted: false });
    // The finish's release never came (a worker killed in between: simulate --seed 6180).
    expect(await holds.count('left')).toBe(2);
    expect(await holds.releaseFinished()).toBe(2);
    expect(await holds.count('left')).toBe(0);
    expect(await holds.count('live')).toBe(1);
  });

  it("gives up a run's live requests once, with what their earlier rounds spent", async () => {
    const batches = new BatchRepository(models);
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const record = (memoryId: string, round: number, state: BatchRequestRecord['state']) => ({
      runId: 'g',
      round,
      customId: `g-${round}-${memoryId}`,
      memoryId,
      target: 'v2' as const,
      state,
      attempts: 0,
    });
    await batches.addRequests([
      record('p', 0, 'applied'),
      {
        ...record('p', 1, 'submitted'),
        carried: [{ stage: 'v1', skipped: false, usage, ratio: 0.4, cost: 1 }],
      },
      record('q', 0, 'submitted'),
      record('r', 1, 'pending'),
    ]);
    expect(await batches.live('g')).toEqual({ count: 3, round: 0, unsubmitted: false });
    const given = await batches.interrupt('g');
    expect(given.map((r) => r.memoryId).sort()).toEqual(['p', 'q', 'r']);
    expect(given.find((r) => r.memoryId === 'p')?.carried).toHaveLength(1);
    expect(await batches.interrupt('g')).toEqual([]);
    expect(await batches.live('g')).toEqual({ count: 0, unsubmitted: false });
  });
});
