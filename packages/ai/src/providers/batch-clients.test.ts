import { type CompressionRequest, measureLength } from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildPrompt, type StagePrompt } from '../prompts/build-prompt.js';
import { JSON_SCHEMAS } from '../schemas.js';
import { AnthropicBatchClient } from './anthropic-batch-client.js';
import { AnthropicClient } from './anthropic-client.js';
import {
  type BatchClient,
  type BatchRequest,
  type BatchResult,
  batchCustomId,
  batchRunTag,
} from './batch-client.js';
import type { ModelClient } from './model-client.js';
import { checkTurn } from './model-compressor.js';
import { OpenAIBatchClient } from './openai-batch-client.js';
import { OpenAIClient } from './openai-client.js';

const ZH = [
  'user: 今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
  'assistant: 听起来很治愈！那只小狗是什么颜色的？',
  'user: 是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
  'assistant: 好可爱的名字，你是不是也想养一只？',
  'user: 有点想，不过我现在住的地方太小了，等明年三月搬家以后再说吧。',
].join('\n');
const EN = [
  'user: I finally visited the botanical garden today and the view from the hill was amazing.',
  'assistant: That sounds lovely! What was the best part of the visit?',
  'user: Watching the sunset with Olivia. We brought sandwiches and stayed until it got dark.',
  'assistant: What a nice way to spend the evening. Did you take any photos?',
].join('\n');

function compression(text: string, language: 'zh' | 'en', memoryId: string): CompressionRequest {
  const length = measureLength(text);
  return {
    memoryId,
    language,
    personality: language === 'zh' ? '性格: 温柔细腻' : 'Personality: warm and curious',
    roleCard: { userId: 'u1' },
    text,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
  };
}

const LABEL = { runId: 'nightly-2026-11-23', round: 0 };

/** `n` V1 requests, alternating zh and en, with custom ids made for LABEL. */
function requests(
  n: number,
  label = LABEL,
): (BatchRequest & { source: CompressionRequest; prompt: StagePrompt })[] {
  return Array.from({ length: n }, (_, i) => {
    const source =
      i % 2
        ? compression(`${EN}\nuser: note ${i}.`, 'en', `m${i}`)
        : compression(`${ZH}\nuser: 第${i}条。`, 'zh', `m${i}`);
    return {
      customId: batchCustomId(label, `r${i}`),
      prompt: buildPrompt('v1', source),
      schema: JSON_SCHEMAS.v1,
      source,
    };
  });
}

async function collect(results: AsyncIterable<BatchResult>): Promise<BatchResult[]> {
  const out: BatchResult[] = [];
  for await (const result of results) out.push(result);
  return out;
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => {
  emulator.requests.length = 0;
  emulator.batches.processingMs = 0;
  emulator.batches.shuffle = true;
  emulator.setRule(undefined);
});

interface Provider {
  batch: (url: string) => BatchClient;
  sync: (url: string) => ModelClient;
}
const PROVIDERS: Record<'anthropic' | 'openai', Provider> = {
  anthropic: {
    batch: (url) =>
      new AnthropicBatchClient({
        apiKey: 'sk-ant-test',
        model: 'claude-test',
        baseURL: url,
        timeoutMs: 5_000,
        maxTokens: 2_000,
      }),
    sync: (url) =>
      new AnthropicClient({
        apiKey: 'sk-ant-test',
        model: 'claude-test',
        baseURL: url,
        timeoutMs: 5_000,
        maxTokens: 2_000,
      }),
  },
  openai: {
    batch: (url) =>
      new OpenAIBatchClient({
        apiKey: 'sk-test',
        model: 'gpt-test',
        baseURL: `${url}/v1`,
        timeoutMs: 5_000,
        maxTokens: 2_000,
        responseFormat: 'json_schema',
      }),
    sync: (url) =>
      new OpenAIClient({
        apiKey: 'sk-test',
        model: 'gpt-test',
        baseURL: `${url}/v1`,
        timeoutMs: 5_000,
        maxTokens: 2_000,
        responseFormat: 'json_schema',
      }),
  },
};

