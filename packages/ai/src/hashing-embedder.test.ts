import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from './hashing-embedder.js';

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);

describe('HashingEmbedder', () => {
  const embedder = new HashingEmbedder(128);

  it('gives deterministic, unit-length vectors of the configured size', async () => {
    const [a, b] = await embedder.embed(['我喜欢在西湖边散步', '我喜欢在西湖边散步']);
    expect(a).toHaveLength(128);
    expect(a).toEqual(b);
    expect(cosine(a!, a!)).toBeCloseTo(1, 6);
  });

  it('puts similar Chinese and English texts closer than unrelated ones', async () => {
    const [walk, walk2, work] = await embedder.embed([
      '周末在西湖边散步看樱花',
      '西湖边散步，樱花开了',
      '下周五要交销售数据报告',
    ]);
    expect(cosine(walk!, walk2!)).toBeGreaterThan(cosine(walk!, work!));
    const [garden, garden2, job] = await embedder.embed([
      'sunset at the botanical garden',
      'the botanical garden at sunset was lovely',
      'job interview on Thursday',
    ]);
    expect(cosine(garden!, garden2!)).toBeGreaterThan(cosine(garden!, job!));
  });
});
