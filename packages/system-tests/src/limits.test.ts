import {
  configFromEnv,
  enqueueRun,
  envSchema,
  type MemfadeConfig,
  type Services,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
import {
  type Compressor,
  compressMemory,
  JobTimeoutError,
  type Memory,
  type MemoryStore,
  rawText,
} from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { compressJobId, withJobTimeout } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * The limits that protect the service (README "Configuration"), each set through its environment
 * variable and parsed by the real schema, so a variable that is not wired through fails here too.
 */

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;
const ZH = [
  '今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
  '是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
  '我有点想养狗，不过现在住的地方太小了，等明年搬家以后再认真考虑吧。',
  '晚上和妈妈打电话聊了很久，她说家里的桂花开了，整个院子都是香味。',
];
const EN = [
  'I finally booked the trip to Lisbon for March, just the two of us, after months of talking about it.',
  'We want to walk up to the castle at sunset and eat pastel de nata every single morning.',
  'My sister says the trams are always full, so we will probably walk most of the city anyway.',
  'I am a little nervous about the flight, but mostly I cannot wait to see the ocean again.',
];

/** `n` turns alternating user / assistant, cycling through `lines`. */
const turns = (lines: string[], n: number) =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    text: lines[i % lines.length]!,
  }));

function memory(
  memoryId: string,
  options: { ageDays: number; lines?: string[]; turns?: number; stage?: 'raw' | 'v1'; userId?: string },
): Record<string, unknown> {
  const doc = memoryDocument({
    memoryId,
    userId: options.userId ?? 'u-zh',
    partnerId: 'companion',
    turns: turns(options.lines ?? ZH, options.turns ?? 4),
    createdAt: new Date(NOW.getTime() - options.ageDays * DAY),
  }) as { meta: { compressionStage: string }; vectorSync: { pending: boolean } };
  if (options.stage) doc.meta.compressionStage = options.stage;
  // Already indexed: the vector outbox (its own loop) then writes only after a stage write, so a
  // memory that is unchanged after a job shows that the job wrote nothing.
  doc.vectorSync.pending = false;
  return doc;
}

const ROLE_CARDS = [
  { userId: 'u-zh', personality: '温柔', hobbies: '散步，养狗', language: 'zh' as const },
  { userId: 'u-en', personality: 'curious, warm', hobbies: 'travel', language: 'en' as const },
];

