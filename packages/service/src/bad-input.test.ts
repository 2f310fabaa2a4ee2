import { createHash } from 'node:crypto';
import { type Memory, stagePolicy } from '@memfade/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from './demo-data.js';
import { insertMemories, memoryDocument } from './memory-docs.js';
import { startWorkerRole } from './roles.js';
import { enqueueRun, waitForRun } from './run-now.js';
import { type Harness, startHarness } from './test-harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const FIVE_DAYS_AGO = new Date(NOW.getTime() - 5 * 86_400_000);
const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

function bad(memoryId: string, change: (doc: Record<string, any>) => void): Record<string, unknown> {
  const doc = memoryDocument({
    memoryId,
    userId: 'demo-en-2',
    partnerId: 'companion',
    turns: [{ role: 'user', text: 'placeholder' }],
    createdAt: FIVE_DAYS_AGO,
  }) as Record<string, any>;
  change(doc);
  return doc;
}

describe('bad input', () => {
  let harness: Harness;
  let data: ReturnType<typeof generateDemoData>;
  let badDocs: Record<string, unknown>[];
  let runId: string;

  beforeAll(async () => {
    harness = await startHarness({ now: NOW, config: { policy: stagePolicy({ maxInputBytes: 1_000_000 }) } });
    data = generateDemoData({ now: NOW, users: 2 });
    badDocs = [
      bad('bad-no-date', (d) => delete d.meta.createdAt),
      bad('bad-stage', (d) => (d.meta.compressionStage = 'v9')),
      bad('bad-type', (d) => (d.content.raw = 12345)),
      bad('bad-huge', (d) => (d.content.raw = 'x'.repeat(5 * 1024 * 1024))),
    ];
    await insertMemories(harness.services.models, [...data.memories, ...badDocs], data.roleCards);
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    await workers.close();
  }, 120_000);

  afterAll(async () => harness?.close());

  it('fails each bad memory alone, with the field named on the document and in the run', async () => {
    const expected: Record<string, RegExp> = {
      'bad-no-date': /memory bad-no-date: meta\.createdAt: missing or not a date/,
      'bad-stage': /memory bad-stage: meta\.compressionStage: missing or unknown stage/,
      'bad-type': /memory bad-type: content\.raw: expected a string or a list/,
      'bad-huge':
        /memory bad-huge: content\.raw: 5242880 bytes is more than the maximum input size of 1000000 bytes/,
    };
    const run = await harness.services.runs.get(runId);
    expect(run?.counts.failed).toBe(4);
    for (const [memoryId, message] of Object.entries(expected)) {
      const doc = (await harness.services.models.memories.findOne({ memoryId }).lean()) as Record<
        string,
        any
      >;
      const lastError = doc.compression?.lastError ?? doc.memfadeLastError;
      expect(lastError?.message, memoryId).toMatch(message);
      expect(lastError?.stage).toBe('input');
      expect(run?.errors.some((e) => e.memoryId === memoryId && message.test(e.message))).toBe(true);
    }
  });

  it('completes every other memory', async () => {
    const due = data.memories.filter(
      (m) => (m.meta as { createdAt: Date }).createdAt.getTime() <= NOW.getTime() - 3 * 86_400_000,
    );
    const advanced = await harness.services.models.memories.countDocuments({
      memoryId: { $regex: '^demo-' },
      'meta.compressionStage': { $in: ['v1', 'v2'] },
    });
    expect(advanced).toBe(due.length);
  });

  it('leaves the original content of bad memories byte-for-byte unchanged', async () => {
    for (const original of badDocs) {
      const doc = (await harness.services.models.memories
        .findOne({ memoryId: original.memoryId })
        .lean()) as unknown as Memory;
      expect(hash(doc.content), String(original.memoryId)).toBe(hash(original.content));
      expect(doc.compression?.history ?? []).toHaveLength(0);
    }
  });
});
