import { BadInputError, prepareBatchStage, stagePolicy } from '@memfade/core';
import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { type MappingConfig, parseMapping } from './mapping.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, ensureOwnIndexes, type Models } from './models.js';
import { duplicateCardKeys } from './role-cards.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;
const policy = stagePolicy();

/** A product keeping one persona card per partner: `owner` and `persona` on memories and cards alike. */
const mappingOf = (
  collection: string,
  roleCard: Partial<MappingConfig['roleCard']> | Record<string, unknown>,
) =>
  parseMapping({
    collections: { memories: `${collection}_chats`, roleCards: `${collection}_personas` },
    memory: {
      id: 'chat_id',
      userId: 'owner',
      partnerId: 'persona',
      createdAt: { path: 'started', format: 'date' },
      conversation: {
        path: 'messages',
        turns: { role: 'from', text: 'body', roles: { me: 'user', bot: 'assistant' } },
      },
    },
    roleCard,
    writes: { prefix: 'mf' },
  });

const chat = (chatId: string, owner: string, persona: string) => ({
  chat_id: chatId,
  owner,
  persona,
  started: new Date(NOW.getTime() - 4 * DAY),
  messages: [
    { from: 'me', body: 'I finally finished the model ship my grandfather left half built in the attic.' },
    { from: 'bot', body: 'That must have felt like finishing a conversation with him. How did it turn out?' },
    { from: 'me', body: 'The rigging took three weekends, but it sits on the shelf above my desk now.' },
  ],
});

let connection: Connection;
beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
});
afterAll(async () => closeMongo(connection));

describe('roleCard.key in the mapping', () => {
  it('takes a path (the user, as before), or the card fields of the user, the partner or both', () => {
    const cards = (key: unknown) => parseMapping({ roleCard: { key } }).roleCard;
    expect(cards('用户')).toMatchObject({ keys: { userId: '用户' } });
    expect(cards({ partnerId: 'persona_id' })).toMatchObject({ keys: { partnerId: 'persona_id' } });
    expect(cards({ userId: 'owner', partnerId: 'persona_id' })).toMatchObject({
      keys: { userId: 'owner', partnerId: 'persona_id' },
    });
  });

  it('refuses a key that names no field, the same field twice, a list or an unknown part', () => {
    const refused = (key: unknown) => () => parseMapping({ roleCard: { key } });
    expect(refused({})).toThrow('mapping.roleCard.key: expected userId, partnerId or both');
    expect(refused({ userId: 'a', partnerId: 'a' })).toThrow(
      'mapping.roleCard.key: expected two different paths',
    );
    expect(refused(['owner', 'persona_id'])).toThrow(
      'mapping.roleCard.key: expected a field path, or { userId: <card path>, partnerId: <card path> }',
    );
    expect(refused({ user: 'owner' })).toThrow(/mapping\.roleCard\.key: Unrecognized key: "user"/);
  });
});

describe('two cards of one user, keyed by partner', () => {
  let models: Models;
  beforeAll(async () => {
    models = createModels(
      connection,
      mappingOf('partners', { key: { userId: 'owner', partnerId: 'persona' } }),
    );
    await models.memories.collection.insertMany([
      chat('c-ann', 'u1', 'ann'),
      chat('c-bo', 'u1', 'bo'),
      chat('c-cy', 'u1', 'cy'),
    ]);
    await models.roleCards.collection.insertMany([
      { owner: 'u1', persona: 'ann', name: 'Ann', personality: 'patient, curious' },
      { owner: 'u1', persona: 'bo', name: 'Bo', personality: 'blunt, funny' },
      // Another user's card for the same partner: not u1's.
      { owner: 'u2', persona: 'cy', name: 'Cy of u2' },
    ]);
  });

  it("compresses each memory in its own partner's voice, through core's pipeline", async () => {
    const store = new MongoMemoryStore(models);
    const deps = { store, policy, now: () => NOW };
    const voice = async (chatId: string) => {
      const prepared = await prepareBatchStage(chatId, 'v1', deps);
      if (prepared.kind !== 'request') throw new Error(`expected a request, got ${prepared.kind}`);
      return prepared.request.roleCard;
    };
    expect(await voice('c-ann')).toMatchObject({
      userId: 'u1',
      name: 'Ann',
      personality: 'patient, curious',
    });
    expect(await voice('c-bo')).toMatchObject({ userId: 'u1', name: 'Bo', personality: 'blunt, funny' });
    // No card of u1 for partner cy: bad input naming the memory, not u2's card.
    await expect(prepareBatchStage('c-cy', 'v1', deps)).rejects.toThrow(BadInputError);
  });

  it('reads the cards of many memories in one query, each under its own key', async () => {
    const store = new MongoMemoryStore(models, { roleCardCacheMs: 60_000 });
    await store.loadMemories(['c-ann', 'c-bo', 'c-cy']);
    // Cached with the memories: an edit within the cache time is not seen yet.
    await models.roleCards.collection.updateOne({ owner: 'u1', persona: 'bo' }, { $set: { name: 'Bob' } });
    expect(await store.loadRoleCard('u1', 'ann')).toMatchObject({ name: 'Ann' });
    expect(await store.loadRoleCard('u1', 'bo')).toMatchObject({ name: 'Bo' });
    expect(await store.loadRoleCard('u1', 'cy')).toBeNull();
    await models.roleCards.collection.updateOne({ owner: 'u1', persona: 'bo' }, { $set: { name: 'Bo' } });
  });

  it('a card keyed by partner alone is every user’s card for that partner', async () => {
    const shared = createModels(connection, mappingOf('shared', { key: { partnerId: 'persona' } }));
    await shared.roleCards.collection.insertOne({ persona: 'ann', name: 'Ann for all' });
    const store = new MongoMemoryStore(shared);
    expect(await store.loadRoleCard('u7', 'ann')).toEqual({ userId: 'u7', name: 'Ann for all' });
    expect(await store.loadRoleCard('u8', 'ann')).toEqual({ userId: 'u8', name: 'Ann for all' });
    expect(await store.loadRoleCard('u8', 'bo')).toBeNull();
  });
});

