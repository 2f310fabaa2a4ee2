import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { createModels, type Models } from './models.js';
import { advanceSweepCursor, readSweepCursor } from './sweep-cursor.js';

let connection: Connection;
let models: Models;

beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  models = createModels(connection);
});
afterAll(async () => closeMongo(connection));

describe('the shared erasure sweep cursor', () => {
  it('starts at the start, moves once from what was read, and starts over after the last page', async () => {
    const start = await readSweepCursor(models);
    expect(start).toEqual({ store: undefined, side: undefined });
    // Two workers read the same cursor and swept the same page: one move stands.
    const moves = await Promise.all([
      advanceSweepCursor(models, start, { store: 'm-100' }),
      advanceSweepCursor(models, start, { store: 'm-100' }),
    ]);
    expect(moves.filter(Boolean)).toHaveLength(1);
    const read = await readSweepCursor(models);
    expect(read).toEqual({ store: 'm-100', side: undefined });
    expect(await advanceSweepCursor(models, start, { store: 'm-050' })).toBe(false);
    expect(await advanceSweepCursor(models, read, { store: 'm-200', side: 's-9' })).toBe(true);
    expect(await advanceSweepCursor(models, await readSweepCursor(models), {})).toBe(true);
    expect(await readSweepCursor(models)).toEqual({ store: undefined, side: undefined });
  });
});
