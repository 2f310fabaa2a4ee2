import { fileURLToPath } from 'node:url';
import { closeMongo, connectMongo, createModels, memoryDocument } from '@memfade/db';
import { childEnv, runScript, uniqueName, workerMongoUri } from '@memfade/testing';
import { beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DAY = 86_400_000;

/**
 * `memfade doctor` (the built binary) on a product database made the way a product would have
 * written it: good memories of two ages, one with a string date, one whose user has no role card.
 */
describe('memfade doctor', () => {
  const db = uniqueName('db');
  const env = childEnv({
    REDIS_URL: inject('redisUrl'),
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: db,
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    LANCEDB_DIR: '/nonexistent/memfade-lancedb',
    MEMFADE_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: 'sk-ant-doctor-test',
    MEMFADE_MODEL: 'claude-test',
    MEMFADE_PRICES: JSON.stringify({ 'claude-test': { input: 1, output: 5 } }),
    LOG_LEVEL: 'warn',
  });
  const doctor = async (database = db) => {
    const { code, stdout } = await runScript(cli, ['doctor', '--json'], {
      env: { ...env, MONGODB_DB: database },
    });
    return { code, report: JSON.parse(stdout) as Record<string, any> };
  };
  const now = Date.now();
  const memory = (memoryId: string, userId: string, ageDays: number) =>
    memoryDocument({
      memoryId,
      userId,
      partnerId: 'p',
      turns: [
        {
          role: 'user',
          text: 'I start my new job at the harbour office on Monday, and I am nervous about it.',
        },
        {
          role: 'assistant',
          text: 'A new start! What are you most looking forward to, and what worries you most?',
        },
      ],
      createdAt: new Date(now - ageDays * DAY - 60_000),
    });

  let indexesBefore: unknown;
  beforeAll(async () => {
    const mongo = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: db });
    const models = createModels(mongo);
    // Due tonight: V1 for the 4-day-old ones and V1 then V2 for the 8-day-old one. The young ones
    // become due for V1 in 1 and 2 nights (2 and 1 days old), the 4-day-old ones for V2 in 3 nights.
    const docs = [
      memory('due-v1-a', 'kai', 4),
      memory('due-v1-b', 'kai', 4),
      memory('due-v2', 'kai', 8),
      memory('young-2d', 'kai', 2),
      memory('young-1d', 'kai', 1),
      { ...memory('string-date', 'kai', 5), meta: { createdAt: '2026-11-01', compressionStage: 'raw' } },
      memory('no-card', 'nobody', 4),
    ];
    await models.memories.collection.insertMany(docs);
    await models.roleCards.collection.insertOne({ userId: 'kai', name: 'Kai', personality: 'calm' });
    indexesBefore = await models.memories.collection.indexes();
    await closeMongo(mongo);
  });

  let result: Awaited<ReturnType<typeof doctor>>;
  beforeAll(async () => {
    result = await doctor();
  });

  it('reports each mapped field with the memory that lacks it, and groups what would fail as bad input', () => {
    const { report } = result;
    expect(report.memories).toBe(7);
    const createdAt = report.fields.find((f: { field: string }) => f.field === 'meta.createdAt');
    expect(createdAt).toMatchObject({ ok: 6, wrongType: 1, missing: 0, example: 'string-date' });
    expect(report.badInput).toEqual([
      expect.objectContaining({ field: 'meta.createdAt', count: 1, example: 'string-date' }),
    ]);
    // Cards and memories counted apart: one card in the collection, used by five memories.
    expect(report.roleCards).toMatchObject({
      documents: 1,
      used: 1,
      invalid: 0,
      memories: { withCard: 5, missing: 1, invalid: 0, example: 'no-card' },
    });
    expect(report.languages).toEqual({ zh: 0, en: 6 });
  });

  it('counts the model calls due tonight and in each of the next nights', () => {
    const nights = result.report.nights.map((n: { v1: number; v2: number }) => [n.v1, n.v2]);
    // Tonight: V1 for the three 4-day-old (one without a card) and the 8-day-old; V2 for the latter.
    expect(nights.slice(0, 5)).toEqual([
      [4, 1],
      [1, 0],
      [1, 0],
      [0, 3],
      [0, 0],
    ]);
    expect(nights).toHaveLength(8);
  });

  it('prices tonight in sync and batch mode from the price table', () => {
    const { tonight } = result.report;
    expect(tonight.inputTokens).toBeGreaterThan(0);
    expect(tonight.outputTokens).toBeGreaterThan(0);
    const sync = (tonight.inputTokens * 1 + tonight.outputTokens * 5) / 1_000_000;
    expect(tonight.sync).toBeCloseTo(sync, 10);
    expect(tonight.batch).toBeCloseTo(sync / 2, 10);
  });

  it("compares tonight's estimate with the night budget, and says how much of tonight fits", async () => {
    expect(result.report.budget).toEqual({ usd: 0, tokens: 0, userUsd: 0 });
    expect(result.report.warnings.join('\n')).not.toContain('NIGHT_BUDGET');
    const tokens = Math.floor((result.report.tonight.inputTokens + result.report.tonight.outputTokens) / 4);
    const { stdout } = await runScript(cli, ['doctor', '--json'], {
      env: { ...env, NIGHT_BUDGET_TOKENS: String(tokens) },
    });
    const report = JSON.parse(stdout);
    expect(report.budget).toEqual({ usd: 0, tokens, userUsd: 0 });
    expect(report.warnings.join('\n')).toMatch(
      /passes NIGHT_BUDGET_TOKENS \(\d+\): about 2[45]% of tonight's model calls fit; the rest stay due/,
    );
  });

  it('lists the missing indexes with the command to create them, creates none, and checks Redis', async () => {
    const { report, code } = result;
    const dueScan = report.indexes.find((i: { name: string }) => i.name === 'due_scan');
    expect(dueScan).toMatchObject({ present: false });
    expect(dueScan.command).toContain('createIndex({"meta.compressionStage":1,"meta.createdAt":1}');
    const mongo = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: db });
    expect(await createModels(mongo).memories.collection.indexes()).toEqual(indexesBefore);
    await closeMongo(mongo);
    expect(report.redis).toMatchObject({ reachable: true, maxmemoryPolicy: 'noeviction' });
    expect(report.vectorStore.status).toMatch(/^absent/);
    // Some memories would fail, but memfade can work on this database.
    expect(report.errors).toEqual([]);
    expect(code).toBe(0);
  });

  it('exits 1 and says why when memfade cannot work: an empty collection', async () => {
    const empty = await doctor(uniqueName('empty'));
    expect(empty.code).toBe(1);
    expect(empty.report.errors).toContainEqual(expect.stringMatching(/memories collection is empty/));
  });
});
