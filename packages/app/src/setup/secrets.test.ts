import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Memory } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { createLogger, type EmbeddedProcess, freePort, parseEnv, spawnUntilReady } from '@memfade/runtime';
import {
  type LlmEmulator,
  startLlmEmulator,
  tempDir,
  uniqueName,
  until,
  workerMongoUri,
} from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { enqueueRun } from '../nightly/run-now.js';
import { configFromEnv, type MemfadeConfig } from './config.js';
import { envSchema } from './env-schema.js';
import { startWorkerRole } from './roles.js';
import { createServices } from './services.js';

const NOW = new Date('2026-11-22T03:00:00Z');

// None of these looks like an "sk-..." key or sits in a URL where a pattern would find it: only
// knowing the configured values can keep them out of the output.
const SECRETS = {
  anthropicKey: 'ant-Q7mZ3xR9wK2pL5vN8tY4',
  openaiKey: 'a4f9c2e7b1d84c6f9e5a0b2d7c3e8f1a',
  embeddingKey: 'emb.Zh1pu7Ke9y.S3cr3t42',
  redisPassword: 'r3dis-Pa55-9f8e7d',
  wrongRedisPassword: 'wr0ng-R3dis-Pa55',
  mongoPassword: 'm0ngo-Pa55-1a2b3c',
  proxyPassword: 'pr0xy-Pa55-5e6f7a',
  pgvectorPassword: 'pgv3ct0r-Pa55-8b9c0d',
};
const SECRET_VALUES = Object.values(SECRETS);

// Distinctive text inside the memories: it must never reach an info-level log line.
const MARKERS = ['PRIVATE-MARKER-EN-7731', 'PRIVATE-MARKER-EN-4410', '私密标记甲乙丙', '私密标记丁戊己'];

function memories(prefix: string): Record<string, unknown>[] {
  const en = (marker: string) => [
    {
      role: 'user',
      text: `I finally told my brother about the loan; the code word we agreed on is ${marker}.`,
    },
    {
      role: 'assistant',
      text: 'That sounds like a hard conversation. How did he take it, and how do you feel now?',
    },
    { role: 'user', text: 'He was calm and said we can pay it back by June. I feel lighter than in weeks.' },
  ];
  const zh = (marker: string) => [
    { role: '用户', text: `我终于跟哥哥说了借钱的事，我们约定的暗号是${marker}，他答应帮我保密。` },
    { role: '助手', text: '这一定是一次很不容易的谈话。他是什么反应？你现在感觉怎么样？' },
    { role: '用户', text: '他很平静，说我们六月之前慢慢还清就好。我已经好几个星期没有这么轻松了。' },
  ];
  const turns = [en(MARKERS[0]!), en(MARKERS[1]!), zh(MARKERS[2]!), zh(MARKERS[3]!)];
  return turns.map((t, i) =>
    memoryDocument({
      memoryId: `${prefix}-${i}`,
      userId: i < 2 ? `${prefix}-en` : `${prefix}-zh`,
      partnerId: 'companion',
      turns: t,
      createdAt: new Date(NOW.getTime() - 4 * 86_400_000),
    }),
  );
}

/**
 * A misbehaving API gateway in front of the emulator: it forwards requests, except that it
 * answers the ones it is told to fail with an error body echoing the request's URL and headers
 * (API keys included), as some proxies do. The network edge, like the emulator itself.
 */
interface Gateway {
  url: string;
  fail(api: 'messages' | 'chat' | 'embeddings', status: number, times?: number): void;
  close(): Promise<void>;
}

