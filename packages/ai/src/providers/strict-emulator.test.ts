import Anthropic from '@anthropic-ai/sdk';
import {
  type CallMeter,
  type CompressionRequest,
  failureReason,
  InvalidModelOutputError,
  measureLength,
} from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompressor } from '../provider.js';

/**
 * The emulator as strict as the providers where money and failure depend on it (issue 27 item 3),
 * through the real SDKs: the minimum cacheable prefix per model, OpenAI's 128-token steps, entries
 * that expire after 5 minutes unused, best-effort cache hits in batches, and replies cut off at
 * max_tokens with the provider's stop reason. Each test fails against the old emulator, which
 * cached any prefix forever and never truncated on its own.
 */

let emulator: LlmEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** A system prompt of about `tokens` tokens by the emulator's count (one per Chinese character). */
const prefixOf = (tokens: number) => '规'.repeat(tokens);
const MEMORY = '<memory>\nuser: 今天去公园散步了。\nassistant: 真好。\n</memory>\n长度：20-40字';

function anthropic(url: string) {
  return new Anthropic({ apiKey: 'sk-ant-test', baseURL: url, maxRetries: 0 });
}

/** One forced-tool V1 call with a cache_control'd system prompt, as memfade sends it. */
const message = (model: string, system: string) => ({
  model,
  max_tokens: 1_024,
  system: [{ type: 'text' as const, text: system, cache_control: { type: 'ephemeral' as const } }],
  messages: [{ role: 'user' as const, content: MEMORY }],
  tools: [{ name: 'record_v1_memory', input_schema: { type: 'object' as const } }],
  tool_choice: { type: 'tool' as const, name: 'record_v1_memory' },
});

async function twoCalls(model: string, prefixTokens: number) {
  const client = anthropic(emulator!.url);
  const first = await client.messages.create(message(model, prefixOf(prefixTokens)));
  const second = await client.messages.create(message(model, prefixOf(prefixTokens)));
  return [first.usage, second.usage] as const;
}

describe('Anthropic prompt caching, per model', () => {
  it('caches nothing of a 280-token prefix on claude-haiku-4-5 (minimum 4,096): billed as input', async () => {
    emulator = await startLlmEmulator();
    const [first, second] = await twoCalls('claude-haiku-4-5', 280);
    for (const usage of [first, second]) {
      expect(usage.cache_read_input_tokens).toBe(0);
      expect(usage.cache_creation_input_tokens).toBe(0);
      expect(usage.input_tokens).toBeGreaterThan(280);
    }
  });

  it('caches by the table: 1,100 tokens on Sonnet 4.5 but not Haiku 4.5 or Haiku 3.5; 4,200 on Haiku 4.5', async () => {
    emulator = await startLlmEmulator();
    // The prefix is the system blocks as sent (a few tokens of JSON around the text).
    expect((await twoCalls('claude-sonnet-4-5', 1_100))[1].cache_read_input_tokens).toBeGreaterThan(1_100);
    expect((await twoCalls('claude-haiku-4-5', 1_100))[1].cache_read_input_tokens).toBe(0);
    expect((await twoCalls('claude-3-5-haiku-latest', 1_100))[1].cache_read_input_tokens).toBe(0);
    const [write, read] = await twoCalls('claude-haiku-4-5', 4_200);
    expect(write.cache_creation_input_tokens).toBeGreaterThan(4_200);
    expect(read.cache_read_input_tokens).toBe(write.cache_creation_input_tokens);
  });

  it('keeps the permissive default for test model names: any prefix is cached', async () => {
    emulator = await startLlmEmulator();
    expect((await twoCalls('claude-test', 280))[1].cache_read_input_tokens).toBeGreaterThan(280);
  });

  it('forgets an entry unused for 5 minutes; each use keeps it another 5', async () => {
    let now = 0;
    emulator = await startLlmEmulator({ now: () => now });
    const client = anthropic(emulator.url);
    const call = async () =>
      (await client.messages.create(message('claude-sonnet-4-5', prefixOf(1_500)))).usage;
    const size = (await call()).cache_creation_input_tokens;
    expect(size).toBeGreaterThan(1_500);
    now += 4 * 60_000;
    expect((await call()).cache_read_input_tokens).toBe(size);
    now += 4 * 60_000; // 8 minutes after the write, 4 after the read: still there
    expect((await call()).cache_read_input_tokens).toBe(size);
    now += 5 * 60_000 + 1;
    const expired = await call();
    expect(expired.cache_read_input_tokens).toBe(0);
    expect(expired.cache_creation_input_tokens).toBe(size);
  });

  it('makes cache hits in a batch best-effort (batchCacheHitRate), while sync calls always hit', async () => {
    emulator = await startLlmEmulator({ batchCacheHitRate: 0.5 });
    const client = anthropic(emulator.url);
    const requests = Array.from({ length: 11 }, (_, i) => ({
      custom_id: `m-${i}`,
      params: message('claude-haiku-4-5', prefixOf(4_200)),
    }));
    const batch = await client.messages.batches.create({ requests });
    let reads = 0;
    let writes = 0;
    for await (const line of await client.messages.batches.results(batch.id)) {
      if (line.result.type !== 'succeeded') throw new Error(`line ${line.custom_id}: ${line.result.type}`);
      if (line.result.message.usage.cache_read_input_tokens) reads++;
      if (line.result.message.usage.cache_creation_input_tokens) writes++;
    }
    // The first writes; of the 10 that could read, half do and the others write again.
    expect({ reads, writes }).toEqual({ reads: 5, writes: 6 });
    await expect(startLlmEmulator({ batchCacheHitRate: 2 })).rejects.toThrow(/batchCacheHitRate/);
  });
});

