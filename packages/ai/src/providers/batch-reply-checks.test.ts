import {
  type BatchItem,
  type BatchItemResult,
  type CompressionRequest,
  detectLanguage,
  InvalidModelOutputError,
  measureLength,
  type V1Fields,
} from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outputBudget } from '../prompts/budget.js';
import { createBatchCompressor } from '../provider.js';

/**
 * Batch mode checks each result line exactly like a sync reply (docs/design.md §6): the requests are
 * the sync prompts (date, time zone, max_tokens), a line cut off at max_tokens gets one sync call
 * with twice the budget, a refused line fails its memory as `refused`, and nothing partial is kept.
 */

const ZH = [
  'user: 下周二我要去上海参加表姐的婚礼，可是我还没想好送什么礼物，有点发愁。',
  'assistant: 恭喜你表姐！你们关系很亲近吧？她平时喜欢什么？',
  'user: 我们从小一起长大。她喜欢喝茶，去年还去云南学过做普洱。预算大概两千块。',
  'assistant: 那送一套好茶具或者一饼老普洱都很合适，既实用又有心意。',
].join('\n');

const LABEL = { runId: 'nightly-2026-11-18', round: 0 };

function request(memoryId: string): CompressionRequest {
  const length = measureLength(ZH);
  return {
    memoryId,
    language: 'zh',
    personality: '性格: 温柔',
    roleCard: { userId: 'u1', name: '小雅', userName: '阿明' },
    text: ZH,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
    // 20:00 UTC on the 17th is already Wednesday the 18th in Shanghai.
    createdAt: new Date('2026-11-17T20:00:00Z'),
  };
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => {
  emulator.requests.length = 0;
  emulator.batches.processingMs = 0;
});

const compressorOf = (name: string) =>
  createBatchCompressor(
    name === 'anthropic'
      ? {
          provider: 'anthropic',
          apiKey: 'sk-ant-test',
          model: 'claude-test',
          baseURL: emulator.url,
          timeoutMs: 5_000,
          maxTokens: 16_000,
          timeZone: 'Asia/Shanghai',
        }
      : {
          provider: 'openai',
          apiKey: 'sk-test',
          model: 'gpt-test',
          baseURL: `${emulator.url}/v1`,
          timeoutMs: 5_000,
          maxTokens: 16_000,
          responseFormat: 'json_schema',
          timeZone: 'Asia/Shanghai',
        },
  )!;

describe.each(['anthropic', 'openai'])('%s batch result lines, checked like sync replies', (name) => {
  it('sends the sync prompt: the date in the configured time zone, max_tokens from the target', async () => {
    const compressor = compressorOf(name);
    const item: BatchItem = {
      customId: compressor.customId(LABEL, 'a'),
      stage: 'v1',
      request: request('m-a'),
    };
    await compressor.submit([item], LABEL);
    const [line] = emulator.requests.filter((r) => r.batchId);
    const user = line!.body.messages.find((m: { role: string }) => m.role === 'user').content;
    expect(user.split('\n')[0]).toBe('对话日期：2026年11月18日（星期三）');
    expect(line!.body.max_tokens).toBe(outputBudget('v1', 'zh', request('m-a').targetLength.max));
  });

  it('retries a truncated line once by a sync call with twice its budget, fails a refused one as `refused`', async () => {
    const compressor = compressorOf(name);
    const items: BatchItem[] = ['cut', 'refused', 'fine'].map((key) => ({
      customId: compressor.customId(LABEL, key),
      stage: 'v1',
      request: request(`m-${key}`),
    }));
    // Faults go to requests in the order they are recorded: the batch's lines, in submission order.
    emulator.inject({ kind: 'truncate' }, { kind: 'refuse' });
    const { batchId } = await compressor.submit(items, LABEL);
    expect((await compressor.status(batchId)).ended).toBe(true);
    const results: BatchItemResult[] = [];
    for await (const result of compressor.results(batchId)) results.push(result);
    const accept = (key: string) => {
      const item = items.find((i) => i.customId === compressor.customId(LABEL, key))!;
      const result = results.find((r) => r.customId === item.customId)!;
      if (result.outcome !== 'succeeded') throw new Error(`${key}: ${result.outcome}`);
      return compressor.accept('v1', item.request, result.turn);
    };
    const lineBudget = emulator.requests.find((r) => r.batchId)!.body.max_tokens;

    const kept = await accept('cut');
    const sync = emulator.requests.filter((r) => !r.batchId);
    expect(sync).toHaveLength(1);
    expect(sync[0]!.body.max_tokens).toBe(lineBudget * 2);
    expect(sync[0]!.body.messages.filter((m: { role: string }) => m.role !== 'system')).toHaveLength(1);
    expect(detectLanguage((kept.fields as V1Fields).compressedContent)).toBe('zh');
    // The cut-off line was paid for: its usage is in the stage's.
    expect(kept.usage.outputTokens).toBeGreaterThan(lineBudget);

    const refused = await accept('refused').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidModelOutputError);
    expect((refused as InvalidModelOutputError).reason).toBe('refused');
    expect((refused as InvalidModelOutputError).message).toMatch(/v1 reply refused: the model declined/);

    await accept('fine');
    // Neither the refused line nor the fine one needed a sync call.
    expect(emulator.requests.filter((r) => !r.batchId)).toHaveLength(1);
  });
});
