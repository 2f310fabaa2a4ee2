import { stagePolicy } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { surveySample } from './survey.js';

const NOW = new Date('2026-11-22T03:00:00Z');

const doc = (memoryId: string, texts: string[]) => {
  const memory = {
    memoryId,
    userId: 'u1',
    partnerId: 'default',
    content: { raw: texts.map((text, i) => ({ role: i % 2 ? 'assistant' : 'user', text })) },
    meta: { createdAt: new Date('2026-11-17T03:00:00Z'), compressionStage: 'raw' },
    rev: 0,
  };
  return { ...memory, source: memory };
};

describe("doctor's sample survey", () => {
  it('counts a memory in a language memfade does not write as bad input, by the product field name', () => {
    const survey = surveySample(
      [
        doc('en-1', ['I finally booked the trip to Lisbon for March, just the two of us.', 'Wonderful!']),
        doc('ko-1', ['하나야, 오늘 할머니 장례식에 다녀왔어. 너무 슬퍼.', '정말 힘든 하루였겠다.']),
      ],
      () => undefined,
      stagePolicy({}),
      NOW,
      (field) => (field === 'content.raw' ? 'messages' : field),
    );
    expect(survey.usable.map((u) => u.memory.memoryId)).toEqual(['en-1']);
    expect(survey.languages).toEqual({ zh: 0, en: 1 });
    expect(survey.problems).toEqual([
      {
        field: 'messages',
        count: 1,
        example: 'ko-1',
        message: expect.stringMatching(/^memory ko-1: messages: written in Korean: /),
      },
    ]);
  });
});
