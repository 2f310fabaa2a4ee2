import { enqueueRun, forget, startWorkerRole, waitForRun } from '@memfade/app';
import { parseMapping } from '@memfade/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureDeps, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;

/**
 * A Mongoose app's memories: the user an ObjectId referencing its users collection, the memory's id
 * an integer (a product moved from SQL), role cards keyed by the same ObjectId. memfade carries
 * every id as a string (docs/mapping.md "Ids") and must find each document in its stored form:
 * before, every memory failed as bad input ("userId: missing or not a string").
 */
describe('ids stored as ObjectIds and integers', () => {
  let harness: Harness;
  // The driver's own ObjectId (the system tests take the database through memfade's services).
  let ObjectId: typeof import('mongoose').mongo.ObjectId;
  let users: InstanceType<typeof ObjectId>[];
  const memory = (no: number, user: InstanceType<typeof ObjectId>) => ({
    memory_no: no,
    owner: user,
    created_at: new Date(NOW.getTime() - 4 * DAY),
    messages: [
      {
        role: 'user',
        text: `I finally booked the trip to Lisbon for March, number ${no}, just the two of us.`,
      },
      { role: 'assistant', text: 'That is wonderful news! What are you looking forward to most?' },
      { role: 'user', text: 'The tram up to the castle at sunset, and the custard tarts in Belém.' },
    ],
  });

  beforeAll(async () => {
    const mapping = parseMapping({
      collections: { memories: 'app_memories', roleCards: 'personas' },
      memory: {
        id: 'memory_no',
        userId: 'owner',
        createdAt: { path: 'created_at', format: 'date' },
        conversation: { path: 'messages' },
      },
      roleCard: { key: 'owner', name: 'name', personality: 'personality' },
      writes: { prefix: 'memfade' },
    });
    harness = await startHarness({ now: NOW, config: { mapping } });
    ObjectId = harness.services.models.memories.base.mongo.ObjectId;
    users = [new ObjectId(), new ObjectId()];
    const db = harness.services.mongo.db!;
    await db
      .collection('app_memories')
      .insertMany([memory(101, users[0]!), memory(102, users[0]!), memory(201, users[1]!)]);
    await db
      .collection('personas')
      .insertMany(users.map((owner) => ({ owner, name: 'Juno', personality: 'warm' })));
    const workers = startWorkerRole(harness.services);
    await enqueueRun(harness.services, { runId: 'ids-night', trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, 'ids-night', { timeoutMs: 60_000 });
    await workers.close();
  }, 120_000);

  afterAll(async () => harness?.close());

  const docs = () =>
    harness.services.mongo.db!.collection('app_memories').find({}).sort({ memory_no: 1 }).toArray();

  it('compresses each memory, found by its integer id, with the card of its ObjectId user', async () => {
    const run = await harness.services.runs.get('ids-night');
    expect(run?.errors).toEqual([]);
    const stored = await docs();
    expect(stored.map((d) => [d.memory_no, d.memfade?.stage])).toEqual([
      [101, 'v1'],
      [102, 'v1'],
      [201, 'v1'],
    ]);
    // The product's ids are as it wrote them: nothing was rewritten as a string.
    expect(stored.every((d) => typeof d.memory_no === 'number' && d.owner instanceof ObjectId)).toBe(true);
  });

  it('forgets a user named by the hex digits of their ObjectId, and only them', async () => {
    const receipt = await forget(
      erasureDeps(harness, NOW),
      { userId: users[0]!.toHexString() },
      { dryRun: false },
    );
    expect(receipt.failures).toEqual([]);
    const stored = await docs();
    expect(stored.map((d) => [d.memory_no, d.memfade?.stage ?? 'raw'])).toEqual([
      [101, 'raw'],
      [102, 'raw'],
      [201, 'v1'],
    ]);
  });
});
