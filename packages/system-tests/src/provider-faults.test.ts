import { createHash } from 'node:crypto';
import { enqueueRun, metricsKey, startWorkerRole, waitForRun } from '@memfade/app';
import { type Memory, stagePolicy } from '@memfade/core';
import { insertMemories } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

describe('model faults through the queue (anthropic SDK against the emulator)', () => {
  let harness: Harness;
  let emulator: LlmEmulator;
  let data: ReturnType<typeof generateDemoData>;
  let modelCalls: number;

  beforeEach(async () => {
    emulator = await startLlmEmulator();
    harness = await startHarness({
      now: NOW,
      config: {
        provider: emulatedAnthropic(emulator),
        concurrency: 1,
        // Faults on V2's own call, as a memory edited after V1 still makes it (v2-draft.test.ts
        // has V2 from the draft written with V1).
        policy: stagePolicy({ v2Draft: 'separate' }),
      },
    });
    data = generateDemoData({ now: NOW, users: 1 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    // The demo user's due memories: those of ages 3-10, less the short ones (ages 3 and 7) that
    // need no model, make 6 V1 calls; ages 7-10 add V2 calls for the long ones (8, 9, 10).
    modelCalls = 9;
  });
  afterEach(async () => {
    await harness?.close();
    await emulator?.close();
  });

  async function runNight() {
    const workers = startWorkerRole(harness.services);
    const runId = await enqueueRun(harness.services, { trigger: 'schedule', asOf: NOW });
    const run = await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    await workers.close();
    return run;
  }

  it('pauses on 429 as retry-after says, then finishes without spending an attempt or a storm of calls', async () => {
    emulator.inject({ kind: 'status', status: 429, retryAfterSeconds: 1 });
    const started = Date.now();
    const run = await runNight();
    expect(run.counts.failed).toBe(0);
    expect(emulator.requests).toHaveLength(modelCalls + 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    // The rate-limited job went back to the wait list without spending an attempt.
    const attempts = (await harness.services.queues.compress.getJobs(['completed'])).map(
      (job) => job.attemptsMade,
    );
    expect(attempts.every((n) => n === 1)).toBe(true);
  });

  it('retries a 500 with backoff: one extra call, and the run completes', async () => {
    emulator.inject({ kind: 'status', status: 500 });
    const run = await runNight();
    expect(run.counts.failed).toBe(0);
    expect(emulator.requests).toHaveLength(modelCalls + 1);
    // BullMQ counts every processed attempt: one job needed two, the others one.
    const attempts = (await harness.services.queues.compress.getJobs(['completed'])).map(
      (job) => job.attemptsMade,
    );
    expect(attempts.sort()).toEqual([1, 1, 1, 1, 1, 1, 1, 2]);
  }, 30_000);

  it('records an unrepairable reply on the memory and in the run, original intact, others complete', async () => {
    emulator.inject({ kind: 'wrong-language' }, { kind: 'wrong-language' });
    const before = (await harness.services.models.memories.find({}).lean()) as unknown as Memory[];
    const run = await runNight();
    expect(run.counts.failed).toBe(1);
    // The oldest memory goes first: its V1 failed after the call and its one repair, so its V2
    // call never happened; every other call was made once.
    expect(emulator.requests).toHaveLength(modelCalls - 1 + 1);
    const failed = (await harness.services.models.memories
      .find({ 'compression.lastError': { $exists: true } })
      .lean()) as unknown as Memory[];
    expect(failed).toHaveLength(1);
    expect(failed[0]?.compression?.lastError?.message).toMatch(
      /v1 reply invalid: still after one repair: (coreMemory|compressedContent)/,
    );
    const original = before.find((m) => m.memoryId === failed[0]?.memoryId);
    expect(hash(failed[0]?.content)).toBe(hash(original?.content));
    expect(run.errors[0]?.memoryId).toBe(failed[0]?.memoryId);
  });

  it('fails a refused reply and one truncated again after its retry, each memory alone with its reason; the night goes on', async () => {
    // The oldest memory's V1 reply is refused; the next one's is cut off at max_tokens, twice.
    emulator.inject({ kind: 'refuse' }, { kind: 'truncate' }, { kind: 'truncate' });
    const run = await runNight();
    expect(run.counts.failed).toBe(2);
    const docs = (await harness.services.models.memories.find({}).lean()) as unknown as Memory[];
    const failed = docs.filter((d) => d.compression?.lastError);
    // What `memfade inspect` shows (the memory's last error) and `memfade status` (the run's errors).
    const messages = failed.map((d) => d.compression!.lastError!.message).sort();
    expect(messages).toEqual([
      expect.stringMatching(
        /^memory \S+: v1 reply refused: the model declined \(refusal\); 1 call to anthropic/,
      ),
      expect.stringMatching(
        /^memory \S+: v1 reply truncated: cut off at max_tokens \d+ \(max_tokens\); 2 calls/,
      ),
    ]);
    expect(run.errors.map((e) => e.message).sort()).toEqual(messages);
    // Nothing of either reply was kept: both memories are still raw.
    for (const doc of failed) {
      expect(doc.meta.compressionStage).toBe('raw');
      expect(doc.compression?.v1).toBeUndefined();
    }
    // Every other memory went on; the calls the failures made are paid and counted.
    expect(docs.filter((d) => d.meta.compressionStage !== 'raw').length).toBeGreaterThan(0);
    // The fleet's counters as the dashboard serves them (memfade_model_failures_total), labelled by
    // the job's target stage as memfade_jobs_total is.
    const { redis, config } = harness.services;
    const stored = await redis.hgetall(metricsKey(config.queuePrefix));
    const byReason = (reason: string) =>
      Object.entries(stored)
        .filter(
          ([field]) =>
            field.startsWith('memfade_model_failures_total{') && field.includes(`reason="${reason}"`),
        )
        .reduce((n, [, value]) => n + Number(value), 0);
    expect([byReason('refused'), byReason('truncated'), byReason('invalid')]).toEqual([1, 1, 0]);
  });

  it('a job that wrote V1 and then failed V2 for good: the run counts that V1 and the V2 calls it paid for', async () => {
    // The first V2 call of the night and its repair come back in the wrong language.
    let v2Faults = 0;
    emulator.setRule(({ body }) =>
      body.tool_choice?.name === 'record_v2_memory' && v2Faults++ < 2
        ? { kind: 'wrong-language' }
        : undefined,
    );
    const run = await runNight();
    expect(run.counts.failed).toBe(1);
    const docs = await harness.services.models.memories.collection.find({}).toArray();
    const failed = docs.filter((d) => d.compression?.lastError);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.meta.compressionStage).toBe('v1');
    // Every V1 written tonight counts, the failed memory's too, with its tokens.
    const written = (stage: 'v1' | 'v2') =>
      docs.filter((d) =>
        (d.compression?.history ?? []).some((h: { runId: string; stage: string }) => h.stage === stage),
      );
    const output = (stage: 'v1' | 'v2') =>
      written(stage).reduce((n, d) => n + d.compression[stage].usage.outputTokens, 0);
    expect(run.counts.v1).toBe(written('v1').length);
    expect(run.tokens.v1.outputTokens).toBe(output('v1'));
    // The refused V2 reply and its repair were paid for: V2's tokens are more than the kept stages'.
    expect(run.tokens.v2.outputTokens).toBeGreaterThan(output('v2'));
  });

  it('a job that wrote V1 and then hit a 500 on V2: its retry writes V2, and the run counts both', async () => {
    let v2Faults = 0;
    emulator.setRule(({ body }) =>
      body.tool_choice?.name === 'record_v2_memory' && v2Faults++ < 1
        ? { kind: 'status', status: 500 }
        : undefined,
    );
    const run = await runNight();
    expect(run.counts.failed).toBe(0);
    const docs = await harness.services.models.memories.collection.find({}).toArray();
    const written = (stage: 'v1' | 'v2') =>
      docs.filter((d) => (d.compression?.history ?? []).some((h: { stage: string }) => h.stage === stage));
    expect(written('v2').length).toBeGreaterThan(0);
    expect(run.counts).toMatchObject({ v1: written('v1').length, v2: written('v2').length });
    const output = (stage: 'v1' | 'v2') =>
      written(stage).reduce((n, d) => n + d.compression[stage].usage.outputTokens, 0);
    expect(run.tokens.v1.outputTokens).toBe(output('v1'));
  }, 30_000);
});
