import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { childEnv, tempDir, uniqueName, WORKER_WAIT_MS, workerMongoUri } from '@memfade/testing';
import { afterEach, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Runs the built worker in `cwd` with this environment until it exits; what it printed, both streams. */
function runWorker(
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main], {
      cwd,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // A worker that starts despite the bad settings would run on: killed, its exit is not 2.
    const timer = setTimeout(() => child.kill('SIGKILL'), WORKER_WAIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

// A worker on a loaded machine may take a while to start, or to give up: the tests wait for it.
describe('worker start-up with bad settings (the built binary)', { timeout: 2 * WORKER_WAIT_MS }, () => {
  let folder: Awaited<ReturnType<typeof tempDir>> | undefined;
  afterEach(() => folder?.remove());

  it('refuses a bad schedule before it creates anything in its folder, naming both settings', async () => {
    folder = await tempDir('memfade-cwd-');
    const { code, output } = await runWorker(folder.dir, {
      // Everything it could connect to is there: only the schedule stops it.
      REDIS_URL: inject('redisUrl'),
      MONGODB_URI: workerMongoUri(inject('mongoUris')),
      MONGODB_DB: uniqueName('db'),
      MEMFADE_QUEUE_PREFIX: uniqueName('q'),
      SCHEDULE_CRON: '30 0 3 * * *',
      SCHEDULE_TZ: 'Europe/Helsinky',
    });
    expect(code).toBe(2);
    expect(output.trim().split('\n')).toEqual([
      'memfade-worker: invalid configuration:',
      "  SCHEDULE_CRON: '30 0 3 * * *' names seconds; the schedule has minute precision (use 5 fields)",
      "  SCHEDULE_TZ: unknown time zone 'Europe/Helsinky'",
    ]);
    // Not even the default LanceDB folder (./.memfade/lancedb).
    expect(await readdir(folder.dir)).toEqual([]);
  });

  it('names every bad or missing setting in one error: the schedule, a number, a pair, REDIS_URL', async () => {
    folder = await tempDir('memfade-cwd-');
    const { code, output } = await runWorker(folder.dir, {
      MONGODB_URI: workerMongoUri(inject('mongoUris')),
      SCHEDULE_CRON: 'every night',
      WORKER_CONCURRENCY: 'many',
      VECTOR_STORE: 'pgvector',
    });
    expect(code).toBe(2);
    const lines = output.trim().split('\n');
    expect(lines[0]).toBe('memfade-worker: invalid configuration:');
    expect(lines.slice(1).sort()).toEqual([
      '  PGVECTOR_URL: PGVECTOR_URL is required with VECTOR_STORE=pgvector',
      '  REDIS_URL: required for the worker',
      expect.stringMatching(/^ {2}SCHEDULE_CRON: invalid cron expression 'every night'/),
      expect.stringMatching(/^ {2}WORKER_CONCURRENCY: /),
    ]);
    expect(await readdir(folder.dir)).toEqual([]);
  });
});
