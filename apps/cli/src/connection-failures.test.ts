import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@memfade/runtime';
import { childEnv, runScript, type ScriptResult, tempDir, uniqueName } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const PASSWORD = 'c0nnect-Pa55-9f8e';
const CONNECT_TIMEOUT_MS = 1_000;

/** Runs the built CLI until it exits (or kills it after 20 s, so a hang fails the test instead of stalling it). */
function memfade(env: Record<string, string>, ...args: string[]): Promise<ScriptResult> {
  const settings = { MONGODB_DB: uniqueName('db'), CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), ...env };
  return runScript(cli, args, { env: childEnv(settings), timeoutMs: 20_000 });
}

describe('a command whose Redis or MongoDB is unreachable (the built binary)', () => {
  it('fails within CONNECT_TIMEOUT_MS with one line naming REDIS_URL, its host and port, and no password', async () => {
    const port = await freePort();
    const env = { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`, MONGODB_URI: inject('mongoUri') };
    const folder = await tempDir();
    const file = join(folder.dir, 'empty.json');
    await writeFile(file, '{}');
    const commands = [
      ['status'],
      ['inspect', 'some-memory'],
      ['backfill', '--all'],
      ['run-now', '--wait'],
      ['retry-failed'],
      ['import', file, '--format', 'memorybank'],
    ];
    const results = await Promise.all(commands.map((args) => memfade(env, ...args)));
    await folder.remove();
    for (const [i, result] of results.entries()) {
      const what = `memfade ${commands[i]!.join(' ')}: ${result.stderr}`;
      // Killed after 20 s (a hang) would be a null code.
      expect(result.code, what).toBe(2);
      expect(result.stderr.trim().split('\n'), what).toEqual([
        `memfade: cannot connect to Redis at 127.0.0.1:${port} (REDIS_URL) within ${CONNECT_TIMEOUT_MS} ms: connect ECONNREFUSED 127.0.0.1:${port}`,
      ]);
      expect(result.stdout, what).toBe('');
    }
  });

  it('says MongoDB, with MONGODB_URI host and port and no credentials', async () => {
    const port = await freePort();
    const result = await memfade(
      {
        REDIS_URL: inject('redisUrl'),
        MONGODB_URI: `mongodb://memfade:${PASSWORD}@127.0.0.1:${port}/memfade`,
      },
      'status',
    );
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^memfade: cannot connect to MongoDB at 127\\.0\\.0\\.1:${port} \\(MONGODB_URI\\): `),
    );
    expect(result.stderr).not.toContain(PASSWORD);
    expect(result.stderr).not.toContain('memfade:c0nnect');
  });
});
