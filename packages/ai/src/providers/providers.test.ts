import {
  type CallCeiling,
  type CallMeter,
  type CompressionRequest,
  type Compressor,
  chineseScript,
  detectLanguage,
  InvalidModelOutputError,
  measureLength,
  PermanentModelError,
  RateLimitedError,
  toTraditional,
  type Usage,
} from '@memfade/core';
import { type LlmEmulator, startLlmEmulator, until } from '@memfade/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCompressor, createEmbedder } from '../provider.js';

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

function request(
  text: string,
  language: 'zh' | 'en',
  memoryId = 'm1',
  personality = '性格: 温柔',
): CompressionRequest {
  const length = measureLength(text);
  return {
    memoryId,
    language,
    personality,
    roleCard: { userId: 'u1' },
    text,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
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

const providers: Record<string, () => Compressor> = {
  anthropic: () =>
    createCompressor({
      provider: 'anthropic',
      apiKey: 'sk-ant-test',
      model: 'claude-test',
      baseURL: emulator.url,
      timeoutMs: 2_000,
      maxTokens: 2_000,
    }),
  openai: () =>
    createCompressor({
      provider: 'openai',
      apiKey: 'sk-test',
      model: 'gpt-test',
      baseURL: `${emulator.url}/v1`,
      timeoutMs: 2_000,
      maxTokens: 2_000,
      responseFormat: 'json_schema',
    }),
};

describe.each(Object.keys(providers))('%s provider through its real SDK', (name) => {
  const compressor = () => providers[name]!();

  it('sends the schema as a forced tool / strict json_schema and returns measured-in-range Chinese', async () => {
    const reply = await compressor().compressV1(request(ZH, 'zh'));
    expect(emulator.requests).toHaveLength(1);
    const body = emulator.requests[0]!.body;
    if (name === 'anthropic') {
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'record_v1_memory' });
      expect(body.tools[0].input_schema.required).toContain('compressedContent');
    } else {
      expect(body.response_format.type).toBe('json_schema');
      expect(body.response_format.json_schema).toMatchObject({ name: 'record_v1_memory', strict: true });
      expect(body.response_format.json_schema.schema.additionalProperties).toBe(false);
    }
    expect(detectLanguage(reply.fields.compressedContent)).toBe('zh');
    expect(reply.promptVersion).toBe('v1-zh@2026-11-30');
    expect(reply.usage.outputTokens).toBeGreaterThan(0);
  });

  it('uses the Chinese prompt for a Chinese memory and the English prompt for an English one', async () => {
    await compressor().compressV1(request(ZH, 'zh'));
    await compressor().compressV1(request(EN, 'en'));
    const prompts = emulator.requests.map((r) =>
      JSON.stringify(name === 'anthropic' ? r.body.system : r.body.messages[0]),
    );
    expect(prompts[0]).toContain('你为一位 AI 陪伴角色整理它与用户的一段对话记忆');
    expect(prompts[1]).toContain('You keep the memories of an AI companion');
    expect(prompts[1]).not.toContain('陪伴角色');
  });

  it('turns 429 into a rate limit that honours retry-after, after one call', async () => {
    emulator.inject({ kind: 'status', status: 429, retryAfterSeconds: 7 });
    const error = await compressor()
      .compressV1(request(ZH, 'zh'))
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterMs).toBe(7_000);
    expect(emulator.requests).toHaveLength(1);
  });

  it('treats 529 (overloaded) like a rate limit, after one call', async () => {
    emulator.inject({ kind: 'status', status: 529, retryAfterSeconds: 3 });
    const error = await compressor()
      .compressV1(request(ZH, 'zh'))
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterMs).toBe(3_000);
    expect(emulator.requests).toHaveLength(1);
  });

  it('leaves a 500 to the queue to retry, after one call (the SDK does not retry)', async () => {
    emulator.inject({ kind: 'status', status: 500 });
    const error = await compressor()
      .compressV1(request(ZH, 'zh'))
      .catch((e) => e);
    expect(error).not.toBeInstanceOf(RateLimitedError);
    expect(error.status).toBe(500);
    expect(emulator.requests).toHaveLength(1);
  });

  it('keeps the error body out of what the error says, for a 500 and a 401: status and kind only', async () => {
    for (const status of [500, 401] as const) {
      emulator.inject({ kind: 'status', status, message: 'quoted prompt Zk7-body-marker' });
      const error = await compressor()
        .compressV1(request(ZH, 'zh'))
        .catch((e) => e);
      expect(error.message).toMatch(new RegExp(`^${name}: (server error|request refused) \\(${status}\\)`));
      const everything = JSON.stringify({ ...error, message: error.message, stack: error.stack });
      expect(everything).not.toContain('Zk7-body-marker');
    }
  });

  it('gives up at once on a 401', async () => {
    emulator.inject({ kind: 'status', status: 401 });
    await expect(compressor().compressV1(request(ZH, 'zh'))).rejects.toBeInstanceOf(PermanentModelError);
    expect(emulator.requests).toHaveLength(1);
  });

  it('times out a slow reply after one call', async () => {
    emulator.inject({ kind: 'slow', delayMs: 3_000 });
    const error = await compressor()
      .compressV1(request(ZH, 'zh'))
      .catch((e) => e);
    expect(error.constructor.name).toMatch(/Timeout/);
    expect(emulator.requests).toHaveLength(1);
  });

  // docs/design.md invariant 9: a call whose reply never came may be billed; an error reply is not.
  it('tells the meter of each call before it is sent, and leaves a timed-out one unanswered at a ceiling at least what the provider billed', async () => {
    const heard = { sending: [] as CallCeiling[], billed: 0, refused: 0 };
    const meter: CallMeter = {
      sending: async (ceiling) => {
        heard.sending.push(ceiling);
      },
      billed: async () => {
        heard.billed++;
      },
      refused: async () => {
        heard.refused++;
      },
    };
    // An error reply bills nothing: the call is no longer unanswered.
    emulator.inject({ kind: 'status', status: 500 });
    await compressor()
      .compressV1({ ...request(ZH, 'zh'), meter })
      .catch(() => undefined);
    expect(heard).toMatchObject({ billed: 0, refused: 1 });
    expect(heard.sending).toHaveLength(1);
    const before = emulator.billed().sync.tokens;
    emulator.inject({ kind: 'slow', delayMs: 2_500 });
    await compressor()
      .compressV1({ ...request(ZH, 'zh'), meter })
      .catch(() => undefined);
    // Sent, and neither billed nor refused: it stays unanswered.
    expect(heard).toMatchObject({ billed: 0, refused: 1 });
    expect(heard.sending).toHaveLength(2);
    // The provider answers after the client gave up, and bills the call all the same.
    await until(async () => emulator.billed().sync.tokens > before, 30_000);
    const billed = emulator.billed().sync.tokens - before;
    expect(billed).toBeGreaterThan(0);
    const ceiling = heard.sending[1]!;
    expect(ceiling.inputTokens + ceiling.outputTokens).toBeGreaterThanOrEqual(billed);
  });

  // The retention gate's repair (docs/design.md §11): a reply keeping too few of the input's facts
  // gets its one repair turn naming them; the emulator, like a willing model, then keeps them.
  it('repairs a reply that keeps too few facts with one call naming the missing ones', async () => {
    const text = [
      'user: My sister Mia moves to Lisbon on 3 March for a design job at Atelier Nove.',
      'assistant: That is a big step! How do you feel about it?',
      'user: Proud but sad. We booked a farewell dinner at Casa Rosa for Friday at 8 pm.',
      'assistant: A farewell dinner sounds lovely.',
      'user: Our brother Tom flies in from Denver on Thursday, and Grandma Rose turns 90 in June.',
    ].join('\n');
    const strict = { ...request(text, 'en'), retentionMin: 0.95 };
    const reply = await compressor().compressV1(strict);
    expect(emulator.requests).toHaveLength(2);
    const repair = String(emulator.requests[1]!.body.messages.at(-1).content);
    const named = repair.match(/keep these: ([^\n"]+?)\. Fix it/)?.[1]?.split('; ') ?? [];
    expect(named.length).toBeGreaterThan(0);
    const first = JSON.stringify(emulator.requests[1]!.body.messages.at(-2));
    // The repaired answer keeps a fact the first one missed.
    expect(named.some((fact) => !first.includes(fact) && reply.fields.compressedContent.includes(fact))).toBe(
      true,
    );
  });

  // JOB_TIMEOUT_MS: the job's deadline cancels the HTTP call instead of waiting for the model.
  it('cancels the call when the request signal aborts, long before the model would answer', async () => {
    // The model would take 20 s; the bound leaves a loaded machine room (a shared 2-core CI host
    // once took over a second to get the abort through).
    emulator.inject({ kind: 'slow', delayMs: 20_000 });
    const deadline = new AbortController();
    const call = compressor()
      .compressV1({ ...request(ZH, 'zh'), signal: deadline.signal })
      .catch((e) => e);
    // Aborted once the model has the request: a fixed 100 ms timer fired, on a loaded host, before the
    // SDK had sent it, and the request then reached the emulator during the next test.
    await vi.waitFor(() => expect(emulator.requests).toHaveLength(1), { timeout: 10_000 });
    const started = performance.now();
    deadline.abort();
    expect(await call).toBeInstanceOf(Error);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(emulator.requests).toHaveLength(1);
  });

  for (const kind of ['malformed', 'schema', 'wrong-language', 'too-long'] as const) {
    it(`repairs a ${kind} reply with exactly one repair call that says what was wrong`, async () => {
      emulator.inject({ kind });
      const reply = await compressor().compressV1(request(ZH, 'zh'));
      expect(emulator.requests).toHaveLength(2);
      expect(detectLanguage(reply.fields.compressedContent)).toBe('zh');
      const repair = emulator.requests[1]!.body.messages.at(-1).content;
      expect(repair).toMatch(/你的上一个回答不符合要求/);
      if (kind === 'too-long') expect(repair).toMatch(/compressedContent 实际为\d+字，要求\d+-\d+字/);
      if (kind === 'wrong-language') expect(repair).toMatch(/必须用中文书写/);
    });
  }

  it('repairs a memory in traditional characters written back in simplified ones, saying so', async () => {
    const traditional = toTraditional(ZH);
    emulator.inject({ kind: 'simplified' });
    const reply = await compressor().compressV1({ ...request(ZH, 'zh'), text: traditional });
    expect(emulator.requests).toHaveLength(2);
    expect(emulator.requests[0]!.body.messages.at(-1).content).toMatch(/所有字段都用繁体字写/);
    expect(emulator.requests[1]!.body.messages.at(-1).content).toMatch(
      /compressedContent 也必须用繁体字书写/,
    );
    expect(chineseScript(reply.fields.compressedContent)).toBe('traditional');
    emulator.inject({ kind: 'simplified' }, { kind: 'simplified' });
    await expect(compressor().compressV1({ ...request(ZH, 'zh'), text: traditional })).rejects.toThrow(
      InvalidModelOutputError,
    );
  });

  it('fails for good when the repaired reply is still in the wrong language', async () => {
    emulator.inject({ kind: 'wrong-language' }, { kind: 'wrong-language' });
    await expect(compressor().compressV1(request(ZH, 'zh', 'm-bad'))).rejects.toThrow(
      InvalidModelOutputError,
    );
    expect(emulator.requests).toHaveLength(2);
  });

  it('accepts a reply still too long after the repair, for the stage policy to judge', async () => {
    emulator.inject({ kind: 'too-long' }, { kind: 'too-long' });
    const reply = await compressor().compressV1(request(ZH, 'zh'));
    expect(measureLength(reply.fields.compressedContent)).toBeGreaterThan(request(ZH, 'zh').targetLength.max);
    expect(emulator.requests).toHaveLength(2);
  });
});

describe('an OpenAI-compatible server that sends no usage', () => {
  it('counts a reply that says nothing of its usage at its ceiling, never as free', async () => {
    const counted: { usage: Usage; ceiling: CallCeiling }[] = [];
    const meter = {
      sending: async () => {},
      refused: async () => {},
      billed: async (usage: Usage, _model: string, ceiling: CallCeiling) => {
        counted.push({ usage, ceiling });
      },
    };
    emulator.inject({ kind: 'no-usage' });
    const reply = await providers.openai!().compressV1({ ...request(ZH, 'zh'), meter });
    const [call] = counted;
    expect(call!.usage).toMatchObject({
      inputTokens: call!.ceiling.inputTokens,
      outputTokens: call!.ceiling.outputTokens,
    });
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
  });
});

describe('anthropic prompt caching', () => {
  it('sends the same cached prefix for two memories of one role card and reads it from cache the second time', async () => {
    const compressor = providers.anthropic!();
    const first = await compressor.compressV1(request(ZH, 'zh', 'm1', '性格: 温柔细腻'));
    const second = await compressor.compressV1(request(`${ZH}\nuser: 晚安。`, 'zh', 'm2', '性格: 温柔细腻'));
    const [a, b] = emulator.requests.map((r) => r.body.system);
    expect(a).toEqual(b);
    expect(a.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(a)).not.toContain('豆豆'); // the memory's own words stay out of the prefix
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
  });
});

describe('openai json_object compatibility mode', () => {
  it('asks for a JSON object, carries the schema in the prompt, and still validates the reply', async () => {
    const compressor = createCompressor({
      provider: 'openai',
      apiKey: 'sk-test',
      model: 'qwen-plus',
      baseURL: `${emulator.url}/v1`,
      timeoutMs: 2_000,
      maxTokens: 2_000,
      responseFormat: 'json_object',
    });
    const reply = await compressor.compressV2({ ...request(EN, 'en'), targetLength: { min: 100, max: 200 } });
    const body = emulator.requests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0].content).toContain('"coreMemory"');
    expect(detectLanguage(reply.fields.coreMemory)).toBe('en');
    expect(reply.promptVersion).toBe('v2-en@2026-11-30');
  });
});

