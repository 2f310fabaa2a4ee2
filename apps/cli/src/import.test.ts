import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { uniqueName, workerMongoUri } from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const file = fileURLToPath(
  new URL('../../../../shared/data/memorybank/memory_bank_en.json', import.meta.url),
);
const run = promisify(execFile);

describe('memfade import and status (the built binary, on the test run services)', () => {
  const env = {
    ...process.env,
    REDIS_URL: inject('redisUrl'),
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: uniqueName('db'),
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    LANCEDB_DIR: join(tmpdir(), uniqueName('memfade-lance')),
  };
  afterAll(() => rm(env.LANCEDB_DIR, { recursive: true, force: true }));
  const memfade = (...args: string[]) => run(process.execPath, [main, ...args], { env, timeout: 60_000 });

  it('imports MemoryBank JSON once: a second import adds nothing', async () => {
    const first = await memfade('import', file, '--format', 'memorybank');
    expect(first.stdout).toMatch(
      /imported 149 new memories \(of 149\) and 15 role cards; 1 empty days skipped/,
    );
    const second = await memfade('import', file, '--format', 'memorybank');
    expect(second.stdout).toMatch(/imported 0 new memories \(of 149\) and 0 role cards/);
    const status = JSON.parse((await memfade('status', '--json')).stdout);
    expect(status.stages).toEqual({ raw: 149, v1: 0, v2: 0, other: 0 });
    expect(status.queues.compress).toMatchObject({ waiting: 0, failed: 0 });
  });

  it('refuses an unknown format with exit code 2 and a message naming the option', async () => {
    const failure = await memfade('import', file, '--format', 'csv').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toMatch(/--format: unknown format 'csv'/);
  });
});
