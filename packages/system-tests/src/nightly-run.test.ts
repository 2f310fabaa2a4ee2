import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defaultConfig, enqueueRun, type MemfadeConfig, startWorkerRole, waitForRun } from '@memfade/app';
import { costOf, detectLanguage, type Memory, searchableText } from '@memfade/core';
import { countByStage, insertMemories } from '@memfade/db';
import { parseMemoryBank } from '@memfade/samples';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, startReplica } from './harness.js';

const DATA = fileURLToPath(new URL('../../../../shared/data/memorybank/', import.meta.url));
const NOW = new Date('2023-05-07T03:00:00Z');
const DAY = 86_400_000;

/** What each memory's stage must be, by plain date arithmetic (independent of the stage policy code). */
function expectedStage(createdAt: Date): 'raw' | 'v1' | 'v2' {
  const days = Math.floor((NOW.getTime() - createdAt.getTime()) / DAY);
  return days >= 7 ? 'v2' : days >= 3 ? 'v1' : 'raw';
}

const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

function providerConfig(provider: string, emulator: LlmEmulator): MemfadeConfig['provider'] {
  const settings = { apiKey: 'sk-test-key', model: 'emulated-model', timeoutMs: 10_000, maxTokens: 2_000 };
  if (provider === 'anthropic') return { provider: 'anthropic', ...settings, baseURL: emulator.url };
  if (provider === 'openai')
    return { provider: 'openai', ...settings, baseURL: `${emulator.url}/v1`, responseFormat: 'json_schema' };
  return { provider: 'offline' };
}