describe('OpenAI prompt caching', () => {
  it('caches only prompts of 1,024+ tokens, credited in 128-token steps', async () => {
    emulator = await startLlmEmulator();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const cachedOf = async (model: string, tokens: number) => {
      const body = {
        model,
        messages: [
          { role: 'system' as const, content: prefixOf(tokens) },
          { role: 'user' as const, content: MEMORY },
        ],
        response_format: {
          type: 'json_schema' as const,
          json_schema: { name: 'record_v1_memory', schema: { type: 'object' } },
        },
      };
      await client.chat.completions.create(body);
      return (await client.chat.completions.create(body)).usage?.prompt_tokens_details?.cached_tokens;
    };
    expect(await cachedOf('gpt-4.1-mini', 1_000)).toBe(0);
    expect(await cachedOf('gpt-5-mini', 1_300)).toBe(1_280);
    expect(await cachedOf('gpt-test', 300)).toBeGreaterThan(300);
  });
});

/** A schema of about 200 tokens by the emulator's count, with keys OpenAI does not bill. */
const SCHEMA = {
  type: 'object',
  properties: { summary: { type: 'string', description: '记'.repeat(200) } },
  required: ['summary'],
  additionalProperties: false,
};

describe('the output definition is billed and cached as the providers do, for real model names', () => {
  it("Anthropic: the tools parameter and the forced tool's 313-token system prompt, cached with the prefix", async () => {
    emulator = await startLlmEmulator();
    const client = anthropic(emulator.url);
    const call = async (model: string, schema: object) => {
      const body = message(model, prefixOf(1_100));
      body.tools[0]!.input_schema = schema as (typeof body.tools)[0]['input_schema'];
      return (await client.messages.create(body)).usage;
    };
    const total = (u: Anthropic.Usage) =>
      u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
    const test = await call('claude-test', SCHEMA);
    const written = await call('claude-sonnet-4-5', SCHEMA);
    // The test name keeps the old figures; the real one adds the tool's JSON (>= 200) and 313.
    expect(total(written) - total(test)).toBeGreaterThanOrEqual(313 + 200);
    expect(written.cache_creation_input_tokens).toBeGreaterThan(1_100 + 313 + 200);
    const read = await call('claude-sonnet-4-5', SCHEMA);
    expect(read.cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
    // Another schema is another prefix: nothing to read.
    expect((await call('claude-sonnet-4-5', { type: 'object' })).cache_read_input_tokens).toBe(0);
  });

  it("OpenAI: the response format's schema without required and additionalProperties, plus 9", async () => {
    emulator = await startLlmEmulator();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const promptTokens = async (model: string, schema: Record<string, unknown>) =>
      (
        await client.chat.completions.create({
          model,
          messages: [
            { role: 'system' as const, content: prefixOf(100) },
            { role: 'user' as const, content: MEMORY },
          ],
          response_format: {
            type: 'json_schema' as const,
            json_schema: { name: 'record_v1_memory', schema },
          },
        })
      ).usage!.prompt_tokens;
    const counted = { type: 'object', properties: SCHEMA.properties };
    const added = (await promptTokens('gpt-4.1-mini', SCHEMA)) - (await promptTokens('gpt-test', SCHEMA));
    expect(added).toBe(
      (await promptTokens('gpt-4.1-mini', counted)) - (await promptTokens('gpt-test', counted)),
    );
    expect(added).toBeGreaterThanOrEqual(200 + 9);
  });
});

/** A Chinese chunk of about 12,000 characters (the old CHUNK default), each sentence distinct. */
const LONG_ZH = Array.from(
  { length: 400 },
  (_, i) => `user: 第${i + 1}天我和朋友去了湖边散步，聊了很久工作的事情。`,
).join('\n');

function longRequest(): CompressionRequest {
  const length = measureLength(LONG_ZH);
  return {
    memoryId: 'm-long',
    language: 'zh',
    personality: '性格: 温柔',
    roleCard: { userId: 'u1', name: '小雅', userName: '阿明' },
    text: LONG_ZH,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
    createdAt: new Date('2026-11-17T09:30:00Z'),
  };
}

describe.each(['anthropic', 'openai'] as const)('%s: a reply longer than max_tokens', (provider) => {
  const compressor = (url: string, maxTokens: number) =>
    provider === 'anthropic'
      ? createCompressor({
          provider,
          apiKey: 'sk-ant-test',
          model: 'claude-haiku-4-5',
          baseURL: url,
          timeoutMs: 5_000,
          maxTokens,
        })
      : createCompressor({
          provider,
          apiKey: 'sk-test',
          model: 'gpt-5-mini',
          baseURL: `${url}/v1`,
          timeoutMs: 5_000,
          maxTokens,
          responseFormat: 'json_schema',
        });

  // docs/design.md invariant 14: what a call is reserved at covers what it is billed, the output's
  // definition and the provider's tool prompt included.
  it('reserves at least the input the provider bills, for V1 with its draft in either language', async () => {
    emulator = await startLlmEmulator();
    for (const language of ['zh', 'en'] as const) {
      const text =
        language === 'zh' ? 'user: 今天去公园了。\nassistant: 真好。' : 'user: I went out.\nassistant: Nice.';
      const request = {
        ...longRequest(),
        language,
        text,
        targetLength: { min: 5, max: 10 },
        draft: { targetLength: { min: 3, max: 6 }, range: { min: 3, max: 6 } },
      };
      const reserved: number[] = [];
      const meter: CallMeter = {
        sending: async (ceiling) => void reserved.push(ceiling.inputTokens),
        billed: async () => undefined,
        refused: async () => undefined,
      };
      const first = emulator.requests.length;
      // A reply the checks send back for repair is the next call: each is held to its own ceiling.
      await compressor(emulator.url, 16_000)
        .compressV1({ ...request, meter })
        .catch(() => undefined);
      const billed = emulator.requests.slice(first).map((r) => r.billed!);
      expect(billed.length).toBeGreaterThan(0);
      expect(reserved).toHaveLength(billed.length);
      billed.forEach((usage, k) => {
        const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
        expect(input).toBeGreaterThan(1_000);
        expect(reserved[k]).toBeGreaterThanOrEqual(input);
      });
    }
  });

  it('is cut off with the old MODEL_MAX_TOKENS=2000 on a 12,000-character chunk, and memfade stores nothing', async () => {
    expect(measureLength(LONG_ZH)).toBeGreaterThan(11_000);
    emulator = await startLlmEmulator();
    const error: unknown = await compressor(emulator.url, 2_000)
      .compressV1(longRequest())
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidModelOutputError);
    expect(failureReason(error as InvalidModelOutputError)).toBe('truncated');
    // The emulator cut the reply itself (no fault injected), with the provider's stop reason.
    const [first] = emulator.requests;
    expect(first!.fault).toBeUndefined();
    expect(first!.body.max_tokens ?? first!.body.max_completion_tokens).toBe(2_000);
  });

  it('comes back whole when max_tokens is derived from the target (the default ceiling 16,000)', async () => {
    emulator = await startLlmEmulator();
    const reply = await compressor(emulator.url, 16_000).compressV1(longRequest());
    const length = measureLength(reply.fields.compressedContent);
    expect(length).toBeGreaterThanOrEqual(longRequest().targetLength.min);
    expect(emulator.requests).toHaveLength(1);
  });
});

