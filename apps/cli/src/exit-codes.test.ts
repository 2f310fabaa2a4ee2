import { fileURLToPath } from 'node:url';
import { startWorkerRole } from '@memfade/app';
import { memoryDocument } from '@memfade/db';
import { type Harness, startHarness } from '@memfade/system-tests';
import { childEnv, runScript, tempDir, WORKER_WAIT_MS } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const DAY = 24 * 60 * 60 * 1000;

/**
 * Exit codes a cron wrapper reads (README "Exit codes"), from the built CLI against real services;
 * the workers run in this process on the same Redis, database and queue prefix.
 */
// The CLI runs end when the command does; their caps, and the tests', are for a loaded machine.
describe('exit codes and counts that match what happened', { timeout: 3 * WORKER_WAIT_MS }, () => {
  let harness: Harness;
  let vectors: Awaited<ReturnType<typeof tempDir>>;
  const memfade = (...args: string[]) =>
    runScript(cli, args, {
      env: childEnv({
        REDIS_URL: harness.config.redisUrl!,
        MONGODB_URI: harness.config.mongodbUri!,
        MONGODB_DB: harness.config.mongodbDb,
        MEMFADE_QUEUE_PREFIX: harness.config.queuePrefix,
        LANCEDB_DIR: vectors.dir,
        SCHEDULER_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      }),
      timeoutMs: WORKER_WAIT_MS,
    });

  const insert = (memoryId: string, createdAt: unknown, content?: unknown) => {
    const doc = memoryDocument({
      memoryId,
      userId: 'exit-user',
      partnerId: 'p',
      turns: [
        {
          role: 'user',
          text: 'We walked along the river at dusk and talked about moving to Porto next spring.',
        },
      ],
      createdAt: new Date(),
    });
    return harness.services.models.memories.collection.insertOne({
      ...doc,
      meta: { ...(doc.meta as object), createdAt },
      ...(content !== undefined && { content }),
    });
  };

  beforeAll(async () => {
    // The CLI's clock is the real one: so is the workers'.
    harness = await startHarness({ now: new Date() });
    vectors = await tempDir('memfade-exit-lance-');
  });
  afterAll(async () => {
    await harness?.close();
    await vectors?.remove();
  });

  it('run-now --wait exits 1 when memories failed, then 5 when every due memory was held back by them (backfill too)', async () => {
    const due = new Date(Date.now() - 4 * DAY);
    // Bad input (content that is neither text nor turns): each job fails for good, and its failed
    // job is kept; BullMQ keeps job ids unique, so the next run cannot add it again until
    // `memfade retry-failed`: "held back".
    for (const id of ['held-1', 'held-2']) await insert(id, due, { raw: 42 });
    const workers = startWorkerRole(harness.services);
    try {
      const first = await memfade('run-now', '--wait');
      expect(first.code, first.stderr).toBe(1);
      for (const args of [
        ['run-now', '--wait'],
        ['backfill', '--all', '--wait'],
      ]) {
        const result = await memfade(...args);
        const what = `memfade ${args.join(' ')}: ${result.stderr}`;
        // Before: exit 0, as if the night had done its work.
        expect(result.code, what).toBe(5);
        expect(result.stderr, what).toMatch(
          /^memfade: run \S+ processed nothing: 2 memories were due, none ran in it: 2 held back by failed jobs still kept \(memfade retry-failed puts them back\)$/m,
        );
        // The summary still goes to stdout, with the same note.
        expect(result.stdout, what).toContain('2 due memories held back by failed jobs');
      }
    } finally {
      await workers.close();
    }
  });

  it('rollback of a memory that does not exist exits 1 (as inspect), not 2 (bad usage)', async () => {
    const result = await memfade('rollback', 'no-such-memory', '--to', 'raw');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim()).toBe('memfade: memory no-such-memory not found');
  });

  it('rollback of a memory with nothing to roll back exits 1 naming its stage, not 2 (bad usage)', async () => {
    await insert('still-raw', new Date());
    const result = await memfade('rollback', 'still-raw', '--to', 'v1');
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr.trim()).toBe('memfade: memory still-raw: is at raw, nothing to roll back to v1');
    await harness.services.models.memories.collection.deleteOne({ memoryId: 'still-raw' });
  });

  it('reindex --all counts the memories it embedded and names those it could not', async () => {
    // Bad input (a creation date stored as a string, and the first test's content): no vector
    // record, by design (docs/design.md invariant 5).
    await insert('bad-date', '2026-03-01');
    await insert('good', new Date());
    const result = await memfade('reindex', '--all');
    expect(result.code, result.stderr).toBe(0);
    // The old count said "reindexed 4 of 4 memories".
    const [line] = result.stdout.trim().split('\n');
    expect(line).toMatch(/^reindexed 4 memories: 1 embedded, 3 not embedded \(bad input, no vector record: /);
    for (const id of ['held-1', 'held-2', 'bad-date']) expect(line).toContain(id);
    expect(line).toMatch(/; memfade inspect <id> says why\)$/);
    expect(result.stdout).not.toContain('the outbox drain handled');
  });
});
