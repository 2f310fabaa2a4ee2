import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type EmbeddedProcess, freePort, spawnUntilReady } from '@memfade/runtime';
import { childEnv, tempDir, uniqueName, WORKER_WAIT_MS, workerMongoUri } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const SECRETS = {
  anthropicKey: 'ant-W4rk3rK3y-7b9c1d2e',
  redisPassword: 'r3dis-W0rker-Pa55',
  wrongRedisPassword: 'wr0ng-W0rker-Pa55',
  mongoPassword: 'm0ngo-W0rker-Pa55',
};

/** Runs the built worker with this environment until it exits; everything it printed, both streams. */
function runWorker(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main], {
      env: childEnv({ LOG_LEVEL: 'trace', SCHEDULER_ENABLED: 'false', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    // A worker that never gives up would hang here: kill it so the assertion on its exit fails.
    const timer = setTimeout(() => child.kill('SIGKILL'), WORKER_WAIT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, ms: Date.now() - started });
    });
  });
}

// A worker on a loaded machine may take a while to start, or to give up: the tests wait for it.
describe('worker start-up failures with secrets configured (the built binary, trace level)', {
  timeout: 2 * WORKER_WAIT_MS,
}, () => {
  let redis: EmbeddedProcess & { port: number };
  let vectors: Awaited<ReturnType<typeof tempDir>>;
  const common = () => ({
    LANCEDB_DIR: vectors.dir,
    MONGODB_URI: workerMongoUri(inject('mongoUris')),
    MONGODB_DB: uniqueName('db'),
    MEMFADE_QUEUE_PREFIX: uniqueName('q'),
    MEMFADE_PROVIDER: 'anthropic',
    MEMFADE_MODEL: 'emulated',
    ANTHROPIC_API_KEY: SECRETS.anthropicKey,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    REDIS_URL: `redis://:${SECRETS.redisPassword}@127.0.0.1:${redis.port}`,
  });
  const expectNoSecret = (output: string) => {
    for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
  };

  beforeAll(async () => {
    const port = await freePort();
    const server = await spawnUntilReady(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'].concat([
        '--requirepass',
        SECRETS.redisPassword,
        '--logfile',
        '',
      ]),
      /Ready to accept connections/,
    );
    redis = { ...server, port };
    vectors = await tempDir('memfade-lance-');
  });
  afterAll(async () => {
    await redis?.stop();
    await vectors?.remove();
  });

  it('exits 2 with one line naming REDIS_URL when Redis refuses the password, instead of retrying forever', async () => {
    const { code, output } = await runWorker({
      ...common(),
      REDIS_URL: `redis://:${SECRETS.wrongRedisPassword}@127.0.0.1:${redis.port}`,
    });
    expect(code).toBe(2);
    expect(output).toMatch(/^memfade-worker: Redis refused the credentials of REDIS_URL: WRONGPASS/m);
    expectNoSecret(output);
  });

  it('exits 2 when MongoDB refuses a URI with a password, without printing it', async () => {
    const { code, output } = await runWorker({
      ...common(),
      MONGODB_URI: workerMongoUri(inject('mongoUris')).replace(
        'mongodb://',
        `mongodb://memfade:${SECRETS.mongoPassword}@`,
      ),
    });
    expect(code).toBe(2);
    expect(output).toMatch(/^memfade-worker: /m);
    expectNoSecret(output);
  });

  it('exits 2 on a bad configuration naming the variables, never their secret values', async () => {
    const { code, output } = await runWorker({
      ...common(),
      REDIS_URL: `redis://:${SECRETS.redisPassword}@127.0.0.1:not-a-port`,
      MONGODB_URI: `postgres://admin:${SECRETS.mongoPassword}@db/x`,
      WORKER_CONCURRENCY: SECRETS.anthropicKey,
    });
    expect(code).toBe(2);
    expect(output).toMatch(/REDIS_URL/);
    expect(output).toMatch(/MONGODB_URI/);
    expect(output).toMatch(/WORKER_CONCURRENCY/);
    expectNoSecret(output);
  });

  it('starts with every secret set and logs nothing of them at trace level', async () => {
    const child = spawn(process.execPath, [main], {
      env: childEnv({ LOG_LEVEL: 'trace', SCHEDULER_ENABLED: 'false', ...common() }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + WORKER_WAIT_MS;
    while (!output.includes('memfade worker started') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Whatever the shutdown prints goes through the same check. Its exit code is not asserted: a
    // SIGTERM this soon after start can race BullMQ's start-up scripts ('Connection is closed'
    // emitted with no listener, exit 1), a shutdown matter that shutdown.test.ts owns.
    child.kill('SIGTERM');
    await exited;
    expect(output).toContain('memfade worker started');
    expectNoSecret(output);
  });
});
