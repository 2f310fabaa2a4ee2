import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  childEnv,
  startTcpProxy,
  type TcpProxy,
  tempDir,
  uniqueName,
  until,
  WORKER_WAIT_MS,
  workerMongoUri,
} from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

// The waits end when the worker says what they wait for; their caps are for a loaded machine.
describe('the worker while Redis is away (the built binary)', { timeout: 3 * WORKER_WAIT_MS }, () => {
  let proxy: TcpProxy | undefined;
  let worker: ChildProcess | undefined;
  let vectors: Awaited<ReturnType<typeof tempDir>> | undefined;
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await proxy?.close();
    await vectors?.remove();
  });

  it('waits for Redis at start-up and through an outage, saying so with backoff and without stack traces', async () => {
    proxy = await startTcpProxy({ port: Number(new URL(inject('redisUrl')).port) });
    vectors = await tempDir();
    await proxy.cut();
    worker = spawn(process.execPath, [main], {
      env: childEnv({
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        MONGODB_URI: workerMongoUri(inject('mongoUris')),
        MONGODB_DB: uniqueName('db'),
        MEMFADE_QUEUE_PREFIX: uniqueName('q'),
        LANCEDB_DIR: vectors.dir,
        SCHEDULER_ENABLED: 'false',
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    worker.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    worker.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    const messages = () =>
      output
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg: string; redis?: string; err?: unknown });
    const count = (msg: string) => messages().filter((m) => m.msg === msg).length;

    // Start-up: Redis is not there yet; the worker waits instead of exiting.
    await until(
      async () => count('still waiting for Redis') >= 1,
      WORKER_WAIT_MS,
      () => output,
    );
    expect(worker.exitCode).toBeNull();
    await proxy.restore();
    await until(
      async () => count('memfade worker started') === 1,
      WORKER_WAIT_MS,
      () => output,
    );

    // An outage of a few seconds while running: dozens of reconnect attempts across the worker's
    // connections, a handful of lines.
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await proxy.restore();
    // Every outage the worker reported has ended (its connections reconnect one by one: CI once saw a
    // third outage opened by a connection failing again while the others were already back).
    await until(
      async () =>
        count('Redis is back') >= 2 &&
        count('Redis is back') === count('Redis unreachable: waiting for it, with backoff'),
      WORKER_WAIT_MS,
      () => output,
    );

    expect(count('Redis unreachable: waiting for it, with backoff'), output).toBeLessThanOrEqual(3);
    // 1 s, then 2 s apart and more: a few lines per outage, not one per attempt and connection.
    expect(count('still waiting for Redis')).toBeLessThanOrEqual(6);
    for (const m of messages().filter((m) => /Redis/.test(m.msg)))
      expect(m.redis).toBe(`127.0.0.1:${proxy.port}`);
    expect(output).not.toMatch(/"stack"|\n\s+at /);
    expect(messages().filter((m) => m.msg === 'worker error')).toEqual([]);
  });
});
