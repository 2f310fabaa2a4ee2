import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeMongo, connectMongo, createModels, type Models, memoryDocument } from '@memfade/db';
import { childEnv, runScript, tempDir, uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/**
 * The built CLI against real services with no worker running, from a folder of its own and with
 * the default (relative) LANCEDB_DIR: whatever a command writes there is in `cwd`.
 */
describe('memfade commands: each opens only what it needs, and follows CLI conventions', () => {
  const db = uniqueName('db');
  const env = childEnv({
    REDIS_URL: inject('redisUrl'),
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: db,
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    LOG_LEVEL: 'warn',
  });
  let cwd: Awaited<ReturnType<typeof tempDir>>;
  let mongo: Connection;
  let models: Models;

  const run = (extraEnv: Record<string, string>, args: string[]) =>
    runScript(cli, args, { env: { ...env, ...extraEnv }, cwd: cwd.dir, timeoutMs: 30_000 });
  const memfade = (...args: string[]) => run({}, args);

  const memory = (memoryId: string) =>
    memoryDocument({
      memoryId,
      userId: 'commands-user',
      partnerId: 'p',
      turns: [{ role: 'user', text: 'I moved to Lisbon in March and started learning Portuguese.' }],
      createdAt: new Date('2026-01-01T00:00:00Z'),
    });

  beforeAll(async () => {
    cwd = await tempDir();
    mongo = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: db });
    models = createModels(mongo);
  });
  afterAll(async () => {
    await closeMongo(mongo);
    await cwd.remove();
  });

  it('status needs no model key and creates no vector folder in the current directory', async () => {
    // A model provider without its key: only the commands that call a model may need one.
    const result = await run({ MEMFADE_PROVIDER: 'anthropic' }, ['status']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^compress\s+0/m);
    expect(existsSync(join(cwd.dir, '.memfade'))).toBe(false);
  });

  it('inspect shows the error of a memory that failed before V1 (no history)', async () => {
    const doc = memory('failed-before-v1');
    await models.memories.collection.insertOne({
      ...doc,
      compression: {
        lastError: { stage: 'v1', message: 'model refused: 529 overloaded', at: new Date(), attempts: 3 },
      },
    });
    const result = await memfade('inspect', 'failed-before-v1');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('last error (v1, 3 attempts): model refused: 529 overloaded');
    expect(result.stdout).toContain('history: none');
  });

  it("inspect shows a V1 the product wrote itself in the reference design's shape (no usage, model or history)", async () => {
    const doc = memory('product-wrote-v1');
    await models.memories.collection.insertOne({
      ...doc,
      meta: { ...(doc.meta as object), compressionStage: 'v1' },
      compression: {
        v1: {
          compressedContent: 'Moved to Lisbon in March; learning Portuguese.',
          compressionRatio: 0.5,
          keyPoints: ['Lisbon'],
          emotionalHighlights: [],
          personalityAdjustment: {},
          compressedAt: '2026-01-04T03:00:00.000Z',
        },
        currentStage: 'v1',
      },
    });
    const result = await memfade('inspect', 'product-wrote-v1');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^V1\s+46\s+0\.5\s+-\s+-\s+-\s+2026-01-04T03:00:00\.000Z/m);
    expect(result.stdout).toContain('Moved to Lisbon in March');
  });

  it('inspect shows the V2 draft written with V1, and whether it can still be V2 without a call', async () => {
    const doc = memory('with-draft');
    const draft = {
      coreMemory: 'They moved to Lisbon in March.',
      coreMemoryPoints: [],
      memoryTraces: { clear: [], fuzzy: [], vague: [] },
      forgotten: { details: [], reason: '' },
      emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
      personalityNotes: '',
      model: 'emulated',
      promptVersion: 'v1v2-en@2026-11-28',
      compressedAt: new Date('2026-01-04T03:00:00Z'),
      rev: 1,
      sourceHash: 'h',
    };
    await models.memories.collection.insertOne({
      ...doc,
      meta: { ...(doc.meta as object), compressionStage: 'v1' },
      rev: 1,
      compression: {
        v1: { compressedContent: 'Moved to Lisbon in March; learning Portuguese.', compressionRatio: 0.5 },
        v2Draft: draft,
        history: [],
      },
    });
    const result = await memfade('inspect', 'with-draft');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^V2 draft\s+30\s+-\s+emulated\s+v1v2-en@2026-11-28/m);
    expect(result.stdout).toContain('They moved to Lisbon in March.');
    expect(result.stdout).toContain('V2 draft: written with V1 at rev 1, memory at rev 1 (unchanged since)');
  });

  it('rollback leaves the vector record to the workers: the outbox flag stays set and nothing is written here', async () => {
    const doc = memory('rolled-back');
    await models.memories.collection.insertOne({
      ...doc,
      meta: { ...(doc.meta as object), compressionStage: 'v1' },
      compression: {
        history: [],
        v1: { compressedContent: 'Moved to Lisbon in March; learning Portuguese.', compressionRatio: 0.7 },
      },
      vectorSync: { pending: false, stage: 'v1', textHash: 'synced-v1' },
    });
    const result = await memfade('rollback', 'rolled-back', '--to', 'raw');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/v1 -> raw; it is due again/);
    const after = await models.memories.findOne({ memoryId: 'rolled-back' }).lean();
    expect(after?.vectorSync).toMatchObject({ pending: true, stage: 'raw' });
    expect(existsSync(join(cwd.dir, '.memfade'))).toBe(false);
  });

  it('run-now --wait warns on stderr when no worker consumes the queues, and --timeout ends the wait (exit 3)', async () => {
    const result = await memfade('run-now', '--wait', '--timeout', '2s');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^memfade: warning: no worker is connected to the nightly queue/m);
    expect(result.stderr).toMatch(/^memfade: run manual-\S+ has not finished after 2000 ms; it goes on/m);
    // Progress and warnings go to stderr: a piped stdout holds nothing but the result.
    expect(result.stdout).toBe('');
  });

  it('backfill --user reports a user without memories instead of enqueueing nothing', async () => {
    const result = await memfade('backfill', '--user', 'nosuchuser', '--dry-run');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no memories of 'nosuchuser'");
  });

  it('usage errors exit 2, and --version prints the version', async () => {
    for (const args of [['status', '--bogus'], ['nosuchcommand'], ['rollback', 'x', '--to', 'v2'], []]) {
      const result = await memfade(...args);
      expect(result.code, `memfade ${args.join(' ')}: ${result.stderr}`).toBe(2);
    }
    const result = await memfade('--version');
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });
});
