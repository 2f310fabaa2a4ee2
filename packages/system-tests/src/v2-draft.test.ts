import { defaultConfig, enqueueRun, forget, startWorkerRole, waitForRun } from '@memfade/app';
import { type Memory, stagePolicy } from '@memfade/core';
import { insertMemories, memoryDocument, parseMapping } from '@memfade/db';
import { type LlmEmulator, startLlmEmulator, workerMongoUri } from '@memfade/testing';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { turns } from './batch-mode-harness.js';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

/**
 * V2_DRAFT=with-v1 (docs/design.md §4): V1's one call also writes the V2 draft from the raw
 * conversation; on V2's day the draft becomes V2 without a model call while the memory is as V1
 * left it (same rev, same content). Counted on the LLM emulator, through the real Anthropic SDK.
 */

const DAY = 86_400_000;
const START = new Date('2026-11-22T03:00:00Z');

let harness: Harness | undefined;
let emulator: LlmEmulator | undefined;

afterEach(async () => {
  await harness?.close();
  await emulator?.close();
  harness = undefined;
  emulator = undefined;
});

/** A harness whose clock the test moves (`clock.setTime`), its memories `ageDays` old at START. */
async function setUp(
  ages: number[],
  options: {
    v2Draft?: 'with-v1' | 'separate';
    side?: boolean;
    batch?: 'anthropic' | 'openai';
    /** The driver's command monitoring on (wholeReads counts what the night reads). */
    monitor?: boolean;
  } = {},
) {
  emulator = await startLlmEmulator();
  const clock = new Date(START);
  const model = { model: 'emulated', timeoutMs: 10_000, maxTokens: 2_000 };
  harness = await startHarness({
    now: clock,
    config: {
      provider:
        options.batch === 'openai'
          ? {
              provider: 'openai',
              apiKey: 'sk-test',
              baseURL: `${emulator.url}/v1`,
              responseFormat: 'json_schema',
              ...model,
            }
          : emulatedAnthropic(emulator),
      ...(options.batch && {
        batch: { ...defaultConfig().batch, mode: 'batch', minCalls: 1, maxRequests: 5, pollMs: 50, chunk: 4 },
      }),
      policy: stagePolicy({ v2Draft: options.v2Draft ?? 'with-v1' }),
      ...(options.monitor && { mongodbUri: monitored(workerMongoUri(inject('mongoUris'))) }),
      ...(options.side && {
        mapping: parseMapping({
          writes: { collection: 'memfade_side' },
          roleCard: { default: { name: 'Kai' } },
        }),
      }),
    },
  });
  const docs = ages.map((age, i) =>
    memoryDocument({
      memoryId: `m${i}`,
      userId: 'u0',
      partnerId: 'p1',
      turns: turns(i),
      createdAt: new Date(START.getTime() - age * DAY),
      language: 'en',
    }),
  );
  // Side-collection mode: the product's own documents, memfade writes none of them.
  if (options.side) await harness.services.models.memories.collection.insertMany(docs);
  else await insertMemories(harness.services.models, docs, [{ userId: 'u0', name: 'Kai' }]);
  return { services: harness.services, clock };
}

/** One night at the clock's time; the model calls it made, by tool (the call's kind). */
async function night(services: Harness['services'], clock: Date) {
  const before = emulator!.requests.length;
  const worker = startWorkerRole(services);
  try {
    const runId = await enqueueRun(services, { trigger: 'manual', asOf: clock });
    const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
    expect(run.counts.failed).toBe(0);
  } finally {
    await worker.close();
  }
  const calls = emulator!.requests.slice(before).filter((r) => r.api !== 'embeddings');
  return { tools: calls.map((r) => toolOf(r.body)), inBatch: calls.filter((r) => r.batchId).length };
}

function monitored(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set('monitorCommands', 'true');
  return url.toString();
}

/**
 * How many times `work` read each memory's whole document (a find of memory documents without a
 * projection, as a stage is planned and applied from), by memory id. The outbox's and the run
 * books' reads ask for the fields they need and are not counted.
 */
async function wholeReads(services: Harness['services'], work: () => Promise<unknown>) {
  const client = services.mongo.getClient();
  const finds = new Set<number>();
  const reads = new Map<string, number>();
  type Started = { requestId: number; commandName: string; command: Record<string, unknown> };
  type Succeeded = { requestId: number; reply: { cursor?: { firstBatch?: { memoryId?: string }[] } } };
  const onStarted = (e: Started) => {
    if (e.commandName === 'find' && e.command.find === 'memories' && !e.command.projection)
      finds.add(e.requestId);
  };
  const onSucceeded = (e: Succeeded) => {
    if (!finds.delete(e.requestId)) return;
    for (const doc of e.reply.cursor?.firstBatch ?? [])
      reads.set(String(doc.memoryId), (reads.get(String(doc.memoryId)) ?? 0) + 1);
  };
  client.on('commandStarted', onStarted);
  client.on('commandSucceeded', onSucceeded);
  try {
    await work();
  } finally {
    client.off('commandStarted', onStarted);
    client.off('commandSucceeded', onSucceeded);
  }
  return Object.fromEntries([...reads].sort());
}

