import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { RunRepository } from './run-repository.js';
import { UserCosts } from './user-costs.js';

let connection: Connection;
let models: Models;
let runs: RunRepository;
let users: UserCosts;

beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  runs = new RunRepository(models);
  users = new UserCosts(models);
});
afterAll(async () => closeMongo(connection));

describe('USER_NIGHT_BUDGET_USD on the per-user ledger', () => {
  it('a stage dearer than the cap on its own, refused before anything was reserved for its user, is counted on the user', async () => {
    await models.memories.collection.insertOne({ memoryId: 'big-1', userId: 'u-big', meta: {} });
    await runs.start({ runId: 'cap-1', trigger: 'manual', asOf: new Date('2026-11-28T03:00:00Z') });
    const cap = 0.05;
    // Its reservation alone passes the cap: refused without a write (simulate --seed 1003).
    expect(await users.reserve('cap-1', 'big-1', 0.06, cap)).toBe(false);
    expect(await users.markReached('cap-1', 'big-1', cap)).toBe(true);
    expect(await users.markReached('cap-1', 'big-1', cap)).toBe(false);
    const ledger = await users.ofRun('cap-1');
    expect(ledger.map((u) => ({ userId: u.userId, overBudget: u.overBudget, night: u.night }))).toEqual([
      { userId: 'u-big', overBudget: 2, night: '2026-11-28' },
    ]);
    expect((await runs.get('cap-1'))?.userBudget).toEqual({ limitUsd: cap, overBudget: 2, users: 1 });
  });
  it("a run finishes with the cap's counts its users' documents hold, where a kill left the run's own behind", async () => {
    await models.memories.collection.insertOne({ memoryId: 'late-1', userId: 'u-late', meta: {} });
    await models.memories.collection.insertOne({ memoryId: 'late-2', userId: 'u-two', meta: {} });
    await runs.start({ runId: 'cap-2', trigger: 'manual', asOf: new Date('2026-11-28T03:00:00Z') });
    expect(await users.markReached('cap-2', 'late-1', 0.05)).toBe(true);
    // A worker killed after the user's document counted a memory, before the run did (simulate --seed 1232).
    await models.userCosts.collection.updateOne(
      { runId: 'cap-2', userId: 'u-two' },
      { $set: { overBudget: 1, night: '2026-11-28' } },
      { upsert: true },
    );
    expect((await runs.get('cap-2'))?.userBudget).toMatchObject({ overBudget: 1, users: 1 });
    expect(await runs.userCosts.leftByCap('cap-2')).toEqual({ memories: 2, users: 2 });
    expect(await runs.markFinished('cap-2', {}, { startedAt: new Date(), interrupted: false })).toBe(true);
    expect((await runs.get('cap-2'))?.userBudget).toEqual({ limitUsd: 0.05, overBudget: 2, users: 2 });
  });
});
