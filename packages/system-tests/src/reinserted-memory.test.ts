import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

/**
 * docs/design.md invariant 3: deterministic job ids make a trigger safe to fire twice, but a
 * finished job of an earlier run must not keep a memory that is due again from the next run. Found
 * by `pnpm simulate --seed 4`: a memory the product deleted and re-inserted under the same id
 * after memfade compressed it stayed raw, with no reason, while the completed job of the night
 * before was still in Redis (BullMQ trims finished jobs only when others finish).
 */
describe('a memory deleted and re-inserted after its night', () => {
  let harness: Harness;
  afterEach(async () => harness?.close());

  it('is compressed again by the next run, counted as that run’s', async () => {
    harness = await startHarness({ now: NOW });
    const { services } = harness;
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(services.models, data.memories, data.roleCards);

    const workers = startWorkerRole(services);
    try {
      const first = await enqueueRun(services, { runId: 'night-1', trigger: 'schedule', asOf: NOW });
      await waitForRun(services, first, { timeoutMs: 60_000 });
      const compressed = (await services.models.memories
        .find({ 'meta.compressionStage': 'v1' })
        .lean()) as unknown as {
        memoryId: string;
      }[];
      expect(compressed.length).toBeGreaterThan(0);
      const target = compressed[0]!.memoryId;
      expect(await services.queues.compress.getJobState(`${target}.v1`)).toBe('completed');

      // The product deletes the memory and puts its own document back: memfade's work on it is gone.
      const original = data.memories.find((m) => m.memoryId === target)!;
      await services.models.memories.deleteOne({ memoryId: target });
      await insertMemories(services.models, [original], []);

      const second = await enqueueRun(services, { runId: 'night-2', trigger: 'manual', asOf: NOW });
      const run = await waitForRun(services, second, { timeoutMs: 60_000 });
      const again = (await services.models.memories.findOne({ memoryId: target }).lean()) as unknown as {
        meta: { compressionStage: string };
      };
      expect(again.meta.compressionStage).not.toBe('raw');
      expect(run.counts.enqueued).toBe(1);
      expect(run.counts.inOtherRuns ?? 0).toBe(0);
      expect((await services.queues.compress.getJob(`${target}.v1`))?.data.runId).toBe('night-2');
    } finally {
      await workers.close();
    }
  }, 120_000);
});
