import {
  batchDeps,
  enqueueRun,
  type MemfadeConfig,
  type NightlyRunDeps,
  processBatchPoll,
  processBatchSubmit,
  processNightlyRun,
  type Services,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
import { costOf, type Usage } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { type LlmEmulator, startLlmEmulator, until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * Batch mode through the real SDKs and the emulator's batch APIs (README "Batch mode"): every due
 * memory ends at its stage exactly once, at batch prices, whatever the provider's batches do.
 */
const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

const turns = (i: number, marker = '') => [
  {
    role: 'user',
    text: `Day ${i}: I finally sorted out the paperwork for the new flat. ${marker} The move is on Saturday and my sister Mia is driving the van from Leeds, number ${i}.`,
  },
  {
    role: 'assistant',
    text: 'That is a big step! Saturday will come fast. Is there anything you still need to pack, or anyone else helping Mia with the heavy boxes?',
  },
  { role: 'user', text: `Only the books are left. Tom from work promised to help carry the sofa, box ${i}.` },
];

type Provider = 'anthropic' | 'openai';

function providerConfig(provider: Provider, url: string): MemfadeConfig['provider'] {
  const common = { model: 'emulated', timeoutMs: 10_000, maxTokens: 2_000 };
  return provider === 'anthropic'
    ? { provider, apiKey: 'sk-ant-test', baseURL: url, ...common }
    : { provider, apiKey: 'sk-test', baseURL: `${url}/v1`, responseFormat: 'json_schema', ...common };
}

describe('batch mode', () => {
  let harness: Harness | undefined;
  let emulator: LlmEmulator | undefined;
  afterEach(async () => {
    await harness?.close();
    await emulator?.close();
    harness = undefined;
  });

  async function setUp(
    provider: Provider,
    memories: { id: string; ageDays: number; marker?: string }[],
    batch: Partial<MemfadeConfig['batch']> = {},
    extra: Partial<MemfadeConfig> = {},
  ) {
    emulator = await startLlmEmulator();
    harness = await startHarness({
      now: NOW,
      config: {
        ...extra,
        provider: providerConfig(provider, emulator.url),
        prices: { emulated: PRICE },
        batch: {
          mode: 'batch',
          minCalls: 10,
          maxRequests: 7,
          pollMs: 50,
          deadlineMs: 23 * 3_600_000,
          afterDeadline: 'sync',
          maxRounds: 3,
          // Chunks smaller than a batch: every test crosses their boundaries.
          chunk: 4,
          maxResumes: 5,
          // Most tests look at the batches after the night; one test keeps the default (deleted).
          deleteFiles: false,
          ...batch,
        },
      },
    });
    const docs = memories.map((m, i) =>
      memoryDocument({
        memoryId: m.id,
        userId: `u${i % 4}`,
        partnerId: 'p1',
        turns: turns(i, m.marker),
        createdAt: new Date(NOW.getTime() - m.ageDays * DAY),
        language: 'en',
      }),
    );
    const cards = [0, 1, 2, 3].map((u) => ({ userId: `u${u}`, name: `Kai${u}` }));
    await insertMemories(harness.services.models, docs, cards);
    return harness.services;
  }

  /** Each memory's history entries of one run, by stage: exactly one per stage it reached. */
  async function audit(services: Services, runId: string) {
    const docs = await services.models.memories.collection.find({}).toArray();
    return Object.fromEntries(
      docs.map((d) => {
        const history = (d.compression?.history ?? []) as { stage: string; runId: string }[];
        const mine = history.filter((h) => h.runId === runId).map((h) => h.stage);
        return [d.memoryId as string, { stage: d.meta.compressionStage as string, history: mine }];
      }),
    );
  }

  /** Fails the first request of each memory whose text holds `marker` with `fault`, once. */
  function faultOnce(marker: string, fault: Parameters<LlmEmulator['inject']>[0]) {
    const seen = new Set<string>();
    return (body: unknown) => {
      const text = JSON.stringify(body);
      const match = /Day (\d+):/.exec(text);
      if (!text.includes(marker) || !match || seen.has(match[1]!)) return undefined;
      seen.add(match[1]!);
      return fault;
    };
  }

  it.each(['anthropic', 'openai'] as const)(
    'a night of 60 memories through %s batches: split, repaired, retried, V1 then V2, each once at batch prices',
    async (provider) => {
      // 60 memories: 40 due for V1 only, 20 raw ones already V2-old (V1 in round 0, V2 in round 1);
      // one reply breaks the schema (one sync repair call), two requests error (500) once.
      const memories = Array.from({ length: 60 }, (_, i) => ({
        id: `m${String(i).padStart(2, '0')}`,
        ageDays: i < 40 ? 4 : 9,
        marker: i === 5 ? 'SCHEMA' : i === 7 || i === 45 ? 'ERROR' : '',
      }));
      const services = await setUp(provider, memories);
      const schema = faultOnce('SCHEMA', { kind: 'schema' });
      const error = faultOnce('ERROR', { kind: 'status', status: 500 });
      emulator!.setRule(({ api, body }) =>
        api === 'embeddings' ? undefined : (schema(body) ?? error(body)),
      );
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
        const memoriesAfter = await audit(services, runId);
        for (const m of memories) {
          const expected = m.ageDays >= 7 ? ['v1', 'v2'] : ['v1'];
          expect(memoriesAfter[m.id], m.id).toEqual({ stage: expected.at(-1), history: expected });
        }
        expect(run.counts).toMatchObject({ enqueued: 60, processed: 60, v1: 60, v2: 20, failed: 0 });
        expect(run.interrupted).toBeUndefined();
        const batches = emulator!.batches.list();
        // Round 0: 60 V1 requests in batches of at most 7; later rounds: 20 V2 and 2 retries.
        expect(Math.max(...batches.map((b) => b.customIds.length))).toBeLessThanOrEqual(7);
        expect(batches.filter((b) => b.customIds.length > 0).length).toBeGreaterThanOrEqual(9 + 3);
        const inBatches = batches.reduce((n, b) => n + b.customIds.length, 0);
        expect(inBatches).toBe(60 + 20 + 2);
        // The one schema-breaking reply got its one repair call, synchronously.
        const sync = emulator!.requests.filter((r) => r.api !== 'embeddings' && !r.batchId);
        expect(sync).toHaveLength(1);
        expect(run.batches).toMatchObject({
          mode: 'batch',
          submitted: batches.length,
          ended: batches.length,
          requests: { succeeded: 80, errored: 2, applied: 80 },
        });
        expect(run.batches?.firstResultAt).toBeInstanceOf(Date);
        // Batch lines at batch prices; the one repair call, made synchronously, at sync prices: V1's
        // cost is above the batch price of its tokens by at most half the repaired memory's own.
        const atBatch = (u: Usage) => costOf(u, PRICE, { batch: true });
        expect(run.cost.v2).toBeCloseTo(atBatch(run.tokens.v2), 9);
        const [repaired] = await services.models.memories.collection.find({ memoryId: 'm05' }).toArray();
        const repairedUsage = repaired!.compression.v1.usage as Usage;
        expect(run.cost.v1).toBeGreaterThan(atBatch(run.tokens.v1) + 1e-9);
        expect(run.cost.v1).toBeLessThan(atBatch(run.tokens.v1) + atBatch(repairedUsage));
        expect(run.cost.v1).toBeLessThan(costOf(run.tokens.v1, PRICE) * 0.51);
      } finally {
        await worker.close();
      }
    },
    90_000,
  );

  it('a run below BATCH_MIN_CALLS stays sync: compress jobs, no batch', async () => {
    const memories = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories);
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 5, processed: 5, v1: 5 });
      expect(run.batches).toMatchObject({ mode: 'sync' });
      expect(run.batches?.reason).toMatch(/BATCH_MIN_CALLS/);
      expect(emulator!.batches.list()).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it.each([
    ['sync', 6],
    ['batch', 30],
  ] as const)(
    'a night budget reached mid-night (%s): no request past it, the rest stays due, the run says so',
    async (mode, count) => {
      const memories = Array.from({ length: count }, (_, i) => ({ id: `b${i}`, ageDays: 4 }));
      // About a third of the night's estimated tokens (estimateCall: about 900 per memory here).
      const tokens = Math.round(count * 300);
      const services = await setUp('anthropic', memories, {}, { nightBudget: { usd: 0, tokens } });
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
        expect(run.batches?.mode).toBe(mode);
        const requested = emulator!.requests.filter((r) => r.api !== 'embeddings').length;
        expect(requested).toBeGreaterThan(0);
        expect(requested).toBeLessThan(count);
        // Every memory is counted once: compressed, or left due by the budget.
        expect(run.counts).toMatchObject({ enqueued: count, processed: count, v1: requested, failed: 0 });
        expect(run.budget?.overBudget).toBe(count - requested);
        expect(run.budget?.tokens).toBeLessThanOrEqual(tokens);
        expect(run.budget).toMatchObject({ limitTokens: tokens, reachedAt: expect.any(Date) });
        const left = Object.values(await audit(services, runId)).filter((m) => m.stage === 'raw');
        expect(left).toHaveLength(count - requested);
      } finally {
        await worker.close();
      }
    },
  );

  it('BATCH_DELETE_FILES (the default): once a batch is applied the provider holds none of its text', async () => {
    const memories = Array.from({ length: 20 }, (_, i) => ({ id: `f${i}`, ageDays: 9 }));
    const services = await setUp('openai', memories, { deleteFiles: true });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, await enqueueRun(services, { trigger: 'manual' }), {
        timeoutMs: 60_000,
        pollMs: 50,
      });
      expect(run.counts).toMatchObject({ enqueued: 20, processed: 20, v1: 20, v2: 20 });
      // Two rounds (V1, then V2), each batch's input, output and error files deleted (the run can
      // finish on its last result a moment before its batch's files are deleted).
      await until(
        async () => emulator!.batches.storedText() === '',
        10_000,
        () => 'files left',
      );
      let left: unknown[] = [];
      await until(
        async () => {
          left = await services.models.batches.find({ filesDeletedAt: { $exists: false } }).lean();
          return left.length === 0;
        },
        10_000,
        () => `batches without filesDeletedAt: ${JSON.stringify(left)}`,
      );
      const batches = await services.models.batches.find({}).lean();
      expect(batches.length).toBeGreaterThanOrEqual(4);
      for (const batch of batches) expect(batch.filesDeletedAt, JSON.stringify(batch)).toBeInstanceOf(Date);
    } finally {
      await worker.close();
    }
  });

  /** The processors driven one step at a time, as a worker would run them. */
  function steps(services: Services, config: MemfadeConfig) {
    const model = services.batchCompressor!;
    const deps = batchDeps(services, model);
    // What the processors read of a BullMQ job.
    const job = <J>(data: unknown) =>
      ({
        id: 'test',
        data,
        attemptsMade: 0,
        opts: {},
        updateProgress: async () => undefined,
      }) as unknown as J;
    const producer: NightlyRunDeps = {
      models: services.models,
      runs: services.runs,
      tracker: services.tracker,
      queues: services.queues,
      holds: services.holds,
      policy: config.policy,
      now: services.now,
      batchMode: { model, batches: services.batches, minCalls: config.batch.minCalls },
    };
    return {
      deps,
      produce: (runId: string) =>
        processNightlyRun(
          job<Parameters<typeof processNightlyRun>[0]>({
            runId,
            trigger: 'manual',
            asOf: NOW.toISOString(),
            selection: {},
          }),
          producer,
        ),
      submit: (runId: string, round: number) =>
        processBatchSubmit(job<Parameters<typeof processBatchSubmit>[0]>({ runId, round }), deps),
      poll: (runId: string, round: number) =>
        processBatchPoll(job<Parameters<typeof processBatchPoll>[0]>({ runId, round, poll: 0 }), deps),
    };
  }

  it('a results file cut mid-way is read again and resumed: nothing applied twice', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('cut');
    await submit('cut', 0);
    emulator!.batches.cutNextResults(5);
    await expect(poll('cut', 0)).rejects.toThrow();
    const halfway = await audit(services, 'cut');
    const applied = Object.values(halfway).filter((m) => m.history.length === 1).length;
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(12);
    expect(await poll('cut', 0)).toEqual({ open: 0 });
    for (const m of Object.values(await audit(services, 'cut')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
    expect(emulator!.batches.list()).toHaveLength(1);
    const run = await services.runs.get('cut');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12, noop: 0 });
    expect(run?.batches?.requests).toMatchObject({ succeeded: 12, applied: 12 });
  });

  it('poll jobs all gone with requests left: the tracker resumes the run from its records, and it completes', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `l${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit } = steps(services, harness!.config);
    await produce('lost');
    await submit('lost', 0);
    // The round's poll job is gone for good (stalled past its limit, or lost with Redis's data).
    await services.queues.batch.obliterate({ force: true });
    expect(await services.tracker.sweep()).toEqual([]);
    const resumed = await services.queues.batch.getJob('lost.poll.0.0.r1');
    expect(resumed?.data).toMatchObject({ runId: 'lost', round: 0, resume: 1 });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, 'lost', { timeoutMs: 30_000, pollMs: 50 });
      expect(run.interrupted).toBeUndefined();
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, noop: 0 });
      expect(run.batches).toMatchObject({ resumes: 1, requests: { applied: 10 } });
    } finally {
      await worker.close();
    }
  });

  it('a run whose batch jobs die on every resume gives its requests up after BATCH_MAX_RESUMES: interrupted, counted unprocessed, never no-ops', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `o${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100, maxResumes: 2 });
    const { produce, submit } = steps(services, harness!.config);
    await produce('oom');
    await submit('oom', 0);
    // Each chain of jobs dies before it settles anything (a results file that kills the worker).
    for (const resume of [1, 2]) {
      await services.queues.batch.obliterate({ force: true });
      expect(await services.tracker.sweep()).toEqual([]);
      expect(await services.queues.batch.getJob(`oom.poll.0.0.r${resume}`)).toBeDefined();
    }
    await services.queues.batch.obliterate({ force: true });
    expect(await services.tracker.sweep()).toEqual(['oom']);
    const run = await services.runs.get('oom');
    expect(run?.interrupted).toBe(true);
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 0, unprocessed: 10, noop: 0, v1: 0 });
    expect(run?.batches).toMatchObject({ resumes: 3, givenUp: 10 });
    expect(await services.models.batchRequests.countDocuments({ runId: 'oom', state: 'interrupted' })).toBe(
      10,
    );
    // The run's holds are released: the next night takes the memories.
    expect(await services.models.holds.countDocuments({ runId: 'oom' })).toBe(0);
  });

  it('a memory edited after its request was submitted: the reply is a no-op, the new text is compressed next round', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories);
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('edit');
    await submit('edit', 0);
    const edited = turns(99, 'The product changed this memory.');
    await services.models.memories.collection.updateOne(
      { memoryId: 'e3' },
      { $set: { 'content.raw': edited } },
    );
    await poll('edit', 0);
    const before = await audit(services, 'edit');
    expect(before.e3).toEqual({ stage: 'raw', history: [] });
    expect(before.e4).toEqual({ stage: 'v1', history: ['v1'] });
    await submit('edit', 1);
    await poll('edit', 1);
    const doc = await services.models.memories.collection.findOne({ memoryId: 'e3' });
    expect(doc?.compression.history.map((h: { stage: string }) => h.stage)).toEqual(['v1']);
    // The stage was computed from the edited text (docs/design.md invariant 7): the round-1 request's input.
    const requests = await services.models.batchRequests.collection
      .find({ memoryId: 'e3' })
      .sort({ round: 1 })
      .toArray();
    expect(requests.map((r) => [r.round, r.state])).toEqual([
      [0, 'retried'],
      [1, 'applied'],
    ]);
    expect(requests[1]!.inputHash).not.toBe(requests[0]!.inputHash);
    expect(doc?.compression.v1.sourceHash).toBe(requests[1]!.inputHash);
    const round1 = emulator!.batches.list().at(-1)!;
    expect(round1.customIds).toHaveLength(1);
    const body = JSON.stringify(emulator!.requests.find((r) => r.customId === round1.customIds[0])?.body);
    expect(body).toContain('The product changed this memory.');
    const run = await services.runs.get('edit');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10 });
    // The reply thrown away was paid for: the run counts it beside the stages it kept.
    const docs = await services.models.memories.collection.find({}).toArray();
    const kept = docs.reduce((n, d) => n + d.compression.v1.usage.outputTokens, 0);
    expect(run!.tokens.v1.outputTokens).toBeGreaterThan(kept);
    expect(run!.cost.v1).toBeCloseTo(costOf(run!.tokens.v1, PRICE, { batch: true }), 9);
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: the submit step run again after a crash between recording a batch and recording its id finds the batch: nothing paid or applied twice',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, ageDays: 4 }));
      const services = await setUp(provider, memories, { maxRequests: 100 });
      const { produce, submit, poll } = steps(services, harness!.config);
      await produce('crash');
      await submit('crash', 0);
      expect(emulator!.batches.list()).toHaveLength(1);
      // The crash: the provider accepted the batch, the worker died before recording its id.
      await services.models.batches.collection.updateMany(
        { runId: 'crash' },
        { $set: { state: 'submitting' }, $unset: { batchId: '', submittedAt: '' } },
      );
      await services.models.batchRequests.collection.updateMany(
        { runId: 'crash' },
        { $set: { state: 'prepared' }, $unset: { batchId: '' } },
      );
      await submit('crash', 0);
      expect(emulator!.batches.list()).toHaveLength(1);
      await poll('crash', 0);
      for (const m of Object.values(await audit(services, 'crash')))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      const run = await services.runs.get('crash');
      expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10 });
      expect(run?.finishedAt).toBeInstanceOf(Date);
    },
  );

  it('a crash before the provider accepted the batch: the next attempt submits it once', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { deps, produce, submit, poll } = steps(services, harness!.config);
    await produce('early');
    // The first attempt dies inside submit(): the batch is recorded, the provider never saw it.
    const realSubmit = deps.model.submit.bind(deps.model);
    deps.model.submit = async () => {
      throw new Error('worker killed');
    };
    await expect(submit('early', 0)).rejects.toThrow('worker killed');
    expect(await services.batches.batches('early', 0)).toMatchObject([{ state: 'submitting' }]);
    deps.model.submit = realSubmit;
    await submit('early', 0);
    expect(emulator!.batches.list()).toHaveLength(1);
    await poll('early', 0);
    for (const m of Object.values(await audit(services, 'early')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
  });

  it('a batch not ended by the deadline is canceled; with BATCH_AFTER_DEADLINE=sync what it left goes to compress jobs', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories, { maxRequests: 100, deadlineMs: 0 });
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, failed: 0 });
      expect(run.batches).toMatchObject({
        mode: 'batch',
        afterDeadline: 'sync',
        requests: { canceled: 10 },
      });
      expect(emulator!.batches.list()).toMatchObject([{ state: 'ended' }]);
      // Each memory compressed once, by its sync compress job.
      for (const m of Object.values(await audit(services, runId)))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      expect(emulator!.requests.filter((r) => !r.batchId && r.api !== 'embeddings')).toHaveLength(10);
    } finally {
      await worker.close();
    }
  });

  it('past the deadline a V2 request goes sync: the run still counts the V1 its batch round applied', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, ageDays: 9 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll, deps } = steps(services, harness!.config);
    await produce('carry');
    await submit('carry', 0);
    await poll('carry', 0);
    // Round 0 wrote V1; round 1's V2 batch does not end before the deadline, which has passed.
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    await submit('carry', 1);
    deps.settings.deadlineMs = 0;
    expect(await poll('carry', 1)).toEqual({ open: 1 });
    expect(await poll('carry', 1)).toEqual({ open: 0 });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, 'carry', { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, v2: 10, failed: 0 });
      for (const m of Object.values(await audit(services, 'carry')))
        expect(m).toEqual({ stage: 'v2', history: ['v1', 'v2'] });
      // V1's tokens are those the batch round recorded on the memories, priced at batch prices.
      const docs = await services.models.memories.collection.find({}).toArray();
      const v1Output = docs.reduce((n, d) => n + (d.compression.v1.usage as Usage).outputTokens, 0);
      expect(v1Output).toBeGreaterThan(0);
      expect(run.tokens.v1.outputTokens).toBe(v1Output);
      expect(run.cost.v1).toBeCloseTo(costOf(run.tokens.v1, PRICE, { batch: true }), 9);
      // V2 went through sync compress jobs, at sync prices.
      expect(run.cost.v2).toBeCloseTo(costOf(run.tokens.v2, PRICE), 9);
    } finally {
      await worker.close();
    }
  });

  it('a reply still broken after its repair fails the memory; the run counts both calls it paid for', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({
      id: `b${i}`,
      ageDays: 4,
      marker: i === 3 ? 'BROKEN' : '',
    }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    emulator!.setRule(({ body }) =>
      JSON.stringify(body).includes('BROKEN') ? { kind: 'schema' } : undefined,
    );
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('broken');
    await submit('broken', 0);
    await poll('broken', 0);
    const run = await services.runs.get('broken');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 9, failed: 1 });
    const docs = await services.models.memories.collection.find({}).toArray();
    const kept = docs.reduce((n, d) => n + (d.compression?.v1?.usage.outputTokens ?? 0), 0);
    // The broken memory's batch line and its sync repair are in the run's tokens, beyond what was kept.
    expect(run!.tokens.v1.outputTokens).toBeGreaterThan(kept);
    expect(run!.cost.v1).toBeGreaterThan(costOf(run!.tokens.v1, PRICE, { batch: true }));
  });

  it('two polls applying the same batch at once count each request once', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('twice');
    await submit('twice', 0);
    await Promise.all([poll('twice', 0), poll('twice', 0), poll('twice', 0)]);
    for (const m of Object.values(await audit(services, 'twice')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
    const run = await services.runs.get('twice');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12, noop: 0 });
    expect(run?.batches?.requests).toEqual({ succeeded: 12, applied: 12 });
  });

  it('with BATCH_AFTER_DEADLINE=next-night a canceled batch leaves its memories due, the run says so', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `w${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, {
      maxRequests: 100,
      deadlineMs: 0,
      afterDeadline: 'next-night',
    });
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('late');
    await submit('late', 0);
    expect(await poll('late', 0)).toEqual({ open: 1 });
    expect(await poll('late', 0)).toEqual({ open: 0 });
    for (const m of Object.values(await audit(services, 'late')))
      expect(m).toEqual({ stage: 'raw', history: [] });
    const run = await services.runs.get('late');
    expect(run?.finishedAt).toBeInstanceOf(Date);
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, noop: 10, v1: 0 });
    expect(run?.batches).toMatchObject({ afterDeadline: 'next-night', requests: { canceled: 10 } });
  });

  it('a refused request fails at once; one that keeps expiring fails after BATCH_MAX_ROUNDS, recorded on the memory', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({
      id: `f${i}`,
      ageDays: 4,
      marker: i === 1 ? 'REFUSE' : i === 2 ? 'EXPIRE' : '',
    }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    emulator!.setRule(({ body }) => {
      const text = JSON.stringify(body);
      if (text.includes('REFUSE')) return { kind: 'status', status: 400 };
      if (text.includes('EXPIRE')) return { kind: 'expired' };
      return undefined;
    });
    const { submit, poll, produce } = steps(services, harness!.config);
    await produce('fail');
    for (const round of [0, 1, 2]) {
      await submit('fail', round);
      await poll('fail', round);
    }
    // Round 0 had all ten, rounds 1 and 2 only the expiring one.
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10, 1, 1]);
    const after = await audit(services, 'fail');
    expect(after.f1).toEqual({ stage: 'raw', history: [] });
    expect(after.f2).toEqual({ stage: 'raw', history: [] });
    const docs = await services.models.memories.collection
      .find({ memoryId: { $in: ['f1', 'f2'] } })
      .toArray();
    expect(docs.map((d) => d.compression.lastError?.message)).toEqual([
      expect.stringMatching(/errored/),
      expect.stringMatching(/expired/),
    ]);
    const run = await services.runs.get('fail');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 8, failed: 2 });
    expect(run?.finishedAt).toBeInstanceOf(Date);
  });

  it('memories needing several chunks or too short for a model go the sync way in a batch run, counted once', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const createdAt = new Date(NOW.getTime() - 4 * DAY);
    const sentence = (i: number) =>
      `On day ${i} we walked along the river and talked about the garden and the old house. `;
    const long = Array.from({ length: 180 }, (_, i) => sentence(i)).join('');
    await insertMemories(
      services.models,
      [
        memoryDocument({
          memoryId: 'short',
          userId: 'u0',
          partnerId: 'p1',
          turns: [{ role: 'user', text: 'Hi.' }],
          createdAt,
          language: 'en',
        }),
        memoryDocument({
          memoryId: 'long',
          userId: 'u0',
          partnerId: 'p1',
          turns: [{ role: 'user', text: long }],
          createdAt,
          language: 'en',
        }),
      ],
      [],
    );
    expect(long.length).toBeGreaterThan(harness!.config.policy.maxChunkChars);
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 14, processed: 14, v1: 14, skipped: 1, failed: 0 });
      for (const m of Object.values(await audit(services, runId)))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([12]);
      // The long memory's chunks, one sync call each; the short one needs no call.
      const sync = emulator!.requests.filter((r) => !r.batchId && r.api !== 'embeddings');
      expect(sync.length).toBeGreaterThanOrEqual(2);
      expect(sync.every((r) => JSON.stringify(r.body).includes('walked along the river'))).toBe(true);
    } finally {
      await worker.close();
    }
  });

  it('a memory that became bad input while its request was in a batch fails with its reason; the poll goes on', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('bad');
    await submit('bad', 0);
    // The product breaks three memories meanwhile: their content is no conversation any more.
    await services.models.memories.collection.updateMany(
      { memoryId: { $in: ['r1', 'r5', 'r9'] } },
      { $set: { 'content.raw': 42 } },
    );
    expect(await poll('bad', 0)).toEqual({ open: 0 });
    const docs = await services.models.memories.collection
      .find({ 'compression.lastError': { $exists: true } })
      .toArray();
    expect(docs.map((d) => [d.memoryId, d.compression.lastError.stage]).sort()).toEqual([
      ['r1', 'input'],
      ['r5', 'input'],
      ['r9', 'input'],
    ]);
    const run = await services.runs.get('bad');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 7, failed: 3 });
  });

  it('a crash between writing a stage and settling its request: the results read again settle it as applied, V2 follows', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `v${i}`, ageDays: 9 }));
    const services = await setUp('openai', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('halfway');
    await submit('halfway', 0);
    await poll('halfway', 0);
    // As if the worker died after v3's V1 was written, before its request was settled and its V2
    // request written, and before the batch was marked applied.
    const v3 = { memoryId: 'v3', runId: 'halfway' };
    await services.models.batchRequests.collection.deleteOne({ ...v3, round: 1 });
    await services.models.batchRequests.collection.updateOne(
      { ...v3, round: 0 },
      { $set: { state: 'submitted' } },
    );
    await services.models.batches.collection.updateOne(
      { runId: 'halfway', round: 0 },
      { $set: { state: 'submitted' } },
    );
    await poll('halfway', 0);
    await submit('halfway', 1);
    await poll('halfway', 1);
    for (const m of Object.values(await audit(services, 'halfway')))
      expect(m).toEqual({ stage: 'v2', history: ['v1', 'v2'] });
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10, 10]);
    const run = await services.runs.get('halfway');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, v2: 10, noop: 0 });
  });
});
