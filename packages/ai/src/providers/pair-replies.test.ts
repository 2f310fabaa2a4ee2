import { type CompressionRequest, measureLength } from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pairBudget } from '../prompts/budget.js';
import { createCompressor } from '../provider.js';
import { checkTurn } from './model-compressor.js';

/**
 * V1 with its V2 draft in one call (V2_DRAFT=with-v1, docs/design.md §4), through the real SDKs
 * against the emulator: one request with one strict schema holding both, a budget for both, a
 * truncated pair retried as a pair, and a draft that fails its checks dropped while V1 is kept.
 */

const EN = [
  'user: I finally booked the flights to Lisbon! We leave on the 3rd of May, back on the 10th.',
  'assistant: That is wonderful! Who are you going with?',
  "user: Just me and Priya. It's our first trip since the wedding, but I'm worried about the cost.",
  'assistant: What part of the budget worries you most?',
  'user: The hotel. It was 1,200 euros for the week and we still need to pay for the car rental.',
  'assistant: Maybe a smaller hotel near Alfama would leave room for the car?',
  'user: Good idea. Priya wants to see the tram 28 and eat pastel de nata at Belem on day one.',
].join('\n');

function pairRequest(): CompressionRequest {
  const length = measureLength(EN);
  return {
    memoryId: 'm-pair',
    language: 'en',
    personality: 'Personality: warm',
    roleCard: { userId: 'u1', name: 'Mia', userName: 'Sam' },
    text: EN,
    targetLength: { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) },
    createdAt: new Date('2026-11-17T09:30:00Z'),
    draft: { targetLength: { min: 60, max: 110 }, range: { min: 250, max: 500 } },
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

const compressorOf = (name: 'anthropic' | 'openai') =>
  name === 'anthropic'
    ? createCompressor({
        provider: 'anthropic',
        apiKey: 'sk-ant-test',
        model: 'claude-test',
        baseURL: emulator.url,
        timeoutMs: 2_000,
        maxTokens: 16_000,
      })
    : createCompressor({
        provider: 'openai',
        apiKey: 'sk-test',
        model: 'gpt-test',
        baseURL: `${emulator.url}/v1`,
        timeoutMs: 2_000,
        maxTokens: 16_000,
        responseFormat: 'json_schema',
      });

const schemaOf = (body: any) => body.tools?.[0]?.input_schema ?? body.response_format.json_schema.schema;

describe.each(['anthropic', 'openai'] as const)('%s: V1 and its V2 draft from one call', (name) => {
  it('sends one request with one strict schema holding both, and a budget for both', async () => {
    const request = pairRequest();
    const reply = await compressorOf(name).compressV1(request);
    expect(emulator.requests).toHaveLength(1);
    const body = emulator.requests[0]!.body;
    expect(Object.keys(schemaOf(body).properties)).toEqual(['v1', 'v2']);
    expect(schemaOf(body).properties.v2.properties.coreMemory.description).toMatch(/first person/);
    expect(body.max_tokens).toBe(pairBudget('en', request.targetLength.max, 110));
    expect(reply.promptVersion).toMatch(/^v1v2-en@/);
    expect(reply.fields.compressedContent.length).toBeGreaterThan(0);
    // The draft is written from the conversation, to its own target, shorter than V1.
    const draft = measureLength(reply.draft!.coreMemory);
    expect(draft).toBeLessThanOrEqual(110);
    expect(draft).toBeLessThan(measureLength(reply.fields.compressedContent));
  });

  it('retries a truncated pair as a pair, with twice the budget', async () => {
    emulator.inject({ kind: 'truncate' });
    const reply = await compressorOf(name).compressV1(pairRequest());
    const [first, retry] = emulator.requests.map((r) => r.body);
    expect(emulator.requests).toHaveLength(2);
    expect(Object.keys(schemaOf(retry).properties)).toEqual(['v1', 'v2']);
    expect(retry.max_tokens).toBe(first.max_tokens * 2);
    expect(reply.draft?.coreMemory.length).toBeGreaterThan(0);
  });
});

describe('a pair reply checked', () => {
  const v2 = {
    coreMemoryPoints: [],
    memoryTraces: { clear: [], fuzzy: [], vague: [] },
    forgotten: { details: [], reason: '' },
    emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
    personalityNotes: '',
  };
  const v1 = {
    compressedContent:
      'Sam told me he booked flights to Lisbon with Priya, 3 to 10 May, their first trip since the wedding; ' +
      'the hotel cost 1,200 euros and he worried about the car rental.',
    keyPoints: [],
    emotionalHighlights: [],
    personalityAdjustment: { emphasized: [], deemphasized: [] },
  };
  const turn = (json: unknown) => ({
    end: 'complete' as const,
    stopReason: 'tool_use',
    json,
    text: JSON.stringify(json),
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });

  it('keeps V1 and drops a draft not shorter than V1, saying so in the repair', () => {
    const checked = checkTurn(
      'v1',
      turn({ v1, v2: { ...v2, coreMemory: v1.compressedContent } }),
      pairRequest(),
    );
    expect(checked.fields).toEqual(v1);
    expect(checked.draft).toBeUndefined();
    expect(checked.fatal).toEqual([]);
    expect(checked.length.join('; ')).toContain('v2.coreMemory must be shorter than v1.compressedContent');
  });

  it('keeps a draft in English and shorter than V1', () => {
    const coreMemory = 'Sam and Priya fly to Lisbon from 3 to 10 May; the 1,200 euro hotel worried him.';
    const checked = checkTurn('v1', turn({ v1, v2: { ...v2, coreMemory } }), pairRequest());
    expect(checked.draft?.coreMemory).toBe(coreMemory);
  });

  it('drops a draft in the wrong language, V1 still kept', () => {
    const coreMemory = '萨姆和普丽娅五月三日到十日去里斯本，酒店一千二百欧元让他发愁。';
    const checked = checkTurn('v1', turn({ v1, v2: { ...v2, coreMemory } }), pairRequest());
    expect(checked.fields).toEqual(v1);
    expect(checked.draft).toBeUndefined();
  });
});