describe('several cards with one key', () => {
  const cards = [
    { _id: 'c3', owner: 'u1', name: 'January', updated: new Date('2026-01-01') },
    { _id: 'c2', owner: 'u1', name: 'March', updated: new Date('2026-03-01') },
    { _id: 'c1', owner: 'u1', name: 'Undated' },
    { _id: 'c4', owner: 'u2', name: 'Only' },
  ];

  it('uses the most recently updated, warns once, and doctor lists them in that order', async () => {
    const models = createModels(connection, mappingOf('dated', { key: 'owner', updatedAt: 'updated' }));
    await models.roleCards.collection.insertMany(cards as never[]);
    await models.memories.collection.insertOne(chat('c-u1', 'u1', 'p'));
    const warnings: Record<string, unknown>[] = [];
    const store = new MongoMemoryStore(models, {
      roleCardCacheMs: 0,
      onDuplicateCards: (_message, details) => warnings.push(details),
    });
    expect(await store.loadRoleCard('u1', 'p')).toMatchObject({ name: 'March' });
    await store.loadMemories(['c-u1']);
    expect(await store.loadRoleCard('u1', 'p')).toMatchObject({ name: 'March' });
    expect(warnings).toEqual([
      { collection: 'dated_personas', key: { owner: 'u1' }, used: 'c2', ignored: ['c3', 'c1'] },
    ]);
    expect(await duplicateCardKeys(models)).toEqual({
      total: 1,
      keys: [{ key: { owner: 'u1' }, ids: ['c2', 'c3', 'c1'], count: 3 }],
    });
  });

  it('without roleCard.updatedAt, the smallest _id', async () => {
    const models = createModels(connection, mappingOf('undated', { key: 'owner' }));
    await models.roleCards.collection.insertMany(cards as never[]);
    const store = new MongoMemoryStore(models);
    expect(await store.loadRoleCard('u1', 'p')).toMatchObject({ name: 'Undated' });
    expect((await duplicateCardKeys(models)).keys).toEqual([
      { key: { owner: 'u1' }, ids: ['c1', 'c2', 'c3'], count: 3 },
    ]);
  });
});

describe('indexes on the product’s collections (docs/design.md invariant 10)', () => {
  const joined = () =>
    parseMapping({
      collections: { memories: 'idx_chats', roleCards: 'idx_personas' },
      memory: { id: 'chat_id', conversation: { collection: 'idx_turns', memoryId: 'chat_id', order: 'seq' } },
      roleCard: { key: { userId: 'owner', partnerId: 'persona' } },
      writes: { collection: 'idx_memfade_side' },
    });

  it("ensureOwnIndexes creates memfade's own and none on the product's collections", async () => {
    const models = createModels(connection, joined());
    for (const name of ['idx_chats', 'idx_personas', 'idx_turns'])
      await connection.db!.collection(name).insertOne({ _id: 'seed' } as never);
    await ensureOwnIndexes(models);
    for (const name of ['idx_chats', 'idx_personas', 'idx_turns'])
      expect((await connection.db!.collection(name).indexes()).map((i) => i.name)).toEqual(['_id_']);
    const side = await models.mine.collection.indexes();
    expect(side.map((i) => i.name).sort()).toEqual([
      '_id_',
      'due_scan',
      'history_run',
      'user',
      'vector_pending',
    ]);
    expect((await models.runs.collection.indexes()).map((i) => i.name)).toContain('run_id');
  });

  it('ensureIndexes (doctor --create-indexes) makes none of the product’s unique', async () => {
    const models = createModels(connection, joined());
    await ensureIndexes(models);
    const product = [
      ...(await models.memories.collection.indexes()),
      ...(await models.roleCards.collection.indexes()),
      ...(await models.turns!.collection.indexes()),
    ].filter((i) => i.name !== '_id_');
    expect(product.map((i) => i.name).sort()).toEqual([
      'created',
      'memfade_role_card',
      'memfade_turns',
      'memory_id',
      'user',
    ]);
    expect(product.filter((i) => i.unique)).toEqual([]);
    expect(product.find((i) => i.name === 'memfade_role_card')?.key).toEqual({ owner: 1, persona: 1 });
    // Two cards of one key can be written: the product's data is not constrained.
    await models.roleCards.collection.insertMany([
      { owner: 'u', persona: 'p' },
      { owner: 'u', persona: 'p' },
    ]);
  });
});
