import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { compressMemory, type Memory, stagePolicy } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { type LlmEmulator, startLlmEmulator, until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

/**
 * docs/design.md invariant 7: the product edits or redacts a memory while its job waits on the model.
 * Nothing computed from the removed text may be written, here or in the vector store, and the
 * memory ends compressed from its new text.
 */
const NOW = new Date('2026-11-22T03:00:00Z');
const SECRET = 'My bank PIN is 4417 and my home address is 12 Quiet Lane.';
const MODEL_MS = 600;

const turns = (secret: boolean) => [
  {
    role: 'user',
    text: `I finally sorted out the paperwork for the new flat today. ${secret ? SECRET : ''} The move is on Saturday and my sister Mia is driving the van from Leeds.`,
  },
  {
    role: 'assistant',
    text: 'That is a big step! Saturday will come fast. Is there anything you still need to pack, or anyone else helping Mia with the heavy boxes?',
  },
  { role: 'user', text: 'Only the books are left. Tom from work promised to help carry the sofa upstairs.' },
];

describe('a memory the product edits or redacts', () => {
  let harness: Harness | undefined;
  let emulator: LlmEmulator | undefined;
  afterEach(async () => {
    await harness?.close();
    await emulator?.close();
  });

  async function setUp(ageDays: number, v2Draft: 'with-v1' | 'separate' = 'with-v1') {
    emulator = await startLlmEmulator();
    emulator.setRule(({ api }) => (api === 'embeddings' ? undefined : { kind: 'slow', delayMs: MODEL_MS }));
    harness = await startHarness({
      now: NOW,
      config: {
        provider: emulatedAnthropic(emulator, { timeoutMs: 10_000 }),
        policy: stagePolicy({ v2Draft }),
      },
    });
    const memory = memoryDocument({
      memoryId: 'redacted',
      userId: 'u1',
      partnerId: 'p1',
      turns: turns(true),
      createdAt: new Date(NOW.getTime() - ageDays * 86_400_000),
      language: 'en',
    });
    await insertMemories(harness.services.models, [memory], [{ userId: 'u1', name: 'Kai' }]);
    return harness.services;
  }

  /** The product's edit: the sentence goes, nothing else on the document changes. */
  const redact = (services: Harness['services']) =>
    services.models.memories.collection.updateOne(
      { memoryId: 'redacted' },
      { $set: { 'content.raw': turns(false) } },
    );

  /** Waits until the emulator has received `n` compression calls, each still waiting for its reply. */
  const modelCalls = (n: number) =>
    until(async () => emulator!.requests.filter((r) => r.api !== 'embeddings').length >= n, 10_000);

  async function finalState(services: Harness['services']) {
    await services.vectorSync.drain();
    const doc = (await services.models.memories.collection.findOne({
      memoryId: 'redacted',
    })) as unknown as Memory & { compression: Record<string, unknown> };
    const [vector] = await services.vectors.get(['redacted']);
    return { doc, vector };
  }

  it('a memory edited after its V1 was written gets V1 again from its new text when it is due for V2', async () => {
    harness = await startHarness({ now: NOW });
    const { services } = harness;
    const created = new Date(NOW.getTime() - 8 * 86_400_000);
    const memory = memoryDocument({
      memoryId: 'redacted',
      userId: 'u1',
      partnerId: 'p1',
      turns: turns(true),
      createdAt: created,
      language: 'en',
    });
    await insertMemories(services.models, [memory], [{ userId: 'u1', name: 'Kai' }]);
    const deps = { ...services, policy: services.config.policy };
    const dayFour = { ...deps, now: () => new Date(created.getTime() + 4 * 86_400_000) };
    expect(await compressMemory('redacted', 'v1', 'night-4', dayFour)).toMatchObject({ kind: 'advanced' });
    expect(JSON.stringify((await services.store.loadMemory('redacted'))?.compression)).toContain('4417');
    await redact(services);
    const outcome = await compressMemory('redacted', 'v2', 'night-8', deps);
    expect(outcome).toMatchObject({ kind: 'advanced', transitions: [{ stage: 'v1' }, { stage: 'v2' }] });
    const { doc, vector } = await finalState(services);
    expect(doc.compression.history.map((h) => [h.stage, h.runId])).toEqual([
      ['v1', 'night-8'],
      ['v2', 'night-8'],
    ]);
    expect(doc.compression.discarded).toEqual([expect.objectContaining({ stage: 'v1', runId: 'night-4' })]);
    expect(JSON.stringify(doc.compression)).not.toMatch(/4417|Quiet Lane/);
    expect(vector?.text).not.toMatch(/4417|Quiet Lane/);
  });

  it('writes no V1 from the old text, and compresses the new text in the same job', async () => {
    const services = await setUp(4);
    const workers = startWorkerRole(services);
    const runId = await enqueueRun(services, { runId: 'redaction-v1', trigger: 'manual', asOf: NOW });
    await modelCalls(1);
    await redact(services);
    const run = await waitForRun(services, runId);
    await workers.close();

    const { doc, vector } = await finalState(services);
    expect(doc.meta.compressionStage).toBe('v1');
    expect(doc.compression.history).toHaveLength(1);
    expect(JSON.stringify(doc.compression)).not.toMatch(/4417|Quiet Lane/);
    expect(doc.compression.v1).toMatchObject({ compressedContent: expect.stringMatching(/Mia/) });
    expect(vector?.stage).toBe('v1');
    expect(vector?.text).not.toMatch(/4417|Quiet Lane/);
    // Two calls paid for, one kept: the run counts one V1 and the tokens of both.
    const calls = emulator!.requests.filter((r) => r.api === 'messages');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.body)).not.toContain('4417');
    const kept = (doc.compression.v1 as { usage: { inputTokens: number } }).usage.inputTokens;
    expect(run.counts).toMatchObject({ v1: 1, failed: 0 });
    expect(run.tokens.v1.inputTokens).toBeGreaterThan(kept);
  });

  it('discards a V1 written from the old text when the edit lands during V2, and redoes both', async () => {
    // V2 as its own call (a memory whose V2 is not its draft), so the edit can land during it.
    const services = await setUp(8, 'separate');
    const workers = startWorkerRole(services);
    const runId = await enqueueRun(services, { runId: 'redaction-v2', trigger: 'manual', asOf: NOW });
    // The first call (V1) is answered and written; the edit lands while the V2 call waits.
    await modelCalls(2);
    await redact(services);
    const run = await waitForRun(services, runId);
    await workers.close();

    const { doc, vector } = await finalState(services);
    expect(doc.meta.compressionStage).toBe('v2');
    expect(doc.compression.history.map((h) => h.stage)).toEqual(['v1', 'v2']);
    // The V1 from the old text is gone; only its (textless) history entry is kept, as discarded.
    expect(doc.compression.discarded).toEqual([expect.objectContaining({ stage: 'v1', runId })]);
    expect(JSON.stringify(doc.compression)).not.toMatch(/4417|Quiet Lane/);
    expect(vector?.stage).toBe('v2');
    expect(vector?.text).not.toMatch(/4417|Quiet Lane/);
    expect(run.counts).toMatchObject({ v1: 1, v2: 1, failed: 0 });
  });
});