describe('OpenAI-compatible embeddings', () => {
  it('embeds in batches of the configured size, in input order', async () => {
    const embedder = createEmbedder({
      embedder: 'openai',
      apiKey: 'sk-test',
      model: 'text-embedding-3-small',
      baseURL: `${emulator.url}/v1`,
      dimensions: 32,
      timeoutMs: 2_000,
      batchSize: 2,
    });
    const vectors = await embedder.embed(['一', 'two', '三', 'four', 'five']);
    expect(vectors).toHaveLength(5);
    expect(vectors[0]).toHaveLength(32);
    expect(emulator.requests.map((r) => r.body.input.length)).toEqual([2, 2, 1]);
    expect((await embedder.embed(['三']))[0]).toEqual(vectors[2]);
  });
});

describe('configuration', () => {
  it('refuses a provider without its key or model, naming the variable', () => {
    expect(() => createCompressor({ provider: 'anthropic', model: 'x', timeoutMs: 1, maxTokens: 1 })).toThrow(
      /ANTHROPIC_API_KEY/,
    );
    expect(() =>
      createCompressor({
        provider: 'openai',
        apiKey: 'k',
        timeoutMs: 1,
        maxTokens: 1,
        responseFormat: 'json_schema',
      }),
    ).toThrow(/MEMFADE_MODEL/);
  });
});
