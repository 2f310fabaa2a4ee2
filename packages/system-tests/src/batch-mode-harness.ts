import {
  batchDeps,
  type MemfadeConfig,
  type NightlyRunDeps,
  processBatchPoll,
  processBatchSubmit,
  processNightlyRun,
  type Services,
} from '@memfade/app';
import { stagePolicy } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { type Harness, startHarness } from './harness.js';

/**
 * What the batch mode tests share (batch-mode-round.test.ts: a night's batch round and its edges;
 * batch-mode-crashes.test.ts: crashes and resumes; batch-mode-memories.test.ts: memories changed or
 * bad while in a batch, and the provider's copies): the emulator and the harness one test starts
 * with setUp (closeBatchMode after each), and the checks on what a run left.
 */
export const NOW = new Date('2026-11-22T03:00:00Z');
export const DAY = 86_400_000;
export const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

export const turns = (i: number, marker = '') => [
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

function providerConfig(
  provider: Provider,
  url: string,
  timeoutMs = 10_000,
  maxTokens = 2_000,
): MemfadeConfig['provider'] {
  const common = { model: 'emulated', timeoutMs, maxTokens };
  return provider === 'anthropic'
    ? { provider, apiKey: 'sk-ant-test', baseURL: url, ...common }
    : { provider, apiKey: 'sk-test', baseURL: `${url}/v1`, responseFormat: 'json_schema', ...common };
}

/** The running test's harness and emulator (setUp starts them, closeBatchMode closes them). */
export let harness: Harness | undefined;
export let emulator: LlmEmulator | undefined;

/** Closes what setUp started: each file's afterEach. */
export async function closeBatchMode(): Promise<void> {
  await harness?.close();
  await emulator?.close();
  harness = undefined;
  emulator = undefined;
}

/**
 * Starts the emulator and the harness (batch mode: 7 requests a batch, results applied 4 at a time)
 * and inserts `memories`, each `ageDays` old, its text holding `marker`.
 */
export async function setUp(
  provider: Provider,
  memories: { id: string; ageDays: number; marker?: string }[],
  batch: Partial<MemfadeConfig['batch']> = {},
  extra: Partial<MemfadeConfig> = {},
  options: { modelTimeoutMs?: number; maxTokens?: number } = {},
) {
  emulator = await startLlmEmulator();
  harness = await startHarness({
    now: NOW,
    config: {
      // Rounds of V1 requests, then of V2 requests, as a memory edited after V1 still makes them
      // (v2-draft.test.ts has V2 from the draft written with V1, in batch mode too).
      policy: stagePolicy({ v2Draft: 'separate' }),
      ...extra,
      provider: providerConfig(provider, emulator.url, options.modelTimeoutMs, options.maxTokens),
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
export async function audit(services: Services, runId: string) {
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
export function faultOnce(marker: string, fault: Parameters<LlmEmulator['inject']>[0]) {
  const seen = new Set<string>();
  return (body: unknown) => {
    const text = JSON.stringify(body);
    const match = /Day (\d+):/.exec(text);
    if (!text.includes(marker) || !match || seen.has(match[1]!)) return undefined;
    seen.add(match[1]!);
    return fault;
  };
}

/** The processors driven one step at a time, as a worker would run them. */
export function steps(services: Services, config: MemfadeConfig) {
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
    batchMode: {
      model,
      batches: services.batches,
      minCalls: config.batch.minCalls,
    },
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

/**
 * The crash between the provider accepting a round's batch and memfade recording its id: the
 * batch record back to `submitting` without an id, its requests back to `prepared`.
 */
export async function loseBatchIds(services: Services, runId: string): Promise<void> {
  await services.models.batches.collection.updateMany(
    { runId },
    { $set: { state: 'submitting' }, $unset: { batchId: '', submittedAt: '' } },
  );
  await services.models.batchRequests.collection.updateMany(
    { runId },
    { $set: { state: 'prepared' }, $unset: { batchId: '' } },
  );
}
