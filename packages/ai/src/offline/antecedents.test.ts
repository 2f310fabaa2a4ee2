import type { CompressionRequest } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';

const compressor = new OfflineCompressor();
const v1Request: CompressionRequest = {
  memoryId: 'm',
  language: 'en',
  personality: '',
  roleCard: { userId: 'u', language: 'en', name: 'Mia' },
  text: '',
  targetLength: { min: 60, max: 1000 },
};
const v2Of = async (text: string, max: number) => {
  const request: CompressionRequest = {
    memoryId: 'm',
    language: 'en',
    personality: '',
    roleCard: { userId: 'u', language: 'en', name: 'Juno', personality: 'warm', hobbies: 'gardening' },
    text,
    targetLength: { min: 60, max },
  };
  return (await compressor.compressV2(request)).fields;
};

describe('a core memory of whole thoughts (issue 36, antecedents.ts)', () => {
  const v1 = [
    'You said Jimmy started a new job at the bank in March and now works late every evening.',
    'You said you bought a red bicycle for 300 dollars on Saturday.',
    'You said you also repainted the kitchen walls a pale green colour over the long weekend.',
    "You said last night he didn't even notice you cooked his favourite lasagna.",
    'You said you will ask her to coffee on Thursday.',
  ].join('\n');

  it('keeps a he or she only where the core memory names a person it can mean', async () => {
    for (const max of [100, 120, 160, 200, 250]) {
      const v2 = (await v2Of(v1, max)).coreMemory;
      if (/\b(?:he|his|her)\b/.test(v2)) expect(v2, `max ${max}`).toContain('Jimmy');
    }
  });

  it('a she means the woman named before it, not the cousin or the man just before her', async () => {
    const v1 = [
      'You said your grandmother taught you to bake bread.',
      'You said your cousin Sam moved away.',
      'You said every Sunday in 2019 she let you knead the dough at 6 am, 12 loaves a week.',
    ].join('\n');
    // Room for the she-statement and one more: it goes with the grandmother (the old rule took Sam's line).
    for (const max of [150, 170]) {
      const v2 = (await v2Of(v1, max)).coreMemory;
      expect(v2, `max ${max}`).toContain('knead the dough');
      expect(v2, `max ${max}`).toContain('grandmother');
      expect(v2, `max ${max}`).not.toContain('Sam');
    }
  });

  it('a person after his / her ("her dad") is not the one it means, nor is a place ("Maple Street"); no item of a list holds another', async () => {
    const cases = [
      [
        'You said your daughter Lily graduated from nursing school in June.',
        'You said you repainted the kitchen walls a pale green colour over the long weekend.',
        'You said her dad would have loved to see it, he passed away in 2019.',
      ],
      [
        'You said your cat Miso died this morning at the age of 14.',
        'You said you bought a red bicycle for 300 dollars on Saturday.',
        'You said you held her the whole time at the clinic on Maple Street.',
      ],
    ];
    for (const [named, other, pronoun] of cases) {
      const v2 = await v2Of([named, other, pronoun].join('\n'), 250);
      const { clear, fuzzy, vague } = v2.memoryTraces;
      const items = [...v2.coreMemoryPoints, ...clear, ...fuzzy, ...vague];
      const showing = items.filter((item) => item.includes(pronoun!.slice(14, 30)));
      expect(showing.length, pronoun).toBeGreaterThan(0);
      for (const item of showing) expect(item).toContain(named!.slice(9));
      for (const list of [v2.coreMemoryPoints, [...clear, ...fuzzy], [...vague, ...v2.forgotten.details]])
        for (const p of list)
          expect(
            list.filter((q) => q !== p && q.includes(p)),
            p,
          ).toEqual([]);
    }
  });

  it('a he further back than four statements is the one person the talk names, only where it names one', async () => {
    const filler = [
      'You said the weather was mild.',
      'You said the tea was warm.',
      'You said the bus was late.',
    ];
    const lines = (first: string) =>
      [first, ...filler, 'You said the shop was closed.', "You're scared he'll say you're being needy."].join(
        '\n',
      );
    const chosen = async (first: string) => {
      const { keyPoints } = (
        await compressor.compressV1({
          ...v1Request,
          text: lines(first),
          targetLength: { min: 60, max: 1000 },
        })
      ).fields;
      return keyPoints.find((p) => p.includes('needy'));
    };
    // Jimmy alone: the he is his, and goes with the statement naming him.
    expect(await chosen("You wondered why Jimmy isn't paying attention to you anymore.")).toContain('Jimmy');
    // Jimmy and Tom: which he is a guess, and the statement no key point.
    expect(await chosen('You wondered why Jimmy and Tom are not talking to you.')).toBeUndefined();
  });
});
