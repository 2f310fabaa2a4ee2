/**
 * What the offline compressor's tests send it (compressor.test.ts, compressor-keeps.test.ts,
 * unattributed.test.ts): a request for a role card of either language, the 30-50% share a V1 is
 * asked for, and the V1-then-V2 run the pipeline makes, so every such test asks the way the pipeline
 * does (docs/design.md §4).
 * Not compiled into dist (tsconfig excludes it): it is test code.
 */
import {
  type CompressionRequest,
  formatV1ForV2,
  measureLength,
  type RoleCard,
  type V1Result,
} from '@memfade/core';
import { OfflineCompressor } from './compressor.js';

const card = (language: 'zh' | 'en', extra: Partial<RoleCard> = {}): RoleCard =>
  language === 'zh'
    ? { userId: 'u', personality: '温柔细腻', hobbies: '画画，养狗', language, ...extra }
    : { userId: 'u', personality: 'warm, curious', hobbies: 'gardening, photography', language, ...extra };

export const request = (
  text: string,
  language: 'zh' | 'en',
  targetLength: { min: number; max: number },
  extra: Partial<RoleCard> = {},
): CompressionRequest => ({
  memoryId: 'm',
  language,
  personality: '',
  roleCard: card(language, extra),
  text,
  targetLength,
});

export const compressor = new OfflineCompressor();
export const share = (text: string) => {
  const length = measureLength(text);
  return { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) };
};

/** V1, then V2 on V1's text with the range stage.ts plans (the language's, at most 80% of V1). */
export async function stages(text: string, language: 'zh' | 'en', extra: Partial<RoleCard> = {}) {
  const v1 = (await compressor.compressV1(request(text, language, share(text), extra))).fields;
  const range = language === 'zh' ? { min: 100, max: 200 } : { min: 250, max: 500 };
  const max = Math.min(range.max, Math.floor(measureLength(v1.compressedContent) * 0.8));
  const target = { min: range.min <= max ? range.min : Math.floor(max / 2), max };
  const input = formatV1ForV2(v1 as V1Result, language);
  const v2 = (await compressor.compressV2(request(input, language, target, extra))).fields;
  return { v1, v2 };
}