/** The tool (Anthropic) or response format (OpenAI) a model request names: the call's kind. */
function toolOf(body: Record<string, unknown>): string {
  const choice = body.tool_choice as { name?: string } | undefined;
  const format = body.response_format as { json_schema?: { name?: string } } | undefined;
  return choice?.name ?? format?.json_schema?.name ?? '?';
}

/** Memories as the pipeline reads them (memfade's fields at their default paths). */
async function load(services: Harness['services'], id: string): Promise<Memory> {
  return (await services.models.memories.findOne({ memoryId: id }).lean()) as unknown as Memory;
}

describe('V2_DRAFT=with-v1: V1 and V2 from one model call', () => {
  it('day 3 writes V1 and the draft in one call; day 7 makes V2 of it with no call; a memory V2-old on its first night gets both from one call', async () => {
    const { services, clock } = await setUp([4, 4, 9]);
    const first = await night(services, clock);
    // One call per memory, each V1 with its draft; the 9-day-old memory's V2 is its draft.
    expect(first.tools).toEqual(Array(3).fill('record_v1_and_v2_memory'));
    for (const id of ['m0', 'm1']) {
      const m = await load(services, id);
      expect(m.meta.compressionStage).toBe('v1');
      expect(m.compression?.v2Draft?.coreMemory.length).toBeGreaterThan(0);
      expect(m.compression?.v2Draft?.rev).toBe(m.rev);
      // The product reads V1: the draft is not its searchable text.
      expect(m.vectorSync?.stage).toBe('v1');
    }
    const old = await load(services, 'm2');
    expect(old.compression?.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
    expect(old.compression?.v2).toMatchObject({
      fromDraft: true,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(old.compression?.v2Draft).toBeUndefined();
    // V2 is shorter than V1 (docs/design.md §4).
    expect(old.compression!.v2!.compressedLength).toBeLessThan(old.compression!.v1!.compressedLength);

    // m1: memfade wrote it since V1 (its rev moved): its draft is not trusted, V2 is a call.
    await services.store.recordError('m1', { stage: 'v2', message: 'test', at: clock, attempts: 1 });
    clock.setTime(START.getTime() + 4 * DAY);
    const second = await night(services, clock);
    expect(second.tools).toEqual(['record_v2_memory']);
    const promoted = await load(services, 'm0');
    expect(promoted.meta.compressionStage).toBe('v2');
    expect(promoted.compression?.v2?.fromDraft).toBe(true);
    expect(promoted.compression?.v2Draft).toBeUndefined();
    const called = await load(services, 'm1');
    expect(called.meta.compressionStage).toBe('v2');
    expect(called.compression?.v2?.fromDraft).toBeUndefined();
    expect(called.compression?.v2?.usage.outputTokens).toBeGreaterThan(0);
  }, 120_000);

  it('a memory the product edited after V1 is compressed again from its new text: the old draft is never made V2', async () => {
    const { services, clock } = await setUp([4]);
    await night(services, clock);
    const oldDraft = (await load(services, 'm0')).compression!.v2Draft!;
    // The product rewrites the conversation (a redaction): every turn now says something else.
    const edited = [
      { role: 'user', text: 'I adopted a grey cat called Pepper from the shelter in Bristol on Monday.' },
      { role: 'assistant', text: 'Pepper! What a lovely name. How is she settling in at home so far?' },
      {
        role: 'user',
        text: 'She hides under the bed, but she ate her dinner. The vet visit is on Friday at 5.',
      },
    ];
    await services.models.memories.collection.updateOne(
      { memoryId: 'm0' },
      { $set: { 'content.raw': edited } },
    );
    clock.setTime(START.getTime() + 4 * DAY);
    const second = await night(services, clock);
    // Its stages are discarded; one call writes V1 and a new draft, which is its V2.
    expect(second.tools).toEqual(['record_v1_and_v2_memory']);
    const m = await load(services, 'm0');
    expect(m.meta.compressionStage).toBe('v2');
    expect(m.compression?.v2?.coreMemory).not.toBe(oldDraft.coreMemory);
    expect(m.compression?.v2?.coreMemory).toMatch(/Pepper|Bristol|vet/);
  }, 120_000);

  it('V2_DRAFT=separate: V1 and V2 are two calls, and no draft is stored', async () => {
    const { services, clock } = await setUp([9], { v2Draft: 'separate' });
    const first = await night(services, clock);
    expect(first.tools).toEqual(['record_v1_memory', 'record_v2_memory']);
    const m = await load(services, 'm0');
    expect(m.compression?.v2Draft).toBeUndefined();
    expect(m.compression?.v2?.fromDraft).toBeUndefined();
  }, 120_000);

  it('forget removes the draft with the stages', async () => {
    const { services, clock } = await setUp([4, 4]);
    await night(services, clock);
    expect((await load(services, 'm0')).compression?.v2Draft).toBeDefined();
    const deps = {
      models: services.models,
      store: services.vectors,
      memories: services.store,
      policy: harness!.config.policy,
      now: () => clock,
    };
    const report = await forget(deps, { memoryId: 'm0' }, { dryRun: false });
    expect(report.failures).toEqual([]);
    const m = await services.models.memories.collection.findOne({ memoryId: 'm0' });
    expect(m?.compression).toBeUndefined();
    expect(JSON.stringify(m)).not.toContain('v2Draft');
    // The other memory keeps its draft.
    expect((await load(services, 'm1')).compression?.v2Draft).toBeDefined();
  }, 120_000);

  it('side-collection mode: the draft is in the side document, and the sweep removes it once the product deletes the memory', async () => {
    const { services, clock } = await setUp([4, 4], { side: true });
    await night(services, clock);
    const side = await services.models.mine.collection.findOne({ _id: 'm0' } as never);
    expect((side?.compression as Memory['compression'])?.v2Draft?.coreMemory.length).toBeGreaterThan(0);
    // The product's document is not written: no draft there.
    const product = await services.models.memories.collection.findOne({ memoryId: 'm0' });
    expect(JSON.stringify(product)).not.toContain('v2Draft');
    expect(product?.compression).toEqual({ history: [] });
    await services.models.memories.collection.deleteOne({ memoryId: 'm0' });
    const swept = await services.vectorSync.sweepAll();
    expect(swept.orphans).toBe(1);
    expect(await services.models.mine.collection.findOne({ _id: 'm0' } as never)).toBeNull();
    expect(await services.models.mine.collection.findOne({ _id: 'm1' } as never)).not.toBeNull();
  }, 120_000);
});

describe.each(['anthropic', 'openai'] as const)('V2_DRAFT=with-v1 in batch mode (%s)', (provider) => {
  it('round 0 sends one pair request per memory; V2 from the draft needs no request, that night or on V2 day', async () => {
    const { services, clock } = await setUp([4, 4, 4, 9, 9], { batch: provider });
    const first = await night(services, clock);
    expect(first.tools).toEqual(Array(5).fill('record_v1_and_v2_memory'));
    expect(first.inBatch).toBe(5);
    for (const id of ['m3', 'm4']) {
      const m = await load(services, id);
      expect(m.compression?.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
      expect(m.compression?.v2?.fromDraft).toBe(true);
    }
    expect((await load(services, 'm0')).compression?.v2Draft?.coreMemory.length).toBeGreaterThan(0);
    // m2: memfade wrote it since V1: its V2 is a request again.
    await services.store.recordError('m2', { stage: 'v2', message: 'test', at: clock, attempts: 1 });
    clock.setTime(START.getTime() + 4 * DAY);
    const second = await night(services, clock);
    expect(second.tools).toEqual(['record_v2_memory']);
    for (const id of ['m0', 'm1', 'm2']) expect((await load(services, id)).meta.compressionStage).toBe('v2');
    expect((await load(services, 'm0')).compression?.v2?.fromDraft).toBe(true);
    expect((await load(services, 'm2')).compression?.v2?.fromDraft).toBeUndefined();
  }, 120_000);

  it('each memory is read once to plan its request and once to apply its reply; V2 from the draft once more, by the submit', async () => {
    const { services, clock } = await setUp([4, 4, 9, 9], { batch: provider, monitor: true });
    // m2, m3: V1 from the reads of their one request, V2 from its draft by the next round's submit
    // (its read writes it: no request, no compress job). Written by the poll that wrote V1, it
    // saved that read, but another poller of the same results could still send V2 to the next
    // round, and a race between the two counted a V1 twice (fault suite, "two replicas polling").
    const first = await wholeReads(services, () => night(services, clock));
    expect(first).toEqual({ m0: 2, m1: 2, m2: 3, m3: 3 });
    for (const id of ['m2', 'm3']) expect((await load(services, id)).compression?.v2?.fromDraft).toBe(true);
    // V2 day of m0, m1: the submit's read finds the draft and writes it as V2 (no request, no job).
    clock.setTime(START.getTime() + 4 * DAY);
    const second = await wholeReads(services, () => night(services, clock));
    expect(second).toEqual({ m0: 1, m1: 1 });
    for (const id of ['m0', 'm1']) {
      const m = await load(services, id);
      expect(m.compression?.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
      expect(m.compression?.v2?.fromDraft).toBe(true);
    }
  }, 120_000);
});
