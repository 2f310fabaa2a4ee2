import {
  type CompressionRequest,
  chineseScript,
  formatV1ForV2,
  inventedSpans,
  toTraditional,
  type V1Result,
} from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';

const TURNS = [
  ['user', '小暖，今天我去參加了奶奶的葬禮，我真的好難過。'],
  ['assistant', '這一天一定很辛苦。你和奶奶之間最難忘的回憶是什麼？'],
  ['user', '小時候奶奶在院子裡教我種番茄。今年春天我也想開始種一個小菜園，這樣就好像她還在我身邊。'],
  ['assistant', '這個想法很美。奶奶一定會很高興的。第一顆番茄長出來的時候，記得拍照給我看。'],
  ['user', '好，下週六我要跟弟弟一起去買菜苗。我弟弟叫陳民俊，他在台北念大學。'],
  ['user', '嗯，我擔心我種不好，會辜負奶奶。'],
].map(([role, text]) => ({ role: role!, text: text! }));

const request = (turns: { role: string; text: string }[]): CompressionRequest => ({
  memoryId: 'zh-hant',
  language: 'zh',
  personality: '',
  roleCard: { userId: 'u', name: '小暖', language: 'zh' },
  text: turns.map((t) => `${t.role}: ${t.text}`).join('\n'),
  speakers: ['user', 'assistant'],
  targetLength: { min: 60, max: 120 },
  createdAt: new Date('2026-11-21T10:00:00Z'),
});

/** The simplified forms the compressor writes itself (its markers, its emotions' names). */
const SIMPLIFIED_FRAME = /[说问诉们担忧虑悲伤惧]/u;

describe('a chat in traditional characters (docs/design.md §4)', () => {
  it('gets V1 and V2 in traditional characters, every word still said by its speaker', async () => {
    const compressor = new OfflineCompressor();
    const v1 = (await compressor.compressV1(request(TURNS))).fields;
    // V2 reads V1 as the pipeline hands it on: its text, key points and highlights.
    const text = formatV1ForV2(v1 as V1Result, 'zh');
    const v2 = (await compressor.compressV2({ ...request(TURNS), text })).fields;
    const source = { language: 'zh' as const, turns: TURNS, names: ['小暖'] };
    for (const text of [v1.compressedContent, ...v1.keyPoints, v2.coreMemory, v2.emotionalResidue.summary]) {
      expect(text).not.toMatch(SIMPLIFIED_FRAME);
      expect(inventedSpans(text, source), text).toEqual([]);
    }
    expect(v1.compressedContent).toMatch(/^你說/);
    expect(chineseScript(v2.coreMemory)).toBe('traditional');
    // Its feeling read in traditional characters (難過, 擔心), named in them.
    expect(v2.emotionalResidue.dominantEmotion).not.toBe('');
    expect(v2.emotionalResidue.dominantEmotion).toBe(toTraditional(v2.emotionalResidue.dominantEmotion));
  });

  it('leaves a simplified chat in simplified characters', async () => {
    const simplified = TURNS.map((t) => ({
      ...t,
      text: t.text.replace(/[說這會還們難擔過個時種長記給學覺應]/gu, (c) => SIMPLE[c]!),
    }));
    const v1 = (await new OfflineCompressor().compressV1(request(simplified))).fields;
    expect(v1.compressedContent).toMatch(/^你说/);
    expect(v1.compressedContent).not.toMatch(/[說問們擔]/u);
  });
});

const SIMPLE: Record<string, string> = {
  說: '说',
  這: '这',
  會: '会',
  還: '还',
  們: '们',
  難: '难',
  擔: '担',
  過: '过',
  個: '个',
  時: '时',
  種: '种',
  長: '长',
  記: '记',
  給: '给',
  學: '学',
  覺: '觉',
  應: '应',
};
