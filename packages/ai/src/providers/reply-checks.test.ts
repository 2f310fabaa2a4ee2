import {
  type CompressionRequest,
  detectLanguage,
  failureReason,
  InvalidModelOutputError,
  measureLength,
} from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outputBudget } from '../prompts/budget.js';
import { createCompressor } from '../provider.js';

/**
 * Replies checked like a careful client (docs/design.md §6), through the real SDKs against the
 * emulator: strict structured output, max_tokens from the stage target, a truncated reply retried
 * once with a larger budget and never stored, a refusal failing its memory with its reason.
 */

const ZH = [
  'user: 下周二我要去上海参加表姐的婚礼，可是我还没想好送什么礼物，有点发愁。',
  'assistant: 恭喜你表姐！你们关系很亲近吧？她平时喜欢什么？',
  'user: 我们从小一起长大。她喜欢喝茶，去年还去云南学过做普洱。预算大概两千块。',
  'assistant: 那送一套好茶具或者一饼老普洱都很合适，既实用又有心意。',
  'user: 好主意！我周末去茶城看看，顺便给妈妈也带一点龙井。',
].join('\n');

function request(
  text: string,
  language: 'zh' | 'en',
  target?: { min: number; max: number },
): CompressionRequest {
  const length = measureLength(text);
  return {
    memoryId: 'm-checks',
    language,
    personality: '性格: 温柔',
    roleCard: { userId: 'u1', name: '小雅', userName: '阿明' },
    text,
    targetLength: target ?? { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
    createdAt: new Date('2026-11-17T09:30:00Z'),
  };
}

let emulator: LlmEmulator;
beforeAll(async () => {
  emulator = await startLlmEmulator();
});
afterAll(async () => emulator.close());
beforeEach(() => {
  emulator.requests.length = 0;
});

const compressorOf = (name: string, maxTokens = 16_000, responseFormat = 'json_schema' as const) =>
  name === 'anthropic'
    ? createCompressor({
        provider: 'anthropic',
        apiKey: 'sk-ant-test',
        model: 'claude-test',
        baseURL: emulator.url,
        timeoutMs: 2_000,
        maxTokens,
      })
    : createCompressor({
        provider: 'openai',
        apiKey: 'sk-test',
        model: 'gpt-test',
        baseURL: `${emulator.url}/v1`,
        timeoutMs: 2_000,
        maxTokens,
        responseFormat,
      });

const sent = (): any[] => emulator.requests.map((r) => r.body);
/** The turns after the system prompt: 1 for a first call or a retry, 3 for a repair. */
const turns = (body: any) => body.messages.filter((m: { role: string }) => m.role !== 'system').length;

async function failure(promise: Promise<unknown>): Promise<InvalidModelOutputError> {
  const error: unknown = await promise.catch((e) => e);
  expect(error).toBeInstanceOf(InvalidModelOutputError);
  return error as InvalidModelOutputError;
}

describe.each(['anthropic', 'openai'])('%s replies, checked like a careful client', (name) => {
  it('sends the schema strict, with a description for each field and no bounds strict mode refuses', async () => {
    await compressorOf(name).compressV2(request(ZH, 'zh', { min: 40, max: 80 }));
    const body = sent()[0];
    const schema =
      name === 'anthropic' ? body.tools[0].input_schema : body.response_format.json_schema.schema;
    if (name === 'anthropic') expect(body.tools[0].strict).toBe(true);
    else expect(body.response_format.json_schema.strict).toBe(true);
    expect(schema.properties.coreMemory.description).toMatch(/first person/);
    expect(schema.properties.emotionalResidue.description).toMatch(/the user's feeling/);
    const wire = JSON.stringify(schema);
    for (const bound of ['"minLength"', '"minimum"', '"maximum"', '"default"'])
      expect(wire).not.toContain(bound);
    expect(schema.properties.emotionalResidue.properties.intensity.description).toContain('minimum: 0');
  });

  it('asks for max_tokens from the stage target: a long Chinese chunk gets more than the old 2,000', async () => {
    /** The first request a compression sends (a repair may follow it). */
    const firstOf = async (call: Promise<unknown>) => {
      const at = emulator.requests.length;
      await call.catch(() => undefined);
      return sent()[at];
    };
    const long = request(ZH, 'zh', { min: 3_600, max: 6_000 });
    const first = await firstOf(compressorOf(name).compressV1(long));
    expect(first.max_tokens).toBe(outputBudget('v1', 'zh', 6_000));
    expect(first.max_tokens).toBeGreaterThan(6_000 * 1.2);
    const short = await firstOf(compressorOf(name).compressV2(request(ZH, 'en', { min: 250, max: 500 })));
    expect(short.max_tokens).toBe(outputBudget('v2', 'en', 500));
    // MODEL_MAX_TOKENS is the ceiling.
    expect((await firstOf(compressorOf(name, 4_000).compressV1(long))).max_tokens).toBe(4_000);
  });

  it('retries a truncated reply once with twice the budget (no repair turn), keeps the complete one, counts both', async () => {
    emulator.inject({ kind: 'truncate' });
    const reply = await compressorOf(name).compressV1(request(ZH, 'zh'));
    const [first, retry] = sent();
    expect(sent()).toHaveLength(2);
    expect(retry.max_tokens).toBe(first.max_tokens * 2);
    expect(turns(retry)).toBe(1);
    expect(detectLanguage(reply.fields.compressedContent)).toBe('zh');
    expect(measureLength(reply.fields.compressedContent)).toBeGreaterThanOrEqual(
      request(ZH, 'zh').targetLength.min,
    );
    // The cut-off reply billed its whole budget: it is in the stage's usage.
    expect(reply.usage.outputTokens).toBeGreaterThan(first.max_tokens);
  });

  it('fails a reply truncated again after its retry as `truncated`, with both calls paid and nothing kept', async () => {
    emulator.inject({ kind: 'truncate' }, { kind: 'truncate' });
    const error = await failure(compressorOf(name).compressV1(request(ZH, 'zh')));
    expect(error.reason).toBe('truncated');
    expect(failureReason(error)).toBe('truncated');
    expect(error.message).toMatch(
      /^memory m-checks: v1 reply truncated: cut off at max_tokens \d+ \(\w+\); 2 calls/,
    );
    const [first, retry] = sent();
    expect(error.spent?.usage.outputTokens).toBe(first.max_tokens + retry.max_tokens);
  });

  it('at the MODEL_MAX_TOKENS ceiling, fails a truncated reply without another call', async () => {
    emulator.inject({ kind: 'truncate' });
    const error = await failure(compressorOf(name, 1_024).compressV1(request(ZH, 'zh')));
    expect(error.reason).toBe('truncated');
    expect(error.message).toContain('the ceiling MODEL_MAX_TOKENS');
    expect(sent()).toHaveLength(1);
  });

  it('fails a refused reply as `refused` after one call: no repair, nothing kept', async () => {
    emulator.inject({ kind: 'refuse' });
    const error = await failure(compressorOf(name).compressV1(request(ZH, 'zh')));
    expect(error.reason).toBe('refused');
    expect(error.message).toMatch(
      /^memory m-checks: v1 reply refused: the model declined \(refusal\); 1 call/,
    );
    expect(error.spent?.usage.outputTokens).toBeGreaterThan(0);
    expect(sent()).toHaveLength(1);
  });

  it('fails a repair reply that comes back truncated as `truncated`', async () => {
    emulator.inject({ kind: 'wrong-language' }, { kind: 'truncate' });
    const error = await failure(compressorOf(name).compressV1(request(ZH, 'zh')));
    expect(error.reason).toBe('truncated');
    expect(turns(sent()[1])).toBe(3);
  });

  it('fails a reply still breaking the schema after its repair as `invalid`', async () => {
    emulator.inject({ kind: 'schema' }, { kind: 'schema' });
    const error = await failure(compressorOf(name).compressV1(request(ZH, 'zh')));
    expect(error.reason).toBe('invalid');
    expect(error.message).toMatch(/v1 reply invalid: still after one repair/);
  });
});

describe('OpenAI-compatible servers without structured output (json_object)', () => {
  const compat = () => compressorOf('openai', 8_192, 'json_object' as never);

  it('asks for a JSON object with the schema, its descriptions and the example in the prompt', async () => {
    await compat().compressV1(request(ZH, 'zh'));
    const body = sent()[0];
    expect(body.response_format).toEqual({ type: 'json_object' });
    const system: string = body.messages[0].content;
    // DeepSeek and Qwen refuse json_object unless the prompt says JSON; DeepSeek asks for an example.
    expect(system).toMatch(/JSON/);
    expect(system).toContain('"compressedContent"');
    expect(system).toContain('first person');
    expect(system).toContain('<example_memory>');
  });

  it('repairs a reply that is not JSON (DeepSeek may send blank content) and validates the repaired one', async () => {
    emulator.inject({ kind: 'malformed' });
    const reply = await compat().compressV1(request(ZH, 'zh'));
    expect(sent()).toHaveLength(2);
    expect(detectLanguage(reply.fields.compressedContent)).toBe('zh');
    // The repair turn keeps the stage's budget, well under the server's ceiling.
    expect(sent()[1].max_tokens).toBe(outputBudget('v1', 'zh', request(ZH, 'zh').targetLength.max));
  });

  it('retries a reply cut off at finish_reason length with twice the budget, up to the ceiling', async () => {
    emulator.inject({ kind: 'truncate' });
    await compat().compressV1(request(ZH, 'zh', { min: 2_000, max: 3_000 }));
    const [first, retry] = sent();
    expect(first.max_tokens).toBe(outputBudget('v1', 'zh', 3_000));
    expect(retry.max_tokens).toBe(8_192);
  });
});