describe.each(Object.keys(PROVIDERS) as ('anthropic' | 'openai')[])(
  '%s batch client through its real SDK',
  (name) => {
    const client = () => PROVIDERS[name].batch(emulator.url);

    it('submits, reports the batch ended with every request succeeded, and yields replies that pass the sync checks', async () => {
      const sent = requests(4);
      const { batchId, submittedAt } = await client().submit(sent, LABEL);
      expect(submittedAt).toBeInstanceOf(Date);
      const status = await client().status(batchId);
      expect(status.state).toBe('ended');
      expect(status.counts).toEqual({ processing: 0, succeeded: 4, errored: 0, canceled: 0, expired: 0 });
      expect(status.endedAt).toBeInstanceOf(Date);
      const results = await collect(client().results(batchId));
      expect(results.map((r) => r.customId).sort()).toEqual(sent.map((r) => r.customId).sort());
      for (const result of results) {
        expect(result.outcome).toBe('succeeded');
        if (result.outcome !== 'succeeded') continue;
        const request = sent.find((r) => r.customId === result.customId)!;
        const checked = checkTurn('v1', result.turn, request.source);
        expect(checked.fatal).toEqual([]);
        expect(result.turn.usage.outputTokens).toBeGreaterThan(0);
      }
      expect(emulator.requests.every((r) => r.batchId === batchId)).toBe(true);
    });

    it('sends each request with exactly the body of the sync call for the same prompt, repair turn included', async () => {
      const [plain, withRepair] = requests(2);
      const repaired = {
        ...withRepair!,
        repair: { previous: '{"compressedContent":""}', feedback: 'too short' },
      };
      await client().submit([plain!, repaired], LABEL);
      const batchBodies = emulator.requests.map((r) => r.body);
      emulator.requests.length = 0;
      const sync = PROVIDERS[name].sync(emulator.url);
      await sync.complete(plain!.prompt, plain!.schema);
      await sync.complete(repaired.prompt, repaired.schema, repaired.repair);
      expect(emulator.requests.map((r) => r.body)).toEqual(batchBodies);
      expect(batchBodies[1].messages.at(-1)).toEqual({ role: 'user', content: 'too short' });
    });

    it('reports the same usage, cache reads and writes included, as sync calls of the same requests', async () => {
      const sent = requests(3).map((r) => ({
        ...r,
        prompt: { ...r.prompt, personality: 'Personality: same role card' },
      }));
      const fresh = await startLlmEmulator();
      try {
        const sync = PROVIDERS[name].sync(fresh.url);
        const syncUsage = [];
        for (const r of sent) syncUsage.push((await sync.complete(r.prompt, r.schema)).usage);
        const other = await startLlmEmulator();
        try {
          const batch = PROVIDERS[name].batch(other.url);
          const { batchId } = await batch.submit(sent, LABEL);
          const results = await collect(batch.results(batchId));
          const batchUsage = sent.map((r) => {
            const result = results.find((x) => x.customId === r.customId);
            return result?.outcome === 'succeeded' ? result.turn.usage : undefined;
          });
          expect(batchUsage).toEqual(syncUsage);
          // Requests 0 and 2 are Chinese: the same instructions and role card, the second a cache hit.
          expect(syncUsage[2]!.cacheReadTokens).toBeGreaterThan(0);
          if (name === 'anthropic') expect(syncUsage[0]!.cacheWriteTokens).toBeGreaterThan(0);
        } finally {
          await other.close();
        }
      } finally {
        await fresh.close();
      }
    });

    it('yields errored, expired and canceled requests with their retryable flags, and a schema-breaking reply as succeeded', async () => {
      emulator.inject(
        { kind: 'status', status: 500 },
        { kind: 'expired' },
        { kind: 'canceled' },
        { kind: 'status', status: 400 },
        { kind: 'schema' },
      );
      const sent = requests(6);
      const { batchId } = await client().submit(sent, LABEL);
      const status = await client().status(batchId);
      expect(status.state).toBe('ended');
      expect(status.counts.succeeded).toBe(2);
      const byId = new Map((await collect(client().results(batchId))).map((r) => [r.customId, r]));
      const outcome = (i: number) => {
        const r = byId.get(sent[i]!.customId)!;
        return r.outcome === 'succeeded'
          ? { outcome: r.outcome }
          : { outcome: r.outcome, retryable: r.retryable };
      };
      expect([0, 1, 2, 3, 4, 5].map(outcome)).toEqual([
        { outcome: 'errored', retryable: true },
        { outcome: 'expired', retryable: true },
        { outcome: 'canceled', retryable: true },
        { outcome: 'errored', retryable: false },
        { outcome: 'succeeded' },
        { outcome: 'succeeded' },
      ]);
      const broken = byId.get(sent[4]!.customId)!;
      if (broken.outcome !== 'succeeded') throw new Error('expected a reply');
      expect(checkTurn('v1', broken.turn, sent[4]!.source).fatal).not.toEqual([]);
      const failed = byId.get(sent[0]!.customId)!;
      if (failed.outcome === 'succeeded') throw new Error('expected a failure');
      expect(failed.message).toMatch(new RegExp(`^${name}: request errored`));
      expect(failed.message).not.toContain('emulated');
    });

    it('keeps a batch in progress until it is canceled, then ends it with every unprocessed request canceled', async () => {
      emulator.batches.processingMs = Number.POSITIVE_INFINITY;
      const sent = requests(3);
      const { batchId } = await client().submit(sent, LABEL);
      emulator.batches.process(batchId, 1);
      const running = await client().status(batchId);
      expect(running.state).toBe('in_progress');
      expect(running.counts.processing).toBeGreaterThanOrEqual(2);
      await expect(collect(client().results(batchId))).rejects.toThrow();
      await client().cancel(batchId);
      const ended = await client().status(batchId);
      expect(ended.state).toBe('ended');
      expect(ended.counts.canceled).toBe(2);
      const results = await collect(client().results(batchId));
      expect(
        results
          .filter((r) => r.outcome === 'canceled')
          .map((r) => r.customId)
          .sort(),
      ).toEqual([sent[1]!.customId, sent[2]!.customId].sort());
      expect(results.filter((r) => r.outcome === 'succeeded').map((r) => r.customId)).toEqual([
        sent[0]!.customId,
      ]);
    });

    it('expires a batch with part of its requests done: the rest come back expired and retryable', async () => {
      emulator.batches.processingMs = Number.POSITIVE_INFINITY;
      const sent = requests(4);
      const { batchId } = await client().submit(sent, LABEL);
      emulator.batches.process(batchId, 2);
      emulator.batches.expire(batchId);
      const status = await client().status(batchId);
      expect(status.counts).toMatchObject({ succeeded: 2, expired: 2 });
      const results = await collect(client().results(batchId));
      expect(results.filter((r) => r.outcome === 'expired' && r.retryable)).toHaveLength(2);
    });

    it('finds a batch after a crash lost its id: by metadata (openai) or by the custom ids once ended (anthropic)', async () => {
      const label = { runId: `run-now-${name}-crash`, round: 2 };
      const before = new Date();
      await client().submit(requests(3, label), label); // the id is "lost": never recorded
      const found = [];
      for await (const batch of client().list({ createdAfter: before })) found.push(batch);
      const ours = found.filter((b) => b.tag?.runTag === batchRunTag(label.runId) && b.tag.round === 2);
      expect(ours).toHaveLength(1);
      expect(ours[0]!.requestCount).toBe(3);
      expect(ours[0]!.batchId).toBe(emulator.batches.list().at(-1)!.id);
      if (name === 'openai') expect(ours[0]!.label).toEqual(label);
      else expect(ours[0]!.label).toBeUndefined();
      const later = [];
      for await (const batch of client().list({ createdAfter: new Date(Date.now() + 86_400_000) }))
        later.push(batch);
      expect(later).toEqual([]);
    });

    it('knows an unended Anthropic batch only by time and size, and an OpenAI one by its label', async () => {
      emulator.batches.processingMs = Number.POSITIVE_INFINITY;
      const label = { runId: `run-now-${name}-open`, round: 0 };
      const before = new Date();
      const { batchId } = await client().submit(requests(2, label), label);
      const found = [];
      for await (const batch of client().list({ createdAfter: before })) found.push(batch);
      const listed = found.find((b) => b.batchId === batchId)!;
      expect(listed).toMatchObject({ state: 'in_progress', requestCount: 2 });
      if (name === 'openai') expect(listed.tag).toEqual({ runTag: batchRunTag(label.runId), round: 0 });
      else expect(listed.tag).toBeUndefined();
      emulator.batches.settle(batchId);
    });

    it('yields results in the order the provider sends them, which is not the submission order', async () => {
      const sent = requests(12);
      const { batchId } = await client().submit(sent, LABEL);
      const order = (await collect(client().results(batchId))).map((r) => r.customId);
      expect([...order].sort()).toEqual(sent.map((r) => r.customId).sort());
      expect(order).not.toEqual(sent.map((r) => r.customId));
    });

    it('streams a large results file: the first result arrives while the server still holds back the rest', async () => {
      const sent = requests(150);
      const { batchId } = await client().submit(sent, LABEL);
      const held = emulator.batches.holdNextResults(5);
      let count = 0;
      let sentAtFirst = -1;
      for await (const _ of client().results(batchId)) {
        if (count === 0) {
          sentAtFirst = emulator.batches.linesSent;
          held.release();
        }
        count++;
      }
      // Had the client read the whole file before yielding, it would still be waiting: the server
      // sends nothing past line 5 until the first result is in the test's hands.
      expect(sentAtFirst).toBe(5);
      expect(count).toBe(150);
    });

    it('throws when the connection is cut mid-file, after the lines it got; reading again yields them all', async () => {
      const sent = requests(20);
      const { batchId } = await client().submit(sent, LABEL);
      emulator.batches.cutNextResults(7);
      const seen: string[] = [];
      const error = await (async () => {
        for await (const result of client().results(batchId)) seen.push(result.customId);
      })().catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(seen.length).toBeLessThan(20);
      const again = await collect(client().results(batchId));
      expect(again.map((r) => r.customId).sort()).toEqual(sent.map((r) => r.customId).sort());
      expect(seen.every((id) => again.some((r) => r.customId === id))).toBe(true);
    });

    it('refuses, before any HTTP call, a batch over its limits or with a bad or repeated custom id', async () => {
      const c = client();
      const [a, b] = requests(2);
      await expect(c.submit([a!, { ...b!, customId: a!.customId }], LABEL)).rejects.toThrow(/twice/);
      await expect(c.submit([{ ...a!, customId: 'has:colon' }], LABEL)).rejects.toThrow(/invalid custom id/);
      (c.limits as { maxRequests: number }).maxRequests = 1;
      await expect(c.submit([a!, b!], LABEL)).rejects.toThrow(/limit is 1/);
      expect(emulator.requests).toEqual([]);
    });
  },
);