/** The part of the configuration the limits live in, from environment variables as the worker reads them. */
function limitsFromEnv(vars: Record<string, string>): Partial<MemfadeConfig> {
  const config = configFromEnv(envSchema.parse(vars));
  return { policy: config.policy, jobTimeoutMs: config.jobTimeoutMs, runMaxMemories: config.runMaxMemories };
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function setUp(vars: Record<string, string>, docs: Record<string, unknown>[]): Promise<Services> {
  harness = await startHarness({ now: NOW, config: limitsFromEnv(vars) });
  await insertMemories(harness.services.models, docs, ROLE_CARDS);
  return harness.services;
}

const load = async (services: Services, memoryId: string) =>
  (await services.models.memories.findOne({ memoryId }).lean()) as unknown as Memory &
    Record<string, unknown>;

/** A pino logger that keeps its lines, to see what an operator reads in the worker's log. */
function capturedLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const logger = createLogger({
    level: 'warn',
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

describe('MAX_INPUT_BYTES', () => {
  it('fails a memory whose raw content is larger in UTF-8 bytes, and compresses one just under it', async () => {
    // 8 Chinese turns are ~280 characters but ~830 bytes: the limit is on bytes, not characters.
    const over = memory('over', { ageDays: 4, turns: 8 });
    const under = memory('under', { ageDays: 4, turns: 4 });
    const overBytes = Buffer.byteLength(rawText((over.content as Memory['content']).raw), 'utf8');
    const underBytes = Buffer.byteLength(rawText((under.content as Memory['content']).raw), 'utf8');
    expect(underBytes).toBeLessThan(600);
    expect(overBytes).toBeGreaterThan(600);
    const services = await setUp({ MAX_INPUT_BYTES: '600' }, [over, under]);
    const workers = startWorkerRole(services);
    const runId = await enqueueRun(services, { trigger: 'manual', asOf: NOW });
    const run = await waitForRun(services, runId, { timeoutMs: 30_000 });
    await workers.close();

    const message = `memory over: content.raw: ${overBytes} bytes is more than the maximum input size of 600 bytes`;
    expect((await load(services, 'over')).compression?.lastError).toMatchObject({ stage: 'input', message });
    expect((await load(services, 'over')).meta.compressionStage).toBe('raw');
    expect(run.errors.map((e) => e.message)).toEqual([message]);
    expect(run.counts).toMatchObject({ enqueued: 2, failed: 1, v1: 1 });
    expect((await load(services, 'under')).meta.compressionStage).toBe('v1');
  });
});

describe('MAX_CHUNKS', () => {
  it('fails a memory that needs more chunks before any model call, and splits one that fits', async () => {
    const calls: string[] = [];
    const services = await setUp({ MAX_CHUNK_CHARS: '200', MAX_CHUNKS: '2' }, [
      memory('many-chunks', { ageDays: 4, turns: 16 }),
      memory('two-chunks', { ageDays: 4, turns: 5 }),
    ]);
    // Counts model calls per memory: the limit exists so a huge memory costs nothing.
    const counting: Compressor = {
      name: services.compressor.name,
      compressV1: (request) => {
        calls.push(request.memoryId);
        return services.compressor.compressV1(request);
      },
      compressV2: (request) => services.compressor.compressV2(request),
    };
    const workers = startWorkerRole({ ...services, compressor: counting });
    const runId = await enqueueRun(services, { trigger: 'manual', asOf: NOW });
    const run = await waitForRun(services, runId, { timeoutMs: 30_000 });
    await workers.close();

    const failed = await load(services, 'many-chunks');
    expect(failed.compression?.lastError?.message).toMatch(
      /^memory many-chunks: content\.raw: needs \d+ chunks of 200 characters, more than the maximum of 2$/,
    );
    expect(failed.meta.compressionStage).toBe('raw');
    expect(run.errors.map((e) => e.memoryId)).toEqual(['many-chunks']);
    expect(calls.filter((id) => id === 'many-chunks')).toEqual([]);
    const split = await load(services, 'two-chunks');
    expect(split.meta.compressionStage).toBe('v1');
    expect(split.compression?.v1?.chunks).toBe(2);
    expect(calls.filter((id) => id === 'two-chunks')).toHaveLength(2);
  });
});

describe('JOB_TIMEOUT_MS', () => {
  it('fails a job that runs too long as retryable, and the late model reply writes nothing', async () => {
    const services = await setUp({ JOB_TIMEOUT_MS: '300' }, [
      memory('slow', { ageDays: 4 }),
      memory('quick', { ageDays: 4 }),
    ]);
    const before = await load(services, 'slow');
    // A provider that answers after 800 ms and cannot be cancelled: only the deadline guard keeps
    // its late reply from being written.
    const pending = new Set<Promise<unknown>>();
    const slow: Compressor = {
      name: services.compressor.name,
      compressV1: async (request) => {
        if (request.memoryId !== 'slow') return services.compressor.compressV1(request);
        const reply = new Promise((resolve) => setTimeout(resolve, 800)).then(() =>
          services.compressor.compressV1({ ...request, signal: undefined }),
        );
        pending.add(reply);
        return reply;
      },
      compressV2: (request) => services.compressor.compressV2(request),
    };
    const { logger, lines } = capturedLogger();
    const workers = startWorkerRole({ ...services, compressor: slow, logger });
    const runId = await enqueueRun(services, { trigger: 'manual', asOf: NOW });
    const job = () => services.queues.compress.getJob(compressJobId('slow', 'v1'));

    // First attempt: timed out, put back for a retry with backoff (not failed for good).
    await until(
      async () => (await (await job())?.getState()) === 'delayed',
      20_000,
      () => 'the first timeout',
      25,
    );
    const first = (await job())!;
    expect(first.attemptsMade).toBe(1);
    expect(first.failedReason).toBe('memory slow: the v1 job timed out after 300 ms (JOB_TIMEOUT_MS)');
    await Promise.all(pending);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The reply came back after the deadline: the memory is exactly as it was, not even lastError.
    expect(await load(services, 'slow')).toEqual(before);
    expect((await load(services, 'quick')).meta.compressionStage).toBe('v1');

    // The remaining attempts without their backoff delays; the last one records the reason.
    await until(
      async () => {
        const current = await job();
        const state = await current?.getState();
        // Its backoff may end between the read and the promote (a loaded machine): then it is
        // waiting already, which is what the promote was for.
        if (state === 'delayed') await current?.promote().catch(() => undefined);
        return state === 'failed';
      },
      30_000,
      () => 'the last attempt',
      25,
    );
    const run = await waitForRun(services, runId, { timeoutMs: 30_000 });
    await Promise.all(pending);
    await workers.close();

    const message = 'memory slow: the v1 job timed out after 300 ms (JOB_TIMEOUT_MS)';
    const after = await load(services, 'slow');
    expect(after.compression?.lastError).toMatchObject({ stage: 'v1', message, attempts: 5 });
    const { compression, rev, ...rest } = after;
    const { compression: compressionBefore, rev: revBefore, ...restBefore } = before;
    expect({ rest, compression: { ...compression, lastError: undefined }, rev }).toEqual({
      rest: restBefore,
      compression: { ...compressionBefore, lastError: undefined },
      rev: revBefore + 1,
    });
    expect(run.errors.map((e) => e.message)).toEqual([message]);
    expect(run.counts).toMatchObject({ enqueued: 2, failed: 1, v1: 1 });
    // Each attempt is in the worker's log at warn, with the reason.
    const timeouts = lines.filter((l) => l.msg === 'job failed' && JSON.stringify(l).includes(message));
    expect(timeouts).toHaveLength(5);
  });
  it('lets a stage write already on its way settle before reporting the timeout, and starts no other', async () => {
    const services = await setUp({ JOB_TIMEOUT_MS: '2000' }, [memory('in-flight', { ageDays: 8 })]);
    const config = limitsFromEnv({ JOB_TIMEOUT_MS: '2000' });
    // The real store, with a slow round trip on the V1 write: it starts before the deadline (the
    // work before it takes well under 2 s even on a loaded machine) and lands after it.
    const real = services.store;
    let settled = false;
    const slowWrite: MemoryStore = {
      loadMemory: (id) => real.loadMemory(id),
      loadRoleCard: (id) => real.loadRoleCard(id),
      recordError: (id, error) => real.recordError(id, error),
      fieldName: (field) => real.fieldName(field),
      discardStaleStages: (discard) => real.discardStaleStages(discard),
      applyTransition: async (transition) => {
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        const won = await real.applyTransition(transition);
        settled = true;
        return won;
      },
    };
    const deps = {
      store: slowWrite,
      compressor: services.compressor,
      policy: config.policy!,
      now: () => NOW,
    };
    const job = withJobTimeout(config.jobTimeoutMs!, 'memory in-flight: the v1 job', slowWrite, (deadline) =>
      compressMemory('in-flight', 'v1', 'r', { ...deps, ...deadline }),
    );
    await expect(job).rejects.toThrow(JobTimeoutError);
    // When the job reports the timeout, its write has landed: nothing of this attempt comes later.
    expect(settled).toBe(true);
    // V1 was on its way and landed; V2, due as well (8 days old), was never started.
    const doc = await load(services, 'in-flight');
    expect(doc.meta.compressionStage).toBe('v1');
    expect(doc.compression?.history.map((h) => h.stage)).toEqual(['v1']);
  });
});

describe('RUN_MAX_MEMORIES', () => {
  it('enqueues the oldest due memories up to the cap, reports the rest, and the next run takes them', async () => {
    const docs = [
      memory('a-raw-10d', { ageDays: 10 }),
      memory('b-v1-9d', { ageDays: 9, stage: 'v1', userId: 'u-en', lines: EN }),
      memory('c-raw-8d', { ageDays: 8, userId: 'u-en', lines: EN }),
      memory('d-v1-7d', { ageDays: 7, stage: 'v1' }),
      memory('e-raw-4d', { ageDays: 4 }),
      memory('f-raw-3d', { ageDays: 3, userId: 'u-en', lines: EN }),
      memory('young', { ageDays: 1 }),
    ];
    const services = await setUp({ RUN_MAX_MEMORIES: '3' }, docs);
    const { logger, lines } = capturedLogger();
    const workers = startWorkerRole({ ...services, logger });
    const stages = async () =>
      Object.fromEntries(
        (await services.models.memories.find({}).lean()).map((d) => [
          d.memoryId,
          (d as unknown as Memory).meta.compressionStage,
        ]),
      );

    const first = await waitForRun(
      services,
      await enqueueRun(services, { runId: 'first', trigger: 'schedule', asOf: NOW }),
      {
        timeoutMs: 30_000,
      },
    );
    expect(first.counts).toMatchObject({ selected: 6, enqueued: 3, deferred: 3, processed: 3, failed: 0 });
    // Oldest first across both stages: the 9-day-old V1 memory goes before the 4-day-old raw one.
    expect(await stages()).toEqual({
      'a-raw-10d': 'v2',
      'b-v1-9d': 'v2',
      'c-raw-8d': 'v2',
      'd-v1-7d': 'v1',
      'e-raw-4d': 'raw',
      'f-raw-3d': 'raw',
      young: 'raw',
    });
    expect(lines.filter((l) => l.level === 40 && l.runId === 'first').map((l) => l.msg)).toEqual([
      'run first reached RUN_MAX_MEMORIES (3): 3 due memories left for the next run',
    ]);

    const second = await waitForRun(
      services,
      await enqueueRun(services, { runId: 'second', trigger: 'schedule', asOf: NOW }),
      {
        timeoutMs: 30_000,
      },
    );
    await workers.close();
    expect(second.counts).toMatchObject({ selected: 3, enqueued: 3, deferred: 0, processed: 3, failed: 0 });
    expect(await stages()).toEqual({
      'a-raw-10d': 'v2',
      'b-v1-9d': 'v2',
      'c-raw-8d': 'v2',
      'd-v1-7d': 'v2',
      'e-raw-4d': 'v1',
      'f-raw-3d': 'v1',
      young: 'raw',
    });
  });
});
