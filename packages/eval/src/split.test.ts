import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadDataset } from './loaders.js';
import { fnv1a, halfOf, inHalf } from './split.js';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../ai/fixtures/', import.meta.url));

/** The tune / check split is fixed: these lists are the record of which half each conversation is in. */
describe('the tune and the check half', () => {
  it('is FNV-1a of the conversation, even in tune, odd in check', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(halfOf({ id: 'conv-26/session_3', thread: 'conv-26' })).toBe('tune');
    expect(halfOf({ id: 'conv-26' })).toBe('tune');
    expect(halfOf({ id: 'conv-30' })).toBe('check');
  });

  it("keeps a conversation's memories together: a LoCoMo sample's sessions, a MemoryBank user's days", async () => {
    const locomo = await loadDataset(`${DATA}locomo/locomo7.json`, 'locomo');
    const tune = inHalf(locomo, 'tune');
    expect([...new Set(tune.map((c) => c.thread))]).toEqual(['conv-26', 'conv-42', 'conv-48']);
    expect([tune.length, inHalf(locomo, 'check').length]).toEqual([78, 109]);
    const bankZh = await loadDataset(`${DATA}memorybank/memory_bank_cn.json`, 'memorybank');
    expect([...new Set(inHalf(bankZh, 'tune').map((c) => c.thread))]).toEqual([
      '张曼婷',
      '李雪',
      '孙悦',
      '周立',
      '刘琳',
      '张志强',
      '宫晓燕',
      '郝明',
      '焦彦',
    ]);
    const bankEn = await loadDataset(`${DATA}memorybank/memory_bank_en.json`, 'memorybank');
    expect([...new Set(inHalf(bankEn, 'tune').map((c) => c.thread))]).toEqual([
      'Lucy',
      'Sunny',
      ' Jason ',
      'John Zhang',
      'Gary',
      'Jack',
    ]);
    expect(inHalf(bankEn, 'tune')).toHaveLength(59);
  });

  it('splits the single-memory sets by id', async () => {
    const ids = async (file: string, format: 'kdconv' | 'dulemon' | 'jsonl') =>
      inHalf(await loadDataset(file, format), 'tune').map((c) => c.id);
    const kdconv = await ids(`${DATA}kdconv/travel_test.json`, 'kdconv');
    expect(kdconv).toHaveLength(75);
    expect(kdconv.slice(0, 5)).toEqual(['kdconv/1', 'kdconv/3', 'kdconv/5', 'kdconv/7', 'kdconv/9']);
    expect(await ids(`${DATA}dulemon/samples.json`, 'dulemon')).toEqual(
      [2, 4, 6, 8, 11, 13, 15, 17, 19, 20].map((n) => `dulemon/${n}`),
    );
    expect(await ids(`${FIXTURES}school-zh.jsonl`, 'jsonl')).toEqual(
      [1, 3, 5, 7, 9, 10].map((n) => `school-zh/${n}`),
    );
    expect(await ids(`${FIXTURES}health-en.jsonl`, 'jsonl')).toEqual(
      [2, 4, 6, 8].map((n) => `health-en/${n}`),
    );
  });
});
