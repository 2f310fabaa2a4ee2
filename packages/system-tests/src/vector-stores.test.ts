import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { type Memory, searchableText } from '@memfade/core';
import { insertMemories } from '@memfade/db';
import { createLogger } from '@memfade/runtime';
import { generateDemoData } from '@memfade/samples';
import { until } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

// The server stores a fleet uses, chosen by VECTOR_STORE like in production: a whole night through
// the workers, then every memory's record must hold the stage and text the night wrote.
describe.each(['pgvector', 'mongodb'] as const)('a night with VECTOR_STORE=%s', (kind) => {
  let harness: Harness;
  const warnings: string[] = [];

  beforeAll(async () => {
    const logger = createLogger({
      level: 'warn',
      destination: { write: (line: string) => warnings.push(line) } as never,
    });
    harness = await startHarness({ now: NOW, vectorStore: kind, logger });
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    const workers = startWorkerRole(harness.services);
    const runId = await enqueueRun(harness.services, {
      runId: `night-${kind}`,
      trigger: 'schedule',
      asOf: NOW,
    });
    await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    await until(
      async () =>
        (await harness.services.models.memories.countDocuments({ 'vectorSync.pending': true })) === 0,
    );
    await workers.close();
  }, 90_000);
  afterAll(async () => harness?.close());

  it("holds every memory's stage and searchable text, the due ones compressed", async () => {
    const { services } = harness;
    const memories = (await services.models.memories.find().lean()) as unknown as Memory[];
    expect(memories).toHaveLength(22);
    const due = memories.filter((m) => m.meta.compressionStage !== 'raw');
    // 2 users x 11 days: days 3 to 10 are due (the short greetings too, compressed or passed through).
    expect(due.length).toBeGreaterThan(10);
    const records = new Map(
      (await services.vectors.get(memories.map((m) => m.memoryId))).map((r) => [r.id, r]),
    );
    for (const memory of memories) {
      const record = records.get(memory.memoryId);
      expect(record, memory.memoryId).toBeDefined();
      expect(record?.stage, memory.memoryId).toBe(memory.meta.compressionStage);
      expect(record?.text, memory.memoryId).toBe(searchableText(memory));
      expect(record?.rev, memory.memoryId).toBe(memory.rev);
    }
    expect(await services.vectors.count()).toBe(22);
  });

  it('logs the command that creates the MongoDB search index where the server cannot (the wire server)', () => {
    const line = warnings.find((l) => l.includes('vector search index'));
    if (kind === 'pgvector') expect(line).toBeUndefined();
    else {
      expect(line).toContain('createSearchIndex');
      expect(line).toContain('memfade_vector_index');
    }
  });
});
