import { defaultConfig, enqueueRun, metricsKey, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;

/**
 * The fleet's counters hear of a batch night what its run counts (runs/metrics.ts): the stages the
 * poll job applied, the replies that failed a memory, the tokens and cost of every paid line.
 */
describe('fleet metrics of a batch night', () => {
  let harness: Harness | undefined;
  let emulator: LlmEmulator | undefined;
  afterAll(async () => {
    await harness?.close();
    await emulator?.close();
  });

  it('counts the stages the batches wrote, the refused reply and the paid tokens as the run does', async () => {
    emulator = await startLlmEmulator();
    harness = await startHarness({
      now: NOW,
      config: {
        provider: {
          provider: 'anthropic',
          apiKey: 'sk-ant-test',
          baseURL: emulator.url,
          model: 'emulated',
          timeoutMs: 10_000,
          maxTokens: 2_000,
        },
        prices: { emulated: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
        batch: { ...defaultConfig().batch, mode: 'batch', minCalls: 2, pollMs: 50 },
      },
    });
    const { services } = harness;
    // 12 memories: 8 due for V1, 4 for V1 then V2; the reply to one of the first 8 is refused.
    const docs = Array.from({ length: 12 }, (_, i) =>
      memoryDocument({
        memoryId: `m${i}`,
        userId: `u${i % 3}`,
        partnerId: 'p1',
        turns: [
          {
            role: 'user',
            text: `${i === 3 ? 'REFUSE ' : ''}Day ${i}: my sister Mia drives the van from Leeds on Saturday.`,
          },
          {
            role: 'assistant',
            text: 'A big step! Is anything left to pack before Saturday, or anyone helping with boxes?',
          },
          { role: 'user', text: `Only the books, box ${i}. Tom from work promised to help carry the sofa.` },
        ],
        createdAt: new Date(NOW.getTime() - (i < 8 ? 4 : 9) * DAY),
        language: 'en',
      }),
    );
    await insertMemories(
      services.models,
      docs,
      [0, 1, 2].map((u) => ({ userId: `u${u}`, name: `Kai${u}` })),
    );
    emulator.setRule(({ api, body }) =>
      api !== 'embeddings' && JSON.stringify(body).includes('REFUSE') ? { kind: 'refuse' } : undefined,
    );
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
      expect(run.batches?.submitted).toBeGreaterThan(0);
      await services.metrics.flush();
      const stored = await services.redis.hgetall(metricsKey(services.config.queuePrefix));
      const value = (field: string) => Number(stored[field] ?? 0);
      const jobs = (stage: string, outcome: string) =>
        value(`memfade_jobs_total{stage="${stage}",outcome="${outcome}"}`);
      expect(run.counts).toMatchObject({ v1: 11, v2: 4, failed: 1 });
      expect({
        v1: jobs('v1', 'completed'),
        v2: jobs('v2', 'completed'),
        failed: jobs('v1', 'failed') + jobs('v2', 'failed'),
      }).toEqual({
        v1: run.counts.v1,
        v2: run.counts.v2,
        failed: run.counts.failed,
      });
      expect(
        value('memfade_model_failures_total{stage="v1",reason="refused"}') +
          value('memfade_model_failures_total{stage="v2",reason="refused"}'),
      ).toBe(1);
      for (const stage of ['v1', 'v2'] as const) {
        expect(value(`memfade_tokens_total{stage="${stage}",kind="input"}`), stage).toBe(
          run.tokens[stage].inputTokens,
        );
        expect(value(`memfade_tokens_total{stage="${stage}",kind="output"}`), stage).toBe(
          run.tokens[stage].outputTokens,
        );
      }
    } finally {
      await worker.close();
    }
  }, 90_000);
});
