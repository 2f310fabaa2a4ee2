import type { CompressionRequest } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';

const compressor = new OfflineCompressor();
const v2Of = async (text: string, max: number) => {
  const request: CompressionRequest = {
    memoryId: 'm',
    language: 'en',
    personality: '',
    roleCard: { userId: 'u', language: 'en', name: 'Juno', personality: 'warm', hobbies: 'gardening' },
    text,
    targetLength: { min: 60, max },
  };
  return (await compressor.compressV2(request)).fields.coreMemory;
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
      const v2 = await v2Of(v1, max);
      if (/\b(?:he|his|her)\b/.test(v2)) expect(v2, `max ${max}`).toContain('Jimmy');
    }
  });

  it("puts the user's pain in first, whole, where the most informative statements would crowd it out", async () => {
    const withGrief = [
      'You said your team lead changed three times this year and every new one wants a different report format.',
      'You said you started walking to work in March, 35 minutes each way, and signed up for pottery on 12 May.',
      'Juno asked whether you still visit the farm, and you said not since your grandmother passed away in 2019.',
      '[Emotional highlights] You said not since your grandmother passed away in 2019.',
    ].join('\n');
    for (const max of [110, 150]) {
      const v2 = await v2Of(withGrief, max);
      expect(v2, `max ${max}`).toContain('not since your grandmother passed away in 2019');
      // The question it answers travels with it, never alone.
      expect(v2).toContain('Juno asked whether you still visit the farm. You said not since');
    }
  });
});