describe('the stop reason of a cut-off reply, as the SDKs see it', () => {
  it('Anthropic: stop_reason max_tokens, a partial tool input, all of max_tokens billed', async () => {
    emulator = await startLlmEmulator();
    const reply = await anthropic(emulator.url).messages.create({
      ...message('claude-haiku-4-5', '规则'),
      max_tokens: 30,
      messages: [{ role: 'user', content: `<memory>\n${LONG_ZH}\n</memory>\n长度：3600-6000字` }],
    });
    expect(reply.stop_reason).toBe('max_tokens');
    expect(reply.usage.output_tokens).toBe(30);
    const input = (reply.content[0] as { input: Record<string, unknown> }).input;
    expect(Object.keys(input)).toEqual(['compressedContent']);
  });

  it('OpenAI: finish_reason length, the JSON cut mid-way', async () => {
    emulator = await startLlmEmulator();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${emulator.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({
      model: 'gpt-5-mini',
      max_completion_tokens: 30,
      messages: [
        { role: 'system', content: '规则' },
        { role: 'user', content: `<memory>\n${LONG_ZH}\n</memory>\n长度：3600-6000字` },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'record_v1_memory', schema: { type: 'object' } },
      },
    });
    expect(reply.choices[0]!.finish_reason).toBe('length');
    expect(() => JSON.parse(reply.choices[0]!.message.content ?? '')).toThrow();
  });
});