// Batch mode (README "Batch mode") must give the same night: the same stages, the same checks.
describe.each([
  ['offline', 'sync'],
  ['anthropic', 'sync'],
  ['openai', 'sync'],
  ['anthropic', 'batch'],
  ['openai', 'batch'],
] as const)(
  'nightly run over the MemoryBank data (zh + en) through BullMQ workers, provider %s, %s mode',
  (provider, mode) => {
    let harness: Harness;
    let emulator: LlmEmulator;
    let all: Record<string, unknown>[];
    let runId: string;

    beforeAll(async () => {
      emulator = await startLlmEmulator();
      harness = await startHarness({
        now: NOW,
        config: {
          provider: providerConfig(provider, emulator),
          prices: { 'emulated-model': PRICE },
          batch: { ...defaultConfig().batch, mode, pollMs: 100 },
        },
      });
      all = [];
      for (const [file, prefix] of [
        ['memory_bank_cn.json', 'cn'],
        ['memory_bank_en.json', 'en'],
      ] as const) {
        const set = parseMemoryBank(JSON.parse(await readFile(DATA + file, 'utf8')), { idPrefix: prefix });
        await insertMemories(harness.services.models, set.memories, set.roleCards);
        all.push(...set.memories);
      }
      const workers = startWorkerRole(harness.services);
      runId = await enqueueRun(harness.services, {
        runId: 'nightly-2023-05-07',
        trigger: 'schedule',
        asOf: NOW,
      });
      await waitForRun(harness.services, runId, { timeoutMs: 120_000 });
      await workers.close();
    }, 180_000);

    afterAll(async () => {
      await harness?.close();
      await emulator?.close();
    });

    /**
     * Memories the offline compressor's faithfulness gate refused (docs/design.md §11): a stage
     * holding words nobody said is not written, the memory stays a stage short with the reason
     * recorded and its job failed. A model's stages are not checked: none there.
     */
    const refused = async () =>
      (await harness.services.models.memories
        .find({ 'compression.lastError.message': /faithfulness/ })
        .lean()) as unknown as Memory[];

    it('leaves exactly the expected number of memories at raw, V1 and V2', async () => {
      const expected = { raw: 0, v1: 0, v2: 0 };
      for (const doc of all) expected[expectedStage((doc.meta as { createdAt: Date }).createdAt)]++;
      // 30 users x 10 days, less one empty English day: 2 raw, 4 V1 and 4 V2 days per user.
      expect(expected).toEqual({ raw: 59, v1: 120, v2: 120 });
      const short = await refused();
      // At most one in a hundred due memories (the check halves' measure, docs/eval), and only offline.
      expect(short.length).toBeLessThanOrEqual(provider === 'offline' ? 3 : 0);
      for (const doc of short) expected[expectedStage(doc.meta.createdAt)]--;
      for (const doc of short) expected[doc.meta.compressionStage as 'raw' | 'v1']++;
      expect(await countByStage(harness.services.models, {})).toEqual({ ...expected, other: 0 });
    });

    it('records V1 before V2 in the history of every V2 memory, each once', async () => {
      const v2 = await harness.services.models.memories.find({ 'meta.compressionStage': 'v2' }).lean();
      const shortOfV2 = (await refused()).filter((doc) => expectedStage(doc.meta.createdAt) === 'v2');
      expect(v2).toHaveLength(120 - shortOfV2.length);
      for (const doc of v2 as unknown as Memory[]) {
        expect(doc.compression?.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
        expect(doc.compression?.history.every((h) => h.runId === runId)).toBe(true);
      }
    });

    it('compresses Chinese memories to Chinese and English ones to English', async () => {
      const docs = (await harness.services.models.memories
        .find({ 'meta.compressionStage': { $in: ['v1', 'v2'] } })
        .lean()) as unknown as Memory[];
      for (const doc of docs) {
        const language = doc.userId.startsWith('cn-') ? 'zh' : 'en';
        expect(detectLanguage(doc.compression!.v1!.compressedContent), doc.memoryId).toBe(language);
        if (doc.compression?.v2)
          expect(detectLanguage(doc.compression.v2.coreMemory), doc.memoryId).toBe(language);
        expect(doc.compression!.v1!.compressedLength).toBeLessThan(doc.compression!.v1!.originalLength);
      }
    });

    it('holds one vector record per memory with its current searchable text', async () => {
      const { services } = harness;
      expect(await services.vectors.count()).toBe(299);
      const docs = (await services.models.memories.find({}).lean()) as unknown as Memory[];
      const records = new Map(
        (await services.vectors.get(docs.map((d) => d.memoryId))).map((r) => [r.id, r]),
      );
      for (const doc of docs) {
        const record = records.get(doc.memoryId);
        expect(record?.text, doc.memoryId).toBe(searchableText(doc));
        expect(record?.stage).toBe(doc.meta.compressionStage);
      }
      expect(await services.models.memories.countDocuments({ 'vectorSync.pending': true })).toBe(0);
    });

    it('keeps run statistics that add up', async () => {
      const run = await harness.services.runs.get(runId);
      const short = await refused();
      const atRaw = short.filter((doc) => doc.meta.compressionStage === 'raw').length;
      const v2Short = short.filter((doc) => expectedStage(doc.meta.createdAt) === 'v2').length;
      expect(run).toMatchObject({
        users: 30,
        counts: { enqueued: 240, processed: 240, v1: 240 - atRaw, v2: 120 - v2Short, failed: short.length },
      });
      expect(run?.finishedAt).toBeInstanceOf(Date);
      expect(run?.batches?.mode).toBe(provider === 'offline' ? 'sync' : mode);
    });

    it('records the tokens of every call and a cost that matches the price table', async () => {
      const run = (await harness.services.runs.get(runId))!;
      if (provider === 'offline') {
        expect(run.tokens.v1.inputTokens).toBe(0);
        expect(run.cost).toEqual({ v1: 0, v2: 0 });
        return;
      }
      // One call per memory, V1 with its V2 draft (V2_DRAFT=with-v1, docs/design.md §4): no
      // retries or repairs were needed, and each V2 is its draft, paid for with V1.
      expect(emulator.requests).toHaveLength(240);
      expect(run.tokens.v1.inputTokens).toBeGreaterThan(0);
      expect(run.tokens.v1.outputTokens).toBeGreaterThan(0);
      for (const stage of ['v1', 'v2'] as const)
        expect(run.cost[stage]).toBeCloseTo(costOf(run.tokens[stage], PRICE, { batch: mode === 'batch' }), 9);
      const docs = (await harness.services.models.memories
        .find({ 'meta.compressionStage': 'v2' })
        .lean()) as unknown as Memory[];
      for (const doc of docs) expect(doc.compression?.v2?.fromDraft).toBe(true);
    });

    it('adds no job and no transition when the same night runs again, even from two producers at once', async () => {
      const { services } = harness;
      const historyLengths = async () =>
        (await services.models.memories.find({}, { memoryId: 1, 'compression.history': 1 }).lean()).map(
          (d) => `${d.memoryId}:${(d as unknown as Memory).compression?.history.length ?? 0}`,
        );
      const before = await historyLengths();
      const countsBefore = await services.queues.compress.getJobCounts();
      const replica = await startReplica(harness, NOW);
      const workers = [startWorkerRole(services), startWorkerRole(replica)];
      // The same night again, from two schedulers at once, and a manual run beside them.
      await Promise.all([
        enqueueRun(services, { runId, trigger: 'schedule', asOf: NOW }),
        enqueueRun(replica, { runId, trigger: 'schedule', asOf: NOW }),
      ]);
      const manual = await enqueueRun(replica, { runId: 'manual-again', trigger: 'manual', asOf: NOW });
      const rerun = await waitForRun(services, manual, { timeoutMs: 60_000 });
      await Promise.all(workers.map((w) => w.close()));
      await replica.close();
      // Only the memories the faithfulness gate refused are still due, held back by their failed jobs.
      const short = (await refused()).length;
      expect(rerun.counts).toMatchObject({ selected: short, enqueued: 0, heldBack: short });
      expect(await services.queues.compress.getJobCounts()).toEqual(countsBefore);
      expect(await services.queues.nightly.getJobCounts('completed')).toEqual({ completed: 2 });
      expect(await historyLengths()).toEqual(before);
    });
  },
);