async function startGateway(target: string): Promise<Gateway> {
  const failures: { api: string; status: number }[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const api = req.url?.endsWith('/messages')
      ? 'messages'
      : req.url?.endsWith('/chat/completions')
        ? 'chat'
        : 'embeddings';
    const at = failures.findIndex((f) => f.api === api);
    if (at >= 0) {
      const { status } = failures.splice(at, 1)[0]!;
      const echo = { method: req.method, url: req.url, headers: req.headers };
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: status === 401 ? 'authentication_error' : 'api_error', request: echo },
        }),
      );
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([name]) => !['host', 'connection', 'content-length'].includes(name),
      ),
    ) as Record<string, string>;
    const response = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(response.status, {
      'content-type': response.headers.get('content-type') ?? 'application/json',
    });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fail: (api, status, times = 1) => {
      for (let i = 0; i < times; i++) failures.push({ api, status });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

function expectNoSecret(text: string, where: string): void {
  for (const secret of SECRET_VALUES) expect(text, `${where} carries a secret`).not.toContain(secret);
}

describe('secrets and memory text stay out of logs and recorded errors', () => {
  let redis: EmbeddedProcess & { port: number };
  let emulator: LlmEmulator;
  let gateway: Gateway;
  let vectors: Awaited<ReturnType<typeof tempDir>>;

  /** The configuration an operator would set, with every secret, read the way the apps read it. */
  function envConfig(
    provider: 'anthropic' | 'openai',
    overrides: Record<string, string> = {},
  ): MemfadeConfig {
    return configFromEnv(
      parseEnv(envSchema, {
        REDIS_URL: `redis://:${SECRETS.redisPassword}@127.0.0.1:${redis.port}`,
        MONGODB_URI: workerMongoUri(inject('mongoUris')),
        MONGODB_DB: uniqueName('db'),
        MEMFADE_QUEUE_PREFIX: uniqueName('q'),
        MEMFADE_PROVIDER: provider,
        MEMFADE_MODEL: 'emulated-model',
        ANTHROPIC_API_KEY: SECRETS.anthropicKey,
        ANTHROPIC_BASE_URL: gateway.url,
        OPENAI_API_KEY: SECRETS.openaiKey,
        OPENAI_BASE_URL: `${gateway.url}/v1`,
        MEMFADE_EMBEDDER: 'openai',
        EMBEDDING_MODEL: 'emulated-embedding',
        EMBEDDING_API_KEY: SECRETS.embeddingKey,
        EMBEDDING_BASE_URL: `${gateway.url}/v1`,
        EMBEDDING_DIMENSIONS: '16',
        LANCEDB_DIR: vectors.dir,
        VECTOR_SYNC_INTERVAL_MS: '0',
        WORKER_CONCURRENCY: '1',
        MODEL_TIMEOUT_MS: '5000',
        LOG_LEVEL: 'trace',
        ...overrides,
      }),
    );
  }

  beforeAll(async () => {
    const port = await freePort();
    const server = await spawnUntilReady(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'].concat([
        '--requirepass',
        SECRETS.redisPassword,
        '--maxmemory-policy',
        'noeviction',
        '--logfile',
        '',
      ]),
      /Ready to accept connections/,
    );
    redis = { ...server, port };
    emulator = await startLlmEmulator();
    gateway = await startGateway(emulator.url);
    vectors = await tempDir('memfade-lance-');
  });
  afterAll(async () => {
    await gateway?.close();
    await emulator?.close();
    await redis?.stop();
    await vectors?.remove();
  });

  describe.each(['anthropic', 'openai'] as const)(
    'a %s run at trace level with failures injected',
    (provider) => {
      const api = provider === 'anthropic' ? 'messages' : 'chat';
      let lines: string[];
      let recorded: string[];

      beforeAll(async () => {
        const log = capture();
        lines = log.lines;
        const config = envConfig(provider);
        const services = await createServices(config, { logger: log.logger, now: () => NOW });
        const prefix = uniqueName(provider);
        await insertMemories(services.models, memories(prefix), [
          { userId: `${prefix}-en`, name: 'Sam', personality: 'warm', language: 'en' },
          { userId: `${prefix}-zh`, name: '小林', personality: '温和', language: 'zh' },
        ]);
        // One worker at a time: the first call is refused (401), the second fails (500), both with
        // the request headers echoed in the error body; the embeddings call is refused too.
        gateway.fail(api, 401);
        gateway.fail(api, 500);
        gateway.fail('embeddings', 401);
        const workers = startWorkerRole(services);
        const runId = await enqueueRun(services, { trigger: 'manual', asOf: NOW });
        // The 500's retry waits for BullMQ's backoff: what matters here is what was written by then.
        await until(async () => {
          const counts = await services.queues.compress.getJobCounts('completed', 'failed', 'delayed');
          return counts.completed === 2 && counts.failed === 1 && counts.delayed === 1;
        });
        await services.vectorSync.drain().catch((err) => log.logger.error({ err }, 'vector sync failed'));
        await workers.close();
        const docs = (await services.models.memories.find({}).lean()) as unknown as Memory[];
        const runErrors = await services.models.runErrors.find({ runId }).lean();
        recorded = [
          ...docs.map((d) => JSON.stringify(d.compression?.lastError ?? null)),
          ...runErrors.map((e) => JSON.stringify(e)),
          ...(await services.queues.compress.getJobs(['failed', 'delayed'])).map((j) =>
            JSON.stringify({ reason: j.failedReason, stack: j.stacktrace }),
          ),
        ];
        await services.close();
      });

      it('logs the failures (so the test sees the error paths), at trace level', () => {
        const text = lines.join('');
        expect(lines.some((l) => JSON.parse(l).level === 10 || JSON.parse(l).level === 20)).toBe(true);
        expect(text).toContain('request refused (401)');
        expect(text).toContain('"status":500');
        expect(text).toContain('vector sync failed');
      });

      it('writes no API key, password or authorization value anywhere in the log', () => {
        expectNoSecret(lines.join(''), 'the log');
        expect(lines.join('')).not.toMatch(/Bearer [^*\s"]/);
      });

      it("records the refusal on the memory, in the run's errors and on the job without a secret", () => {
        expect(recorded.join('\n')).toMatch(/request refused \(401\)/);
        expectNoSecret(recorded.join('\n'), 'a recorded error');
      });

      it('keeps memory text out of every line at info level and above', () => {
        const info = lines.filter((l) => JSON.parse(l).level >= 30);
        expect(info.length).toBeGreaterThan(0);
        for (const marker of MARKERS) expect(info.join('')).not.toContain(marker);
      });
    },
  );

  it('keeps secrets out of connection errors: a Redis with the wrong password, a MongoDB URI and a provider URL with credentials', async () => {
    const log = capture();
    const failures: unknown[] = [];
    const badRedis = envConfig('anthropic', {
      REDIS_URL: `redis://:${SECRETS.wrongRedisPassword}@127.0.0.1:${redis.port}`,
    });
    failures.push(await createServices(badRedis, { logger: log.logger }).catch((e) => e));
    const badMongo = envConfig('anthropic', {
      MONGODB_URI: workerMongoUri(inject('mongoUris')).replace(
        'mongodb://',
        `mongodb://memfade:${SECRETS.mongoPassword}@`,
      ),
    });
    failures.push(await createServices(badMongo, { logger: log.logger }).catch((e) => e));
    // The SDK's fetch refuses a URL with credentials, quoting it in its error.
    const proxied = envConfig('openai', {
      OPENAI_BASE_URL: `http://proxy:${SECRETS.proxyPassword}@127.0.0.1:${redis.port}/v1`,
    });
    const services = await createServices(proxied, { logger: log.logger });
    failures.push(
      await services.compressor
        .compressV1({
          memoryId: 'm',
          language: 'en',
          personality: '',
          roleCard: { userId: 'u' },
          text: 'x'.repeat(200),
          targetLength: { min: 60, max: 100 },
        })
        .catch((e) => e),
    );
    await services.close();
    for (const error of failures) {
      expect(error).toBeInstanceOf(Error);
      // What an app prints on a start-up failure, what a job records, and what the logger writes.
      const err = error as Error;
      expectNoSecret(`${err.message}\n${err.stack}\n${JSON.stringify(err)}`, err.message);
      log.logger.error({ err }, 'start-up failed');
    }
    expect(logText(log)).toContain('Redis refused the credentials of REDIS_URL: WRONGPASS');
    expectNoSecret(logText(log), 'the log');
  });

  it('keeps secrets out of configuration errors', () => {
    const bad = () =>
      parseEnv(envSchema, {
        REDIS_URL: `redis://:${SECRETS.redisPassword}@127.0.0.1:notaport`,
        MONGODB_URI: `postgres://admin:${SECRETS.mongoPassword}@db/x`,
        MEMFADE_PROVIDER: 'anthropic',
        ANTHROPIC_API_KEY: SECRETS.anthropicKey,
        ANTHROPIC_BASE_URL: `not a url ${SECRETS.anthropicKey}`,
        WORKER_CONCURRENCY: SECRETS.openaiKey,
        PGVECTOR_URL: `mysql://memfade:${SECRETS.pgvectorPassword}@db/x`,
      });
    expect(bad).toThrow(/invalid configuration/);
    const message = (() => {
      try {
        bad();
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/REDIS_URL/);
    expect(message).toMatch(/MONGODB_URI/);
    expect(message).toMatch(/PGVECTOR_URL/);
    expectNoSecret(message, 'the configuration error');
  });
});

const logText = (log: { lines: string[] }) => log.lines.join('');
