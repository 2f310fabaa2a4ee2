import { buildPrompt, JSON_SCHEMAS, PROVIDER_PROMPT_TOKENS } from '@memfade/ai';
import { estimateTokens, formatMemoryForPrompt, type Memory, stagePolicy } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { noCards } from './card-pairs.js';
import { estimateNight, type SampleSurvey } from './survey.js';

const turns = [
  {
    role: 'user',
    text: 'I went hiking with my sister Mia on Saturday and we got lost near the lake for two hours.',
  },
  { role: 'assistant', text: 'That sounds scary! How did you find your way back?' },
  { role: 'user', text: 'A ranger named Tom showed us the trail. I felt so relieved and a bit embarrassed.' },
  { role: 'assistant', text: 'I am glad you are both safe. Will you go back next month?' },
];
const memory: Memory = {
  memoryId: 'm1',
  userId: 'u1',
  partnerId: 'default',
  content: { raw: turns },
  meta: { createdAt: new Date('2026-11-20T10:00:00Z'), compressionStage: 'raw', language: 'en' },
  rev: 0,
};
const survey: SampleSurvey = {
  usable: [{ memory }],
  problems: [],
  memoriesByCard: noCards(),
  cardsUsed: 0,
  refusals: [],
  languages: { zh: 0, en: 1 },
  sizes: { p10: 0, p50: 0, p90: 0, max: 0 },
};
const model = (provider: string) => ({ name: 'claude-haiku-4-5', offline: false, prices: {}, provider });

/**
 * `memfade doctor` prices tonight from its sample (docs/operations.md): what a call sends includes
 * the output's schema, which the providers bill as input, and Anthropic's tool-use prompt; with the
 * V2 draft a V1 call asks for it and writes it.
 */
describe("the doctor's estimate of tonight's calls", () => {
  it('counts the schema of each call as input, with Anthropic its tool-use prompt', () => {
    const policy = stagePolicy({ v2Draft: 'separate', minInputChars: 10 });
    const calls = { v1: 1, v2: 0 };
    const openai = estimateNight(survey, calls, policy, model('openai')).inputTokens;
    const anthropic = estimateNight(survey, calls, policy, model('anthropic')).inputTokens;
    expect(anthropic - openai).toBe(PROVIDER_PROMPT_TOKENS);
    // More than the prompt's texts alone by at least the V1 schema's tokens.
    const text = formatMemoryForPrompt(memory, 'en');
    const p = buildPrompt('v1', {
      memoryId: 'm1',
      language: 'en',
      personality: '',
      roleCard: { userId: 'u1' },
      text,
      targetLength: { min: 10, max: 20 },
    });
    const texts = estimateTokens(p.instructions + p.personality + p.user);
    expect(openai).toBeGreaterThanOrEqual(texts + estimateTokens(JSON.stringify(JSON_SCHEMAS.v1)) - 20);
  });

  it('with the V2 draft, prices a V1 call as V1 and its draft: a larger schema in, V2 out', () => {
    const calls = { v1: 1, v2: 0 };
    const separate = estimateNight(
      survey,
      calls,
      stagePolicy({ v2Draft: 'separate', minInputChars: 10 }),
      model('openai'),
    );
    const draft = estimateNight(
      survey,
      calls,
      stagePolicy({ v2Draft: 'with-v1', minInputChars: 10 }),
      model('openai'),
    );
    const schemaGrowth =
      estimateTokens(JSON.stringify(JSON_SCHEMAS.pair)) - estimateTokens(JSON.stringify(JSON_SCHEMAS.v1));
    expect(draft.inputTokens - separate.inputTokens).toBeGreaterThanOrEqual(schemaGrowth);
    expect(draft.outputTokens).toBeGreaterThan(separate.outputTokens);
  });
});
