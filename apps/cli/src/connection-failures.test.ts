import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server, Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@memfade/runtime';
import {
  childEnv,
  runScript,
  type ScriptResult,
  tempDir,
  uniqueName,
  workerMongoUri,
} from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';

const cli = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const PASSWORD = 'c0nnect-Pa55-9f8e';
/** Far longer than a refusal may take: a command that waits it out is killed first and fails the test. */
const NEVER = 600_000;

/** Runs the built CLI until it exits (or kills it after 90 s, so a hang fails the test instead of stalling it). */
function memfade(env: Record<string, string>, ...args: string[]): Promise<ScriptResult> {
  const settings = { MONGODB_DB: uniqueName('db'), ...env };
  return runScript(cli, args, { env: childEnv(settings), timeoutMs: 90_000 });
}

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

/** A host that accepts TCP connections and never says a word (another service, or a proxy in front of nothing). */
async function silentHost(): Promise<number> {
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return (server.address() as { port: number }).port;
}

/**
 * A black hole: connection attempts get no answer at all (a firewall dropping packets). A child
 * process listens with a backlog of 1 and never accepts (its event loop is blocked), and two
 * connections fill its queue: the kernel drops every later SYN.
 */
async function blackHole(): Promise<number> {
  const port = await freePort();
  const script = `const s = require('node:net').createServer();
s.listen({ port: ${port}, host: '127.0.0.1', backlog: 1 }, () => {
  require('node:fs').writeSync(1, 'listening\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const fill: Socket[] = [];
  cleanups.push(() => {
    for (const socket of fill) socket.destroy();
    child.kill('SIGKILL');
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  for (let i = 0; i < 2; i++) {
    const socket = new Socket().on('error', () => undefined);
    fill.push(socket);
    await new Promise((resolve) => socket.connect(port, '127.0.0.1', () => resolve(undefined)));
  }
  // The next attempt hangs: the host is a black hole now.
  const probe = new Socket().on('error', () => undefined);
  const connected = await Promise.race([
    new Promise((resolve) => probe.connect(port, '127.0.0.1', () => resolve(true))),
    new Promise((resolve) => setTimeout(() => resolve(false), 500)),
  ]);
  probe.destroy();
  expect(connected, 'the black hole accepted a connection').toBe(false);
  return port;
}

/**
 * A relay to the test's MongoDB that resets a connection the moment it carries a createIndexes
 * command: MongoDB going away between the connect and memfade's index creation at start-up.
 */
async function resetAtIndexes(): Promise<number> {
  const target = Number(new URL(workerMongoUri(inject('mongoUris'))).port);
  const sockets: Socket[] = [];
  const server: Server = createServer((client) => {
    const upstream = new Socket().connect(target, '127.0.0.1');
    sockets.push(client, upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('createIndexes')) {
        client.resetAndDestroy();
        upstream.destroy();
      } else upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return (server.address() as { port: number }).port;
}

describe('a command whose Redis or MongoDB is unreachable (the built binary)', () => {
  it('fails at once when Redis refuses the connection, in one line naming Redis, its host and port, and no password', async () => {
    const port = await freePort();
    const env = {
      REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`,
      MONGODB_URI: workerMongoUri(inject('mongoUris')),
      CONNECT_TIMEOUT_MS: String(NEVER),
    };
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
      // Killed after 90 s (waiting out CONNECT_TIMEOUT_MS) would be a null code.
      expect(result.code, what).toBe(2);
      expect(result.stderr.trim().split('\n'), what).toEqual([
        `memfade: Redis at 127.0.0.1:${port} refused the connection (REDIS_URL)`,
      ]);
      expect(result.stdout, what).toBe('');
    }
  });

  it('fails at once when MongoDB refuses the connection, naming MongoDB, its host and port, and no credentials', async () => {
    const port = await freePort();
    const result = await memfade(
      {
        REDIS_URL: inject('redisUrl'),
        MONGODB_URI: `mongodb://memfade:${PASSWORD}@127.0.0.1:${port}/memfade`,
        CONNECT_TIMEOUT_MS: String(NEVER),
      },
      'status',
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `memfade: MongoDB at 127.0.0.1:${port} refused the connection (MONGODB_URI)`,
    ]);
    expect(result.stderr).not.toContain('c0nnect');
  });

  it('MongoDB resetting the connection after the connect, at the index creation: one line naming MongoDB, its host and port', async () => {
    // simulate --seed 14123: a worker started while MongoDB went away exited 2 saying "write ECONNRESET".
    const port = await resetAtIndexes();
    const result = await memfade(
      {
        REDIS_URL: inject('redisUrl'),
        MONGODB_URI: `mongodb://127.0.0.1:${port}`,
        CONNECT_TIMEOUT_MS: '5000',
      },
      'status',
    );
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^memfade: MongoDB at 127\\.0\\.0\\.1:${port} could not be reached \\(MONGODB_URI\\): \\S`),
    );
  });

  it('a black-holed Redis: after CONNECT_TIMEOUT_MS, "did not answer", never "max retries" nor "Connection is closed"', async () => {
    const port = await blackHole();
    const redisUrl = `redis://127.0.0.1:${port}`;
    const [status, doctor] = await Promise.all([
      // Past two of ioredis's own connect timeouts (5 s): the old message was then "Reached the max
      // retries per request limit (which is 1)".
      memfade(
        {
          REDIS_URL: redisUrl,
          MONGODB_URI: workerMongoUri(inject('mongoUris')),
          CONNECT_TIMEOUT_MS: '12000',
        },
        'status',
      ),
      memfade(
        { REDIS_URL: redisUrl, MONGODB_URI: workerMongoUri(inject('mongoUris')), CONNECT_TIMEOUT_MS: '1000' },
        'doctor',
      ),
    ]);
    expect(status.code, status.stderr).toBe(2);
    expect(status.stderr.trim().split('\n')).toEqual([
      `memfade: Redis at 127.0.0.1:${port} did not answer within 12000 ms (REDIS_URL, CONNECT_TIMEOUT_MS)`,
    ]);
    // doctor reports it among its findings (exit 1: memfade cannot work), in the same words.
    expect(doctor.code, doctor.stderr).toBe(1);
    const output = doctor.stdout + doctor.stderr;
    expect(output).toContain(
      `Redis at 127.0.0.1:${port} (REDIS_URL): did not answer within 1000 ms (CONNECT_TIMEOUT_MS)`,
    );
    expect(output).not.toMatch(/Connection is closed|max retries/i);
  });

  it('a host that accepts and never answers: Redis and MongoDB say so after CONNECT_TIMEOUT_MS, and doctor does not hang', async () => {
    const port = await silentHost();
    const timeout = { CONNECT_TIMEOUT_MS: '1000' };
    const [redis, mongo, doctor] = await Promise.all([
      memfade(
        {
          REDIS_URL: `redis://127.0.0.1:${port}`,
          MONGODB_URI: workerMongoUri(inject('mongoUris')),
          ...timeout,
        },
        'status',
      ),
      memfade(
        { REDIS_URL: inject('redisUrl'), MONGODB_URI: `mongodb://127.0.0.1:${port}`, ...timeout },
        'status',
      ),
      // The old doctor waited for Redis's answer for ever (ioredis's connect timeout ends at the TCP connection).
      memfade(
        {
          REDIS_URL: `redis://127.0.0.1:${port}`,
          MONGODB_URI: workerMongoUri(inject('mongoUris')),
          ...timeout,
        },
        'doctor',
      ),
    ]);
    expect(redis.code, redis.stderr).toBe(2);
    expect(redis.stderr.trim().split('\n')).toEqual([
      `memfade: Redis at 127.0.0.1:${port} accepted the connection but did not answer within 1000 ms ` +
        '(REDIS_URL, CONNECT_TIMEOUT_MS): is Redis listening there, and does it need TLS (rediss://)?',
    ]);
    expect(mongo.code, mongo.stderr).toBe(2);
    expect(mongo.stderr.trim().split('\n')).toEqual([
      `memfade: MongoDB at 127.0.0.1:${port} did not answer within 1000 ms (MONGODB_URI, CONNECT_TIMEOUT_MS)`,
    ]);
    expect(doctor.code, doctor.stderr).toBe(1);
    expect(doctor.stdout + doctor.stderr).toContain(
      `Redis at 127.0.0.1:${port} (REDIS_URL): accepted the connection but did not answer within 1000 ms`,
    );
  });
});
